package dev.onejob.core.http;

import java.io.IOException;

/**
 * What a {@link WebServer} serves: called on a server thread for every well-formed request, it answers through
 * {@link HttpCall#send}. A route that returns without answering, or throws, gets a 500 problem from the server.
 */
@FunctionalInterface
public interface HttpRoutes {
    void handle(HttpCall call) throws IOException;
}
