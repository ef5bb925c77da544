package dev.onejob.ingest;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;

/**
 * The credentials a fuzzed request carries: mostly a fixture token, else no header, an empty or garbage bearer,
 * Basic auth, a token one character off, a 10 KiB token, a token followed by a non-ASCII space, two credentials in
 * one header, or two Authorization headers. Says which caller the server must see, or that it must see none.
 */
final class FuzzAuth {
    /** {@code caller} null: no valid credential; {@code invalid}: 401 wherever a token is needed. */
    record Choice(List<RawHttp.Header> headers, FuzzTargets.Caller caller, boolean invalid, boolean ambiguous) {
    }

    private final Random random;

    FuzzAuth(Random random) {
        this.random = random;
    }

    Choice choose(List<String> notes) {
        FuzzTargets.Caller caller = FuzzTargets.CALLERS.get(random.nextInt(FuzzTargets.CALLERS.size()));
        String token = caller.token();
        return switch (random.nextInt(40)) {
            case 0 -> invalid(notes, "no Authorization");
            case 1 -> invalid(notes, "empty bearer", "Bearer ");
            case 2 -> invalid(notes, "garbage token", "Bearer garbage-" + random.nextInt(1000));
            case 3 -> invalid(notes, "Basic", "Basic " + Base64.getEncoder()
                    .encodeToString((caller.owner() + ":" + token).getBytes(StandardCharsets.UTF_8)));
            case 4 -> invalid(notes, "last character changed", "Bearer " + token.substring(0, token.length() - 1)
                    + (char) (token.charAt(token.length() - 1) + 1));
            case 5 -> invalid(notes, "10 KiB token", "Bearer " + "a".repeat(10 * 1024));
            case 6 -> invalid(notes, "token + U+00A0", "Bearer " + token + "\u00a0");
            case 7 -> invalid(notes, "no scheme", token);
            case 8 -> invalid(notes, "two credentials in one header", "Bearer " + token + ", Bearer "
                    + IngestFixture.BOB);
            case 9 -> invalid(notes, "two Authorization headers, garbage first", "Bearer nope", "Bearer " + token);
            case 10 -> {
                notes.add("two Authorization headers, " + caller.owner() + " first");
                yield new Choice(List.of(authorization("Bearer " + token), authorization("Bearer nope")), caller,
                        false, true);
            }
            case 11 -> {
                notes.add("lower-case scheme");
                yield new Choice(List.of(authorization("bearer " + token)), caller, false, false);
            }
            default -> new Choice(List.of(authorization("Bearer " + token)), caller, false, false);
        };
    }

    private static Choice invalid(List<String> notes, String note, String... values) {
        notes.add(note);
        return new Choice(Arrays.stream(values).map(FuzzAuth::authorization).toList(), null, true, false);
    }

    static RawHttp.Header authorization(String value) {
        return new RawHttp.Header("Authorization", value);
    }
}
