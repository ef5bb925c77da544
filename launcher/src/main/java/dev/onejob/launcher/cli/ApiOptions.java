package dev.onejob.launcher.cli;

import java.net.URI;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The options of every command that talks to the HTTP API: where it is and whose token to present. Consumed by
 * picocli as a mixin; produces an {@link ApiClient}. A missing token or a URL that is not http(s) is a usage error
 * (exit 2).
 */
public final class ApiOptions {
    static final String DEFAULT_URL = "http://localhost:8080";

    @Option(names = "--url", paramLabel = "URL",
            description = "The ingest service's HTTP API (default: $ONEJOB_URL, else the running ./onejob dev's, else "
                    + DEFAULT_URL + ").")
    String url;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "Bearer token; it names the owner and the roles (default: $ONEJOB_TOKEN, which keeps it out"
                    + " of the process list). ./onejob dev prints its dev tokens.")
    String token;

    public ApiClient client(CliContext context) {
        String base = url != null ? url : context.running("ONEJOB_URL", DEFAULT_URL);
        URI uri;
        try {
            uri = URI.create(base);
        } catch (IllegalArgumentException e) {
            throw CliFailure.usage("--url '" + base + "' is not a URL");
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
            throw CliFailure.usage("--url must look like http://HOST:PORT, got '" + base + "'");
        }
        String bearer = token != null ? token : context.env("ONEJOB_TOKEN", null);
        if (bearer == null || bearer.isBlank()) {
            throw CliFailure.usage("no token: give --token or set ONEJOB_TOKEN (./onejob dev prints the dev tokens)");
        }
        return new ApiClient(base, bearer.trim(), Duration.ofSeconds(30));
    }
}
