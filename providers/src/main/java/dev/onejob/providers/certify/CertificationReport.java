package dev.onejob.providers.certify;

import dev.onejob.core.certification.Certification;
import dev.onejob.core.certification.CertificationCheck;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The outcome of certifying one provider for one contract: every check with its verdict and evidence, and timings.
 *
 * <p>Produced by {@link Certifier}; consumed by {@link CertificationRunner} (which stores {@link #toCertification()}),
 * the CLI and the HTTP API ({@link #toText()}, or the record's fields). Owns nothing: an immutable value. The run
 * passed exactly when every check passed.
 *
 * @param id the run's id, also the id of its {@code certifications} row
 */
public record CertificationReport(UUID id, String provider, String model, String contractId, String contractVersion,
                                  int repetitions, int goldenInputs, List<CertificationCheck> checks,
                                  Instant startedAt, Instant finishedAt) {

    public CertificationReport {
        Objects.requireNonNull(id, "id");
        checks = List.copyOf(checks);
        if (checks.isEmpty()) {
            throw new IllegalArgumentException("a certification report needs at least one check");
        }
    }

    /** True exactly when every check passed. */
    public boolean passed() {
        return checks.stream().allMatch(CertificationCheck::passed);
    }

    public Duration duration() {
        return Duration.between(startedAt, finishedAt);
    }

    /** The check named {@code name}, e.g. {@code structure}. */
    public Optional<CertificationCheck> check(String name) {
        return checks.stream().filter(check -> check.name().equals(name)).findFirst();
    }

    /** {@code sentiment@0123456789ab}. */
    public String contractLabel() {
        return Certification.label(contractId, contractVersion);
    }

    /**
     * A readable report: a headline with the verdict, a line of timings, then one line per check
     * ({@code PASS}/{@code FAIL}, its name and its evidence's one-line summary).
     */
    public String toText() {
        StringBuilder text = new StringBuilder();
        text.append("certification of ").append(provider).append(" (model ").append(model).append(") for ")
                .append(contractLabel()).append(": ").append(passed() ? "PASSED" : "FAILED").append('\n');
        text.append("  run ").append(id).append(", started ").append(startedAt).append(", took ")
                .append(String.format(Locale.ROOT, "%.1f s", duration().toMillis() / 1000.0)).append(", ")
                .append(goldenInputs).append(" golden input(s) x ").append(repetitions).append(" repetition(s)\n");
        int width = checks.stream().mapToInt(check -> check.name().length()).max().orElse(0);
        for (CertificationCheck check : checks) {
            text.append("  ").append(check.passed() ? "PASS " : "FAIL ")
                    .append(String.format(Locale.ROOT, "%-" + width + "s", check.name())).append("  ")
                    .append(check.summary()).append('\n');
        }
        return text.toString();
    }

    /** The run as a {@code certifications} row, not yet stored. */
    public Certification toCertification() {
        return new Certification(id, provider, model, contractId, contractVersion, passed(), checks, toText(),
                repetitions, startedAt, finishedAt, null);
    }
}
