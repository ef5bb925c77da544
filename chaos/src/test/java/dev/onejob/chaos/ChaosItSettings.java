package dev.onejob.chaos;

import java.nio.file.Path;
import java.util.Map;

/**
 * The quick mode's settings for a chaos test: the seed is {@code CHAOS_SEED} when set (to replay a failure), else the
 * test's fixed one, so a red build replays exactly; the run's files go under {@code chaos/target/<dir>/<seed>}.
 */
final class ChaosItSettings {
    private ChaosItSettings() {
    }

    static ChaosSettings quick(Map<String, String> env, long defaultSeed, String dir) {
        long seed = Long.parseLong(env.getOrDefault("CHAOS_SEED", Long.toString(defaultSeed)));
        Path root = Path.of(env.getOrDefault("ONEJOB_ROOT", "..")).toAbsolutePath().normalize();
        return ChaosSettings.quick(seed, root, root.resolve("chaos/target").resolve(dir).resolve(Long.toString(seed)));
    }
}
