package dev.onejob.worker;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The real database with a hook after every COMMIT, for faults at the JDBC boundary: the real commit has run when
 * the hook runs, and whatever the hook throws is what the caller hears (a lost connection, say), and however long it
 * blocks is how long the caller waits.
 */
record HookedDataSource(DataSource real, AfterCommit afterCommit) implements DataSource {
    /** Runs after each successful COMMIT, on the committing thread. */
    @FunctionalInterface
    interface AfterCommit {
        void run() throws SQLException;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(real.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return wrap(real.getConnection(user, password));
    }

    private Connection wrap(Connection connection) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    Object answer;
                    try {
                        answer = method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("commit")) {
                        afterCommit.run();
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
}
