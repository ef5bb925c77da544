package dev.onejob.core.certification;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * A row of {@code certifications}: one run of a contract's golden inputs through one provider, with every check's
 * verdict. A run passed exactly when every check passed (the table's CHECK holds the same rule).
 *
 * <p>Produced by a certification run (not yet stored: {@code createdAt} is {@code null}) and by
 * {@link CertificationStore} (stored); consumed by {@link CertificationGate}, the CLI and the HTTP API.
 *
 * @param contractVersion the contract's {@code version()} when it ran: hex SHA-256 of its template and schemas
 * @param report          the run's readable multi-line report
 * @param repetitions     how many times each golden input was sent
 */
public record Certification(UUID id, String provider, String model, String contractId, String contractVersion,
                            boolean passed, List<CertificationCheck> checks, String report, int repetitions,
                            Instant startedAt, Instant finishedAt, Instant createdAt) {

    public Certification {
        Objects.requireNonNull(id, "id");
        checks = List.copyOf(checks);
    }

    /** The names of the checks that failed, in the order they ran. */
    public List<String> failedChecks() {
        return checks.stream().filter(check -> !check.passed()).map(CertificationCheck::name).toList();
    }

    /** {@code contractId@<first 12 hex of the version>}, how reasons and reports name a contract version. */
    public String contractLabel() {
        return label(contractId, contractVersion);
    }

    /** {@code sentiment@0123456789ab}: a contract id with the start of a version. */
    public static String label(String contractId, String contractVersion) {
        return contractId + "@" + contractVersion.substring(0, Math.min(12, contractVersion.length()));
    }
}
