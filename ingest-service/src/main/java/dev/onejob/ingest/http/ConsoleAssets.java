package dev.onejob.ingest.http;

import dev.onejob.core.http.HttpCall;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The operator console's files, served from this jar ({@code console/} on the class path): nothing fetched from the
 * internet, no build step. Every answer carries a Content-Security-Policy that allows this origin's scripts and
 * styles only (no inline script, no eval) and API calls to this origin only; the page holds its token in session
 * storage and sends it as a header, so the files themselves are public.
 */
final class ConsoleAssets {
    static final String ROOT = "/console";
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
    /** A file name, never a path: nothing outside {@code console/} can be named. */
    private static final Pattern FILE = Pattern.compile("[a-z0-9][a-z0-9-]*\\.(html|js|css|svg|png)");
    private static final Map<String, String> TYPES = Map.of("html", "text/html; charset=utf-8",
            "js", "text/javascript; charset=utf-8", "css", "text/css; charset=utf-8", "svg", "image/svg+xml",
            "png", "image/png");
    private static final Map<String, byte[]> CACHE = new ConcurrentHashMap<>();

    private ConsoleAssets() {
    }

    static void serve(HttpCall exchange, String path) throws IOException {
        if (path.equals(ROOT)) {
            // The page's relative links resolve under /console/ only from /console/ itself.
            exchange.setHeader("Location", ROOT + "/");
            Exchanges.send(exchange, 308, "text/plain", new byte[0]);
            return;
        }
        String name = path.substring(ROOT.length() + 1);
        if (name.isEmpty()) {
            name = "index.html";
        }
        byte[] body = FILE.matcher(name).matches() ? load(name) : null;
        if (body == null) {
            throw Problem.notFound("the console has no file '" + name + "'");
        }
        exchange.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        exchange.setHeader("X-Content-Type-Options", "nosniff");
        exchange.setHeader("Referrer-Policy", "no-referrer");
        exchange.setHeader("X-Frame-Options", "DENY");
        String type = TYPES.get(name.substring(name.lastIndexOf('.') + 1));
        Exchanges.send(exchange, 200, type, body);
    }

    private static byte[] load(String name) throws IOException {
        byte[] cached = CACHE.get(name);
        if (cached != null) {
            return cached;
        }
        try (InputStream in = ConsoleAssets.class.getClassLoader().getResourceAsStream("console/" + name)) {
            if (in == null) {
                return null;
            }
            byte[] body = in.readAllBytes();
            CACHE.put(name, body);
            return body;
        }
    }
}
