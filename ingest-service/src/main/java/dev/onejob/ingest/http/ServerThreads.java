package dev.onejob.ingest.http;

import dev.onejob.core.http.WebServer;
import java.util.concurrent.Executor;

/**
 * The web server's threads, known once it has started: what answers given later, waits and streams run on, and how
 * many tasks wait for one. The parts built before the server (admission, the watches, the routes) hold this.
 */
final class ServerThreads implements Executor {
    private volatile WebServer server;

    void bind(WebServer started) {
        this.server = started;
    }

    @Override
    public void execute(Runnable task) {
        server.executor().execute(task);
    }

    /** Tasks waiting for a server thread (requests to read or run, answers to send); 0 before the server starts. */
    int queued() {
        WebServer current = server;
        return current == null ? 0 : current.queuedTasks();
    }
}
