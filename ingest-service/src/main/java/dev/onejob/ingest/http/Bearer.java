package dev.onejob.ingest.http;

import dev.onejob.core.http.HttpCall;
import dev.onejob.ingest.Principal;
import dev.onejob.ingest.Tokens;

/** Who calls: the principal of the request's token, or the 401 problem that says what is wrong with it. */
final class Bearer {
    private Bearer() {
    }

    /**
     * The caller of a token: sent as {@code Authorization: Bearer <token>}, or as {@code x-api-key: <token>}, which
     * is how the Anthropic SDKs send theirs.
     */
    static Principal caller(HttpCall exchange, Tokens tokens) {
        String header = exchange.header("Authorization");
        String apiKey = exchange.header("x-api-key");
        if (header == null && apiKey != null) {
            return tokens.authenticate(apiKey.replaceAll("^[ \\t]+|[ \\t]+$", ""))
                    .orElseThrow(() -> Problem.unauthorized("the x-api-key token is not valid"));
        }
        if (header == null) {
            throw Problem.unauthorized("an Authorization: Bearer <token> (or x-api-key: <token>) header is required");
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw Problem.unauthorized("the Authorization header must be 'Bearer <token>'");
        }
        // Only spaces and tabs are padding around a header value (RFC 9110 5.5); any other control character is
        // part of what was sent, so such a token does not match.
        return tokens.authenticate(header.substring(7).replaceAll("^[ \\t]+|[ \\t]+$", ""))
                .orElseThrow(() -> Problem.unauthorized("the bearer token is not valid"));
    }
}
