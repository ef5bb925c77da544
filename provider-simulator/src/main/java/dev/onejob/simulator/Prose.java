package dev.onejob.simulator;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.SplittableRandom;

/**
 * Deterministic plain-English prose: the simulator's answer to a free-text request (no output schema) and the
 * padding of a {@code large_answer} or {@code paced} answer.
 *
 * <p>Consumes a seed (the prompt text) and, for padding, a length; produces ASCII sentences chosen from a fixed list
 * by SHA-256 of the seed, so the same request always gets the same text. The text never holds a quote, a backslash
 * or a control character: its JSON form is exactly as long as the text. Owns nothing.
 */
final class Prose {

    private static final String[] SENTENCES = {
        "The parcel arrived on time and in good condition.",
        "Most of the details you mention point the same way.",
        "A short summary follows, with the main points first.",
        "There is nothing unusual in the text you sent.",
        "The tone of the message is calm and friendly.",
        "Several readers would likely reach the same conclusion.",
        "The key facts are stated clearly and in order.",
        "It is worth checking the dates once more before you decide.",
        "On balance, the request can be handled as described.",
        "No further information is needed to answer this.",
        "The wording is plain, so the meaning is easy to follow.",
        "A second look confirms the first impression.",
        "Each point is answered briefly below.",
        "The example you gave is a typical case.",
        "Nothing here depends on information that is missing.",
        "This answer keeps to what the message says.",
    };

    private Prose() {
    }

    /** A short answer: a first sentence naming a tag made from the seed ({@code sim-} + 8 hex), then two more. */
    static String answer(String seed) {
        byte[] digest = Json.sha256(String.valueOf(seed).getBytes(StandardCharsets.UTF_8));
        String tag = "sim-" + HexFormat.of().formatHex(digest, 0, 4);
        return "Here is the simulated answer " + tag + ". " + SENTENCES[Math.floorMod(digest[4], SENTENCES.length)]
                + " " + SENTENCES[Math.floorMod(digest[5], SENTENCES.length)];
    }

    /** Exactly {@code length} characters of prose (the last sentence cut where the length ends); "" for 0 or less. */
    static String ofLength(String seed, int length) {
        if (length <= 0) {
            return "";
        }
        SplittableRandom random = new SplittableRandom(
                ByteBuffer.wrap(Json.sha256(String.valueOf(seed).getBytes(StandardCharsets.UTF_8))).getLong());
        StringBuilder text = new StringBuilder(length + 64);
        while (text.length() < length) {
            text.append(SENTENCES[random.nextInt(SENTENCES.length)]).append(' ');
        }
        text.setLength(length);
        return text.toString();
    }
}
