package dev.onejob.ingest.http;

import dev.onejob.core.http.HttpCall;
import dev.onejob.ingest.Principal;
import java.io.IOException;

/**
 * One route of the HTTP API: a method and a path template as the OpenAPI document writes it, who may call it, the
 * code that answers, and how its errors are shaped. The table of them ({@link RouteTable}) is written once and drives
 * dispatch, the {@code Allow} header of a 405, the metrics' route label, the route check against the OpenAPI document
 * and the authorisation suite.
 *
 * @param admitted whether a call passes the front door's admission and counts against its owner's caps (the API's
 *                 routes); every route of one template answers the same here
 * @param forbidden the 403's detail for a token without {@code role}
 */
public record Route(String method, String template, Role role, boolean admitted, String forbidden, Handler handler,
                    ErrorShape errors) {

    /** Who may call a route: anyone, any valid token, or a token with one role. */
    public enum Role {
        PUBLIC(null), CALLER(null), SUBMIT(Principal.SUBMIT), OPERATE(Principal.OPERATE);

        private final String name;

        Role(String name) {
            this.name = name;
        }

        /** Whether {@code caller} may call a route of this role (any token may call a CALLER route). */
        boolean admits(Principal caller) {
            return name == null || caller.may(name);
        }

        /** The token role this names, or null for PUBLIC and CALLER. */
        public String roleName() {
            return name;
        }
    }

    /** What a route's code gets beside the exchange: the caller, the template's one parameter, the path, the finish. */
    record Call(Principal caller, String parameter, String path, JobsApi.Later later) {
    }

    /** The code that answers a route. */
    @FunctionalInterface
    public interface Handler {
        void handle(HttpCall exchange, Call call) throws IOException;
    }

    /** How a route's errors are sent: most as the problem they are, the drop-in routes' as the SDKs read them. */
    @FunctionalInterface
    public interface ErrorShape {
        ErrorShape PROBLEM = (exchange, problem) -> problem;

        Problem shaped(HttpCall exchange, Problem problem);
    }

    /** A route anyone may call, with no token: health, the OpenAPI document, the console's files. */
    static Route open(String method, String template, Handler handler) {
        return new Route(method, template, Role.PUBLIC, false, null, handler, ErrorShape.PROBLEM);
    }

    /** A route of the API: a token with {@code role}, admission, the owner's caps. */
    static Route api(String method, String template, Role role, Handler handler) {
        return new Route(method, template, role, true, "this token lacks the '" + role.roleName() + "' role",
                handler, ErrorShape.PROBLEM);
    }

    /** The same route for a scrape: a token, but neither admission nor the owner's caps. */
    Route scrape() {
        return new Route(method, template, role, false, forbidden, handler, errors);
    }

    /** The same route with its own 403 detail. */
    Route forbidding(String detail) {
        return new Route(method, template, role, admitted, detail, handler, errors);
    }

    /** The same route with its errors shaped by {@code shape}. */
    Route shapingErrors(ErrorShape shape) {
        return new Route(method, template, role, admitted, forbidden, handler, shape);
    }
}
