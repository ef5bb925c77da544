package dev.onejob.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Writes a certification row straight into the run's database, for tests that need a provider certified (or
 * failed, or old) without running the checks. Passed runs get one passing check, failed runs one failing check, as
 * the table's constraint requires.
 */
public final class Certifications {
    private static final String INSERT = """
            INSERT INTO certifications (id, provider, model, contract_id, contract_version, passed, checks, report,
                                        repetitions, started_at, finished_at)
            VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?, 1, ?, ?)""";

    private Certifications() {
    }

    public static void record(DataSource dataSource, String provider, String model, String contractId,
                              String contractVersion, boolean passed, Instant finishedAt) {
        String checks = "[{\"name\":\"structure\",\"passed\":" + passed + ",\"evidence\":{\"summary\":\"written by a "
                + "test fixture\"}}]";
        try (Connection connection = dataSource.getConnection();
             PreparedStatement insert = connection.prepareStatement(INSERT)) {
            insert.setObject(1, UUID.randomUUID());
            insert.setString(2, provider);
            insert.setString(3, model);
            insert.setString(4, contractId);
            insert.setString(5, contractVersion);
            insert.setBoolean(6, passed);
            insert.setString(7, checks);
            insert.setString(8, "test fixture");
            insert.setTimestamp(9, Timestamp.from(finishedAt.minusSeconds(1)));
            insert.setTimestamp(10, Timestamp.from(finishedAt));
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot record a test certification: " + e.getMessage(), e);
        }
    }
}
