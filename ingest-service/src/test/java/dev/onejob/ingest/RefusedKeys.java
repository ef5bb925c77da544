package dev.onejob.ingest;

import dev.onejob.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A constraint an operator added, as a trigger on this run's own database: PostgreSQL refuses (SQLSTATE 23514) every
 * job whose idempotency key ends in {@code suffix}, though ingest's own checks pass it. For the ITs that show one
 * refused row does not fail its neighbours; each installs it under a name of its own and removes it after.
 */
final class RefusedKeys {
    private RefusedKeys() {
    }

    static void install(String name, String suffix) throws SQLException {
        execute("""
                CREATE OR REPLACE FUNCTION NAME() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.idempotency_key LIKE '%SUFFIX' THEN
                        RAISE EXCEPTION USING ERRCODE = '23514', MESSAGE = 'keys like this one are refused here';
                    END IF;
                    RETURN NEW;
                END $$""".replace("NAME", name).replace("SUFFIX", suffix));
        execute("CREATE TRIGGER " + name + " BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION " + name + "()");
    }

    static void remove(String name) throws SQLException {
        execute("DROP TRIGGER IF EXISTS " + name + " ON jobs");
        execute("DROP FUNCTION IF EXISTS " + name + "()");
    }

    private static void execute(String sql) throws SQLException {
        try (Connection connection = TestDatabase.shared().dataSource().getConnection();
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
