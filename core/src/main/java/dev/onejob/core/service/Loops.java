package dev.onejob.core.service;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The long-running loops of one service (a consumer's poll loop, the outbox relay), each on a named thread of its
 * own, under one policy for a loop that dies: the first death is kept (so {@code /health} answers 503 naming it)
 * and handed to the service's {@code onDeath}. A service run alone exits with status 1 then ({@link #EXIT}), so its
 * supervisor restarts it; a dead loop in a process that stays up would otherwise consume nothing and say nothing.
 * Owns its threads; {@link #close()} stops the loops in reverse order of start and waits for them.
 */
public final class Loops implements AutoCloseable {
    /** A loop: {@link #run()} returns only once {@link #close()} asked it to stop. */
    public interface Loop extends Runnable, AutoCloseable {
    }

    /** Exit status of a process whose loop died: a supervisor restarts it. */
    public static final int DEAD_LOOP_EXIT_STATUS = 1;

    /**
     * The policy of a service run alone: exit with {@link #DEAD_LOOP_EXIT_STATUS}. The exit runs on a thread of its
     * own, so the dying loop's thread ends and the shutdown hooks that wait for it are not held up.
     */
    public static final Consumer<String> EXIT = reason -> {
        Thread exit = new Thread(() -> System.exit(DEAD_LOOP_EXIT_STATUS), "dead-loop-exit");
        exit.start();
    };

    /** The policy of a service hosted by a process that decides for itself (tests): report only. */
    public static final Consumer<String> REPORT_ONLY = reason -> {
    };

    private static final Logger log = LoggerFactory.getLogger(Loops.class);
    private static final long JOIN_MILLIS = 10_000;

    private final Consumer<String> onDeath;
    private final AtomicReference<String> dead = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Loop> loops = new ArrayList<>();

    public Loops(Consumer<String> onDeath) {
        this.onDeath = onDeath;
    }

    /** Starts {@code loop} on a daemon thread named {@code name}. */
    public synchronized void start(String name, Loop loop) {
        Thread thread = new Thread(loop, name);
        thread.setDaemon(true);
        thread.setUncaughtExceptionHandler((t, error) -> died(t.getName(), error));
        loops.add(loop);
        threads.add(thread);
        thread.start();
    }

    /** Records a death as the policy wants it; also for loops that run on threads this class does not own. */
    public void died(String name, Throwable error) {
        // What /health says is public: the thread's name, never the error (its text can name hosts or data);
        // the error is in the log line below.
        String reason = "the " + name + " thread stopped; restart this instance (the error is in its log)";
        if (dead.compareAndSet(null, reason)) {
            log.error("event=loop_died loop={} error=\"{}\" action=report_not_ready", name, error.toString(), error);
            onDeath.accept(reason);
        } else {
            log.error("event=loop_died loop={} error=\"{}\"", name, error.toString(), error);
        }
    }

    /** The first loop that died: what {@code /health} reports (the error itself is logged). */
    public Optional<String> dead() {
        return Optional.ofNullable(dead.get());
    }

    @Override
    public synchronized void close() {
        for (int i = loops.size() - 1; i >= 0; i--) {
            try {
                loops.get(i).close();
            } catch (Exception e) {
                log.warn("event=stop_failed loop={} error={}", threads.get(i).getName(), e.toString());
            }
        }
        for (Thread thread : threads) {
            if (thread == Thread.currentThread()) {
                continue;
            }
            try {
                thread.join(JOIN_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
