package dev.onejob.ingest.http;

import dev.onejob.core.http.HttpCall;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's routes by path template: which template a raw path names (a {@code {name}} is one path segment, a
 * {@code {file}} possibly empty), the routes of that template by method, and the metrics' route label, a closed set
 * callers cannot grow. A path under a {@code {file}} template's folder that is deeper than one segment goes to that
 * template's routes too (the console answers it 404 itself), labelled "unmatched".
 */
public final class RouteTable {
    private static final Set<String> KNOWN_METHODS = Set.of("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD",
            "OPTIONS");

    private final List<Route> routes;
    private final Map<String, List<Route>> byTemplate = new LinkedHashMap<>();
    private final Map<String, Pattern> patterns = new LinkedHashMap<>();

    public RouteTable(List<Route> routes) {
        this.routes = List.copyOf(routes);
        for (Route route : routes) {
            byTemplate.computeIfAbsent(route.template(), t -> new ArrayList<>()).add(route);
            patterns.computeIfAbsent(route.template(), t -> Pattern.compile(t.replace("{file}", "([^/]*)")
                    .replaceAll("\\{[a-z]+}", "([^/]+)")));
        }
    }

    /** Every route, in the order written. */
    public List<Route> routes() {
        return routes;
    }

    /** What {@code rawPath} names: the routes of one template, or none (a 404 once the caller is known). */
    Match match(String rawPath) {
        for (Map.Entry<String, Pattern> entry : patterns.entrySet()) {
            Matcher matcher = entry.getValue().matcher(rawPath);
            if (matcher.matches()) {
                String parameter = matcher.groupCount() == 0 ? null : segment(matcher.group(1));
                return new Match(entry.getKey(), byTemplate.get(entry.getKey()), parameter);
            }
        }
        for (Map.Entry<String, List<Route>> entry : byTemplate.entrySet()) {
            String template = entry.getKey();
            if (template.endsWith("/{file}") && rawPath.startsWith(template.substring(0, template.length() - 6))) {
                return new Match(null, entry.getValue(), null);
            }
        }
        return new Match(null, List.of(), null);
    }

    /** A path segment as the caller meant it (percent-decoded); a malformed escape names nothing. */
    private static String segment(String raw) {
        try {
            return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    /**
     * The routes one path names (empty: none), the label's template (null: "unmatched") and the path's parameter,
     * percent-decoded.
     */
    record Match(String template, List<Route> routes, String parameter) {
        /** Anyone may call it: no token, no admission. */
        boolean open() {
            return !routes.isEmpty() && routes.get(0).role() == Route.Role.PUBLIC;
        }

        /** A call passes admission and the owner's caps: the API's routes, and every path that names none. */
        boolean admitted() {
            return routes.isEmpty() || routes.get(0).admitted();
        }

        /** How errors on this path are sent. */
        Route.ErrorShape errors() {
            return routes.isEmpty() ? Route.ErrorShape.PROBLEM : routes.get(0).errors();
        }

        /** The metrics label: a route template and a method from a closed set. */
        String label(String anyMethod) {
            if (template == null) {
                return "unmatched";
            }
            return (KNOWN_METHODS.contains(anyMethod) ? anyMethod : "OTHER") + " " + template;
        }

        /** The route of {@code method}; else 405 with the {@code Allow} header RFC 9110 asks for. */
        Route route(HttpCall exchange, String method) {
            for (Route route : routes) {
                if (route.method().equals(method)) {
                    return route;
                }
            }
            String allowed = String.join(", ", routes.stream().map(Route::method).toList());
            exchange.setHeader("Allow", allowed);
            throw new Problem(405, "method-not-allowed", "Method not allowed", "this resource allows " + allowed);
        }
    }
}
