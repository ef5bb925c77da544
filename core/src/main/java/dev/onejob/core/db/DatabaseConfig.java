package dev.onejob.core.db;

import dev.onejob.core.config.Env;
import dev.onejob.core.config.Settings;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Where the ledger lives. {@code DATABASE_URL} accepts a JDBC URL ({@code jdbc:postgresql://host:port/db}) or the
 * common {@code postgres://user:password@host:port/db} form; {@code DATABASE_USER}, {@code DATABASE_PASSWORD} and
 * {@code DATABASE_POOL_SIZE} refine it. Defaults work on a fresh machine with a local PostgreSQL.
 *
 * <p>{@link Timeouts} bound every wait on the database, so a server that vanishes without a TCP reset (a failover,
 * a frozen host) costs a thread seconds, not the minutes of TCP keepalive: connecting, each read from the socket,
 * each statement, and each wait for a row lock.
 */
public record DatabaseConfig(String jdbcUrl, String user, String password, int poolSize, Timeouts timeouts) {
    /**
     * {@code DATABASE_CONNECT_TIMEOUT} (default 5s), {@code DATABASE_SOCKET_TIMEOUT} (30s: no answer to a read for
     * that long and the connection is dropped), {@code DATABASE_STATEMENT_TIMEOUT} (15s), {@code DATABASE_LOCK_TIMEOUT}
     * (5s). Migrations run without the statement timeout.
     */
    public record Timeouts(Duration connect, Duration socket, Duration statement, Duration lock) {
        public static final Timeouts DEFAULT = new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(30),
                Duration.ofSeconds(15), Duration.ofSeconds(5));

        static Timeouts fromEnv(Settings settings) {
            return new Timeouts(
                    settings.duration(Env.DATABASE_CONNECT_TIMEOUT, DEFAULT.connect, Duration.ofSeconds(1),
                            Duration.ofMinutes(10)),
                    settings.duration(Env.DATABASE_SOCKET_TIMEOUT, DEFAULT.socket, Duration.ofSeconds(1),
                            Duration.ofHours(1)),
                    settings.duration(Env.DATABASE_STATEMENT_TIMEOUT, DEFAULT.statement, Duration.ofMillis(1),
                            Duration.ofHours(1)),
                    settings.duration(Env.DATABASE_LOCK_TIMEOUT, DEFAULT.lock, Duration.ofMillis(1),
                            Duration.ofHours(1)));
        }
    }

    /** With the default timeouts. */
    public DatabaseConfig(String jdbcUrl, String user, String password, int poolSize) {
        this(jdbcUrl, user, password, poolSize, Timeouts.DEFAULT);
    }

    public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/onejob";
    public static final String DEFAULT_USER = "postgres";

    public DatabaseConfig {
        if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException("DATABASE_URL must be jdbc:postgresql://... or postgres://..., got "
                    + redact(jdbcUrl));
        }
        Objects.requireNonNull(timeouts, "timeouts");
        if (poolSize < 1) {
            throw new IllegalArgumentException("DATABASE_POOL_SIZE must be at least 1, got " + poolSize);
        }
    }

    public static DatabaseConfig fromEnv(Map<String, String> env) {
        Settings settings = Settings.of(env);
        String url = settings.text(Env.DATABASE_URL, DEFAULT_URL);
        String user = settings.raw(Env.DATABASE_USER).orElse(null);
        String password = env.get(Env.DATABASE_PASSWORD);
        if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
            URI uri = URI.create(url);
            String userInfo = uri.getRawUserInfo();
            if (userInfo != null && user == null) {
                String[] parts = userInfo.split(":", 2);
                user = decode(parts[0]);
                password = parts.length > 1 ? decode(parts[1]) : password;
            }
            int port = uri.getPort() == -1 ? 5432 : uri.getPort();
            String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
            url = "jdbc:postgresql://" + uri.getHost() + ":" + port + uri.getRawPath() + query;
        }
        int poolSize = settings.integer(Env.DATABASE_POOL_SIZE, 10, 1, 1000);
        return new DatabaseConfig(url, user == null ? DEFAULT_USER : user, password, poolSize,
                Timeouts.fromEnv(settings));
    }

    /** The same server, another database (used to create the application's database when it is missing). */
    public DatabaseConfig withDatabase(String database) {
        int slash = jdbcUrl.indexOf('/', "jdbc:postgresql://".length());
        int query = jdbcUrl.indexOf('?');
        String base = slash < 0 ? jdbcUrl : jdbcUrl.substring(0, slash);
        String params = query < 0 ? "" : jdbcUrl.substring(query);
        return new DatabaseConfig(base + "/" + database + params, user, password, poolSize, timeouts);
    }

    public String databaseName() {
        int slash = jdbcUrl.indexOf('/', "jdbc:postgresql://".length());
        int query = jdbcUrl.indexOf('?');
        return jdbcUrl.substring(slash + 1, query < 0 ? jdbcUrl.length() : query);
    }

    @Override
    public String toString() {
        return "DatabaseConfig[jdbcUrl=" + redact(jdbcUrl) + ", user=" + user + ", poolSize=" + poolSize + "]";
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***").replaceAll("//([^:/@]+):[^@]*@", "//$1:***@");
    }
}
