package dev.onejob.core.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DatabaseConfigTest {

    @Test
    void defaultsPointAtTheLocalServer() {
        DatabaseConfig config = DatabaseConfig.fromEnv(Map.of());
        assertEquals("jdbc:postgresql://127.0.0.1:5432/onejob", config.jdbcUrl());
        assertEquals("postgres", config.user());
        assertEquals("onejob", config.databaseName());
    }

    @Test
    void postgresUrlsBecomeJdbcUrlsWithTheirCredentials() {
        DatabaseConfig config = DatabaseConfig.fromEnv(Map.of("DATABASE_URL", "postgres://app:s%40cret@db:6543/jobs?sslmode=require"));
        assertEquals("jdbc:postgresql://db:6543/jobs?sslmode=require", config.jdbcUrl());
        assertEquals("app", config.user());
        assertEquals("s@cret", config.password());
        assertEquals("jdbc:postgresql://db:6543/postgres?sslmode=require", config.withDatabase("postgres").jdbcUrl());
    }

    @Test
    void thePasswordNeverAppearsInToString() {
        DatabaseConfig config = DatabaseConfig.fromEnv(Map.of("DATABASE_URL", "postgres://app:hunter2@db/jobs"));
        assertFalse(config.toString().contains("hunter2"));
    }

    @Test
    void aBadSettingNamesTheKey() {
        var error = assertThrows(IllegalArgumentException.class,
                () -> DatabaseConfig.fromEnv(Map.of("DATABASE_POOL_SIZE", "many")));
        assertTrue(error.getMessage().contains("DATABASE_POOL_SIZE"));
        var badUrl = assertThrows(IllegalArgumentException.class,
                () -> DatabaseConfig.fromEnv(Map.of("DATABASE_URL", "mysql://x/y")));
        assertTrue(badUrl.getMessage().contains("DATABASE_URL"));
    }
}
