package dev.onejob.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.onejob.core.db.Database;
import dev.onejob.core.events.AttemptCompletion;
import dev.onejob.core.kafka.KafkaConfig;
import dev.onejob.core.ledger.Attempt;
import dev.onejob.core.ledger.LedgerStore;
import dev.onejob.testing.TestDatabase;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The phantom UNKNOWN: PostgreSQL commits the worker's PENDING -> STARTING, and the connection breaks before the
 * worker hears so. The fault is injected at the JDBC boundary of the real database: the real COMMIT runs, then the
 * worker is told the connection was lost (SQLState 08006), exactly what a broken socket during COMMIT looks like.
 */
class LostStartAcknowledgementIT {
    private final WorkerFixture fixture = new WorkerFixture();

    @AfterEach
    void stop() throws InterruptedException {
        fixture.close();
    }

    @Test
    void aStartWhoseCommitSucceededButWhoseAnswerWasLostIsRecognisedAndCalledOnce() {
        // given a worker whose next COMMIT succeeds but reports a lost connection
        AtomicBoolean armed = new AtomicBoolean(true);
        LedgerStore faulty = new LedgerStore(Database.wrap(losingTheAnswerToCommit(TestDatabase.shared().dataSource(),
                armed)));
        fixture.startWorker(fixture.providers(Duration.ofSeconds(5), Duration.ofSeconds(10)),
                new KafkaConfig(fixture.bootstrap), faulty);
        Attempt attempt = fixture.submit(1, "I loved it").get(0);

        // when its command arrives
        fixture.relay(1);

        // then, after reading the poll again, the worker knows the start as its own and makes the one call
        List<AttemptCompletion> completions = fixture.completions(List.of(attempt), 1, Duration.ofSeconds(30));
        assertFalse(armed.get(), "the fault was injected");
        assertEquals(1, completions.size(), completions.toString());
        assertEquals(AttemptCompletion.Outcome.SUCCEEDED, completions.get(0).outcome());
        assertEquals(1, fixture.primary.requestsWithIdempotencyKey(attempt.id().toString()));
    }

    /** Connections whose first COMMIT while {@code armed} commits, then throws as if the socket broke. */
    private static DataSource losingTheAnswerToCommit(DataSource real, AtomicBoolean armed) {
        return new DataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                return wrap(real.getConnection());
            }

            @Override
            public Connection getConnection(String user, String password) throws SQLException {
                return wrap(real.getConnection(user, password));
            }

            private Connection wrap(Connection connection) {
                return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                            Object answer;
                            try {
                                answer = method.invoke(connection, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                            if (method.getName().equals("commit") && armed.compareAndSet(true, false)) {
                                throw new SQLException("An I/O error occurred while sending to the backend.",
                                        "08006");
                            }
                            return answer;
                        });
            }

            @Override
            public PrintWriter getLogWriter() throws SQLException {
                return real.getLogWriter();
            }

            @Override
            public void setLogWriter(PrintWriter out) throws SQLException {
                real.setLogWriter(out);
            }

            @Override
            public void setLoginTimeout(int seconds) throws SQLException {
                real.setLoginTimeout(seconds);
            }

            @Override
            public int getLoginTimeout() throws SQLException {
                return real.getLoginTimeout();
            }

            @Override
            public Logger getParentLogger() throws SQLFeatureNotSupportedException {
                return real.getParentLogger();
            }

            @Override
            public <T> T unwrap(Class<T> type) throws SQLException {
                return real.unwrap(type);
            }

            @Override
            public boolean isWrapperFor(Class<?> type) throws SQLException {
                return real.isWrapperFor(type);
            }
        };
    }
}
