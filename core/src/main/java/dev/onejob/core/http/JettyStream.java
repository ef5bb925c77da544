package dev.onejob.core.http;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** A chunked answer: one write in flight at a time (Jetty refuses a second), the rest queued in order. */
final class JettyStream implements HttpCall.Stream {
    private final Response response;
    private final Callback done;
    private final ArrayDeque<ByteBuffer> queue = new ArrayDeque<>();
    private final List<Runnable> onClose = new ArrayList<>();
    private boolean writing;
    private boolean closing;
    private boolean closed;

    JettyStream(Response response, Callback done) {
        this.response = response;
        this.done = done;
    }

    @Override
    public boolean write(byte[] chunk) {
        synchronized (this) {
            if (closing || closed) {
                return false;
            }
            queue.add(ByteBuffer.wrap(chunk));
        }
        pump();
        return true;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closing || closed) {
                return;
            }
            closing = true;
        }
        pump();
    }

    @Override
    public synchronized boolean isOpen() {
        return !closing && !closed;
    }

    @Override
    public void onClose(Runnable whenClosed) {
        synchronized (this) {
            if (!closed) {
                onClose.add(whenClosed);
                return;
            }
        }
        whenClosed.run();
    }

    private void pump() {
        ByteBuffer next;
        boolean last;
        synchronized (this) {
            if (writing || closed) {
                return;
            }
            next = queue.poll();
            last = next == null;
            if (last && !closing) {
                return;
            }
            writing = true;
        }
        if (last) {
            response.write(true, ByteBuffer.allocate(0), new Callback() {
                @Override
                public void succeeded() {
                    finish(null);
                }

                @Override
                public void failed(Throwable x) {
                    finish(x);
                }
            });
            return;
        }
        response.write(false, next, new Callback() {
            @Override
            public void succeeded() {
                synchronized (JettyStream.this) {
                    writing = false;
                }
                pump();
            }

            @Override
            public void failed(Throwable x) {
                finish(x);
            }
        });
    }

    /** The client left (Jetty's failure listener): nothing more can be sent. */
    void failed(Throwable failure) {
        finish(failure);
    }

    private void finish(Throwable failure) {
        List<Runnable> listeners;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            queue.clear();
            listeners = List.copyOf(onClose);
            onClose.clear();
        }
        if (failure == null) {
            done.succeeded();
        } else {
            done.failed(failure);
        }
        listeners.forEach(Runnable::run);
    }
}
