package dev.onejob.chaos;

import dev.onejob.infra.RunFiles;
import java.nio.file.Path;
import java.util.List;

/**
 * Who a chaos run's tokens are for and how its providers are set: six submitting owners and one operator, primary
 * on the OpenAI wire and backup on the Anthropic wire, both simulators, with the run's soft and hard timeouts.
 * The files themselves are written by the shared kit ({@link RunFiles}).
 */
final class ChaosFiles {
    static final List<String> OWNERS = List.of("chaos-a", "chaos-b", "chaos-c", "chaos-d", "chaos-e", "chaos-f");
    static final String OPERATOR = "chaos-ops";
    static final String API_KEY = "sk-onejob-chaos";

    private ChaosFiles() {
    }

    static RunFiles write(Path dir, Path root) {
        RunFiles.Timeouts timeouts = new RunFiles.Timeouts(ChaosSettings.SOFT_TIMEOUT, ChaosSettings.HARD_TIMEOUT);
        return RunFiles.write(dir, root, "chaos", OWNERS, OPERATOR, timeouts, timeouts, false);
    }
}
