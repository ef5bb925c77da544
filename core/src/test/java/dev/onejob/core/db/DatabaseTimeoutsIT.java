package dev.onejob.core.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.onejob.testing.TestDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every wait on the database is bounded: a statement, a row lock, and a server that stops answering. */
class DatabaseTimeoutsIT {
    private static final DatabaseConfig.Timeouts SHORT = new DatabaseConfig.Timeouts(Duration.ofSeconds(1),
            Duration.ofSeconds(1), Duration.ofMillis(300), Duration.ofMillis(300));

    /** The lock timeout below the statement timeout, so the lock wait is what ends first. */
    private static final DatabaseConfig.Timeouts SHORT_LOCK = new DatabaseConfig.Timeouts(Duration.ofSeconds(1),
            Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofMillis(200));

    private static DatabaseConfig config(String jdbcUrl) {
        return config(jdbcUrl, SHORT);
    }

    private static DatabaseConfig config(String jdbcUrl, DatabaseConfig.Timeouts timeouts) {
        TestDatabase db = TestDatabase.shared();
        return new DatabaseConfig(jdbcUrl, db.user(), System.getenv("DATABASE_PASSWORD"), 2, timeouts);
    }

    @Test
    void aStatementThatRunsTooLongIsCancelledByTheServer() {
        try (Database database = Database.connect(config(TestDatabase.shared().jdbcUrl()), "timeouts-statement")) {
            DatabaseException e = assertThrows(DatabaseException.class, () -> database.inTransaction(c -> {
                try (Statement statement = c.createStatement()) {
                    return statement.execute("SELECT pg_sleep(30)");
                }
            }));

            assertEquals("57014", e.sqlState(), "query_canceled by statement_timeout");
        }
    }

    @Test
    void aRowLockHeldElsewhereIsWaitedForOnlyUpToTheLockTimeout() throws Exception {
        try (Connection holder = TestDatabase.shared().dataSource().getConnection();
             Database database = Database.connect(config(TestDatabase.shared().jdbcUrl(), SHORT_LOCK),
                     "timeouts-lock")) {
            try (Statement statement = holder.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS timeout_probe (id int PRIMARY KEY)");
                statement.execute("INSERT INTO timeout_probe VALUES (1) ON CONFLICT DO NOTHING");
            }
            holder.setAutoCommit(false);
            try (Statement statement = holder.createStatement()) {
                statement.execute("SELECT id FROM timeout_probe WHERE id = 1 FOR UPDATE");
            }

            DatabaseException e = assertThrows(DatabaseException.class, () -> database.inTransaction(c -> {
                try (Statement statement = c.createStatement()) {
                    return statement.executeUpdate("UPDATE timeout_probe SET id = 1 WHERE id = 1");
                }
            }));

            assertEquals("55P03", e.sqlState(), "lock_not_available by lock_timeout");
            holder.rollback();
        }
    }

    @Test
    void aServerThatAcceptsButNeverAnswersFailsTheConnectionOnTheSocketTimeout() throws Exception {
        // given a "server" that accepts connections and then says nothing, like a frozen host behind a live socket
        List<Socket> accepted = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            String url = "jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/nothing";

            // when the pool needs a connection
            try (Database database = Database.connect(config(url), "timeouts-socket")) {
                DatabaseException e = assertThrows(DatabaseException.class,
                        () -> database.inTransaction(c -> c.isValid(1)));

                // then the driver gave up on the silent socket (without a socket timeout it waits for ever)
                assertTrue(hasCause(e, SocketTimeoutException.class), e.toString());
            }
        } finally {
            for (Socket socket : accepted) {
                socket.close();
            }
        }
    }

    private static boolean hasCause(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
