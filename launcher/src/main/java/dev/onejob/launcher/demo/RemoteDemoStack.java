package dev.onejob.launcher.demo;

import dev.onejob.core.config.ProviderConfig;
import dev.onejob.core.config.Providers;
import dev.onejob.launcher.cli.ApiClient;
import dev.onejob.launcher.cli.CliFailure;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * A running {@code ./onejob dev} as the demo's target: its HTTP API (--url), the dev tokens it wrote
 * (--token-file: alice to submit, ops to operate), its simulators' control planes (--sim-primary, --sim-backup) and,
 * when given, its Kafka (--bootstrap-servers) to read race-audit. Checks that each answers before any scenario
 * plays; the primary's soft timeout comes from --primary-soft-timeout, else from the providers file the stack
 * reads ({@code PROVIDERS_FILE}, default config/providers.yaml), else 10 s. Starts nothing, so closing releases
 * nothing.
 */
final class RemoteDemoStack {
    static final Duration DEFAULT_SOFT_TIMEOUT = Duration.ofSeconds(10);

    private RemoteDemoStack() {
    }

    static DemoTarget connect(Map<String, String> env, String url, Path tokenFile, String simPrimary,
                              String simBackup, String bootstrapServers, Duration softTimeout, Narrator narrator) {
        Properties tokens = tokens(tokenFile);
        String owner = required(tokens, "alice", tokenFile);
        String operator = required(tokens, "ops", tokenFile);
        narrator.say("playing against the running stack at " + url + " (tokens from " + tokenFile + ")");
        ApiClient.Response health = new ApiClient(url, owner, Duration.ofSeconds(10)).get("/health");
        if (health.status() != 200) {
            throw CliFailure.unreachable("the stack at " + url + " is not ready: " + health.status() + " "
                    + health.body().path("detail").asText(health.body().toString()));
        }
        new SimulatorControl(DemoContext.PRIMARY, simPrimary).checkReachable();
        new SimulatorControl(DemoContext.BACKUP, simBackup).checkReachable();
        Duration soft = softTimeout != null ? softTimeout : configuredSoftTimeout(env, narrator);
        if (bootstrapServers == null) {
            narrator.say("no --bootstrap-servers: the race-audit record will be shown as the job's attempt records it");
        }
        return new DemoTarget(url, owner, operator, simPrimary, simBackup, bootstrapServers, soft, () -> { });
    }

    private static Properties tokens(Path file) {
        if (!Files.isReadable(file)) {
            throw CliFailure.usage("no token file at " + file.toAbsolutePath() + ": ./onejob dev writes one under"
                    + " its data directory (.onejob/dev-tokens.properties); give it with --token-file");
        }
        Properties tokens = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            tokens.load(in);
        } catch (IOException e) {
            throw CliFailure.usage("cannot read the token file " + file + ": " + e.getMessage());
        }
        return tokens;
    }

    private static String required(Properties tokens, String owner, Path file) {
        String token = tokens.getProperty(owner);
        if (token == null || token.isBlank()) {
            throw CliFailure.usage("the token file " + file + " has no token for '" + owner + "' (the demo submits"
                    + " as alice and resolves as ops, the callers ./onejob dev creates)");
        }
        return token.trim();
    }

    private static Duration configuredSoftTimeout(Map<String, String> env, Narrator narrator) {
        Path file = Path.of(env.getOrDefault("PROVIDERS_FILE", "config/providers.yaml"));
        try {
            Duration soft = Providers.load(file, env).find(DemoContext.PRIMARY).map(ProviderConfig::softTimeout)
                    .orElse(DEFAULT_SOFT_TIMEOUT);
            narrator.say("the primary's soft timeout is " + TimeoutScenario.seconds(soft) + " (from " + file + ")");
            return soft;
        } catch (RuntimeException e) {
            narrator.say("cannot read " + file + " (" + e.getMessage() + "); assuming the primary's soft timeout is "
                    + TimeoutScenario.seconds(DEFAULT_SOFT_TIMEOUT) + " (set it with --primary-soft-timeout)");
            return DEFAULT_SOFT_TIMEOUT;
        }
    }
}
