package dev.onejob.ingest.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.core.http.HttpCall;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Load shedding's decisions and its Retry-After, from what it is told the queue and the backlog are. */
class AdmissionTest {
    /** A commit queue with nothing waiting. */
    private static final Admission.CommitQueue IDLE = queue(0, 0);

    private static Admission.CommitQueue queue(long oldestWaitMs, int waiting) {
        return new Admission.CommitQueue() {
            public long oldestWaitNanos() {
                return oldestWaitMs * 1_000_000;
            }

            public int waiting() {
                return waiting;
            }

            public long committed() {
                return 0;
            }

            public int oneRound() {
                return 4 * 128;
            }
        };
    }

    @Test
    void aSubmissionIsRefusedWhileTheOldestWaitingForItsCommitWaitedPastTheBound() {
        try (Admission slow = new Admission(Duration.ofMillis(250), 0, () -> 0, queue(400, 900), () -> {
            throw new IllegalStateException("not asked");
        }); Admission fine = new Admission(Duration.ofMillis(250), 0, () -> 0, queue(100, 900), () -> {
            throw new IllegalStateException("not asked");
        })) {
            fine.admitSubmission();
            Problem problem = assertThrows(Problem.class, slow::admitSubmission);
            assertEquals(503, problem.status());
            assertTrue(problem.getMessage().contains("waiting for its commit"), problem.getMessage());
            // nothing drains in this test: the longest Retry-After
            assertEquals(Long.toString(Admission.MAX_RETRY_AFTER_SECONDS),
                    problem.body(null).path("retry_after_seconds").asText());
        }
    }
    @Test
    void retryAfterIsTheExcessOverTheDrainRateBetweenOneAndTwoMinutes() {
        assertEquals(5, Admission.retryAfter(500, 100));
        assertEquals(1, Admission.retryAfter(3, 100));
        assertEquals(Admission.MAX_RETRY_AFTER_SECONDS, Admission.retryAfter(10, 0));
        assertEquals(Admission.MAX_RETRY_AFTER_SECONDS, Admission.retryAfter(1_000_000, 1));
    }

    @Test
    void aRequestThatWaitedPastTheBoundIsRefusedWith503AndRetryAfter() {
        try (Admission admission = new Admission(Duration.ofMillis(100), 0, () -> 40, IDLE, () -> {
            throw new IllegalStateException("not asked");
        })) {
            admission.admit(call(Duration.ofMillis(20)));
            Problem problem = assertThrows(Problem.class, () -> admission.admit(call(Duration.ofMillis(300))));
            assertEquals(503, problem.status());
            assertEquals("overloaded", problem.type());
            long retryAfter = Long.parseLong(problem.body(null).path("retry_after_seconds").asText());
            assertTrue(retryAfter >= 1 && retryAfter <= Admission.MAX_RETRY_AFTER_SECONDS, problem.getMessage());
        }
    }

    @Test
    void aCommitQueueLongerThanTheBoundAtTheRateCommitsDrainItIsRefusedBeforeItsOldestWaitedThatLong()
            throws Exception {
        // given commits draining about 100 submissions a second in groups of at most 20 at once, then 300 waiting
        // (3 s) whose oldest waited 10 ms
        AtomicLong committed = new AtomicLong();
        AtomicInteger waiting = new AtomicInteger();
        Admission.CommitQueue commits = new Admission.CommitQueue() {
            public long oldestWaitNanos() {
                return 10_000_000;
            }

            public int waiting() {
                return waiting.get();
            }

            public long committed() {
                return committed.addAndGet(100);
            }

            public int oneRound() {
                return 20;
            }
        };
        try (Admission admission = new Admission(Duration.ofMillis(500), 0, () -> 0, commits, () -> {
            throw new IllegalStateException("not asked");
        })) {
            admission.admitSubmission();
            // a round's worth waiting is no queue, whatever the rate
            waiting.set(20);
            Thread.sleep(1_200);
            admission.admitSubmission();
            waiting.set(300);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            Problem refused = null;
            while (refused == null && System.nanoTime() < deadline) {
                try {
                    admission.admitSubmission();
                    Thread.sleep(100);
                } catch (Problem p) {
                    refused = p;
                }
            }
            assertTrue(refused != null, "never refused with 300 waiting at about 100 commits/s");
            assertTrue(refused.getMessage().contains("300 submissions wait"), refused.getMessage());
        }
    }

    @Test
    void aQueueAheadOfTheThreadsLongerThanTheBoundAtTheRateRequestsFinishIsRefused() throws Exception {
        // given a server that finishes about 200 requests a second, then 500 tasks waiting for a thread (2.5 s)
        AtomicInteger queued = new AtomicInteger();
        try (Admission admission = new Admission(Duration.ofMillis(250), 0, queued::get, IDLE, () -> {
            throw new IllegalStateException("not asked");
        })) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            Problem refused = null;
            while (refused == null && System.nanoTime() < deadline) {
                for (int i = 0; i < 20; i++) {
                    admission.completed();
                }
                queued.set(0);
                admission.admit(call(Duration.ZERO));
                queued.set(500);
                try {
                    admission.admit(call(Duration.ZERO));
                } catch (Problem p) {
                    refused = p;
                }
                Thread.sleep(100);
            }
            // then a request read at once is still refused: the ones queued behind it would wait about 2.5 s
            assertTrue(refused != null, "never refused with 500 tasks ahead at about 200 requests/s");
            assertEquals(503, refused.status());
            assertTrue(refused.getMessage().contains("500 tasks wait"), refused.getMessage());
        }
    }

    @Test
    void submissionsAreRefusedWhileTheWorkersBacklogIsOverItsBoundAndAdmittedWhenItDrains() throws Exception {
        AtomicLong waiting = new AtomicLong(5_000);
        AtomicLong taken = new AtomicLong();
        try (Admission admission = new Admission(Duration.ZERO, 1_000, () -> 0, IDLE,
                () -> new Admission.BacklogReading(waiting.get(), taken.addAndGet(200)))) {
            Problem problem = awaitRefusal(admission);
            assertEquals(503, problem.status());
            assertTrue(problem.getMessage().contains("attempt commands wait for a worker"), problem.getMessage());

            waiting.set(10);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (true) {
                try {
                    admission.admitSubmission();
                    break;
                } catch (Problem stillRefused) {
                    assertTrue(System.nanoTime() < deadline, "still refused after the backlog drained");
                    Thread.sleep(100);
                }
            }
        }
    }

    @Test
    void aBacklogThatCannotBeReadShedsNothing() throws Exception {
        try (Admission admission = new Admission(Duration.ZERO, 1, () -> 0, IDLE, () -> {
            throw new IllegalStateException("Kafka does not answer");
        })) {
            // past the sampler's first two readings (once a second): the failures were read, not yet due
            Thread.sleep(1_200);
            admission.admitSubmission();
        }
    }

    private static Problem awaitRefusal(Admission admission) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                admission.admitSubmission();
            } catch (Problem refused) {
                return refused;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("never refused though the backlog is over its bound");
    }

    /** A request that has waited {@code waited} since its head. */
    private static HttpCall call(Duration waited) {
        long head = System.nanoTime() - waited.toNanos();
        return new HttpCall() {
            public String method() {
                return "POST";
            }

            public String rawPath() {
                return "/v1/jobs";
            }

            public String rawQuery() {
                return null;
            }

            public String header(String name) {
                return null;
            }

            public List<String> headers(String name) {
                return List.of();
            }

            public Stream stream(int status, String contentType) {
                throw new UnsupportedOperationException("admission never streams");
            }

            public InputStream body() {
                return InputStream.nullInputStream();
            }

            public void setHeader(String name, String value) {
            }

            public void send(int status, String contentType, byte[] body) {
            }

            public void later() {
            }

            public boolean isLater() {
                return false;
            }

            public long sinceHeadNanos() {
                return System.nanoTime() - head;
            }

            public int status() {
                return 0;
            }
        };
    }
}
