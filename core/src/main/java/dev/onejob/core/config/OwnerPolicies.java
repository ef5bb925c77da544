package dev.onejob.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.billing.OwnerLimits;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The owners file ({@code OWNERS_FILE}, default {@code config/owners.yaml}; no file = the defaults below for everyone),
 * validated at startup with errors that name the field:
 * <pre>
 * defaults:                  # for every owner the file does not name
 *   spend_cap_usd: 50.00     # per period; omit for none
 *   period: month            # day | month (UTC)
 *   max_live_attempts: 100   # omit for none
 *   key_retention: 168h      # how long an idempotency key holds its job (default 168h)
 * owners:
 *   alice:
 *     spend_cap_usd: 5.00
 *     period: day
 * </pre>
 * An owner's entry replaces the defaults field by field: what it does not say, the defaults say.
 */
public final class OwnerPolicies {
    /** How long a key holds its job unless the file says otherwise: a week, so a client's retry after a long outage
     * still finds its job. */
    public static final Duration DEFAULT_KEY_RETENTION = Duration.ofDays(7);
    /** No file: nobody is limited, every key is kept {@link #DEFAULT_KEY_RETENTION}. */
    public static final OwnerPolicies NONE = new OwnerPolicies(new Policy(OwnerLimits.NONE, DEFAULT_KEY_RETENTION),
            Map.of());
    private static final List<String> FIELDS = List.of("spend_cap_usd", "period", "max_live_attempts", "key_retention");

    /** One owner's limits and key retention. */
    public record Policy(OwnerLimits limits, Duration keyRetention) {
    }

    private final Policy defaults;
    private final Map<String, Policy> owners;

    private OwnerPolicies(Policy defaults, Map<String, Policy> owners) {
        this.defaults = defaults;
        this.owners = Map.copyOf(owners);
    }

    /** Limits given in code (tests, the benchmark), with the default key retention. */
    public static OwnerPolicies of(OwnerLimits defaults, Map<String, OwnerLimits> owners) {
        Map<String, Policy> policies = new HashMap<>();
        owners.forEach((owner, limits) -> policies.put(owner, new Policy(limits, DEFAULT_KEY_RETENTION)));
        return new OwnerPolicies(new Policy(defaults, DEFAULT_KEY_RETENTION), policies);
    }

    /** Key retentions given in code, without limits. */
    public static OwnerPolicies retaining(Duration defaults, Map<String, Duration> owners) {
        Map<String, Policy> policies = new HashMap<>();
        owners.forEach((owner, retention) -> policies.put(owner, new Policy(OwnerLimits.NONE, retention)));
        return new OwnerPolicies(new Policy(OwnerLimits.NONE, defaults), policies);
    }

    public static OwnerPolicies load(Path file) {
        Optional<JsonNode> sections = ConfigFiles.sections(file, List.of("defaults", "owners"));
        if (sections.isEmpty()) {
            return NONE;
        }
        JsonNode root = sections.get();
        Policy defaults = policy(file, root.get("defaults"), "defaults", NONE.defaults);
        Map<String, Policy> owners = new HashMap<>();
        JsonNode list = root.get("owners");
        if (list != null && !list.isNull()) {
            if (!list.isObject()) {
                throw new ConfigException(file + ": 'owners' must map owner ids to their limits");
            }
            list.fields().forEachRemaining(owner -> owners.put(owner.getKey(),
                    policy(file, owner.getValue(), "owners." + owner.getKey(), defaults)));
        }
        return new OwnerPolicies(defaults, owners);
    }

    /** {@code ownerId}'s limits: its own entry, else the defaults. */
    public OwnerLimits limitsFor(String ownerId) {
        return owners.getOrDefault(ownerId, defaults).limits();
    }

    /** How long {@code ownerId}'s idempotency keys hold their jobs, from each job's creation. */
    public Duration keyRetentionFor(String ownerId) {
        return owners.getOrDefault(ownerId, defaults).keyRetention();
    }

    private static Policy policy(Path file, JsonNode node, String path, Policy base) {
        if (node == null || node.isNull()) {
            return base;
        }
        ConfigFiles.requireMappingOf(file, node, path, FIELDS, "a policy", "");
        OwnerLimits limits = base.limits();
        BigDecimal cap = limits.spendCapUsd();
        if (node.has("spend_cap_usd")) {
            JsonNode value = node.get("spend_cap_usd");
            if (value.isNull()) {
                cap = null;
            } else if (!value.isNumber() || value.decimalValue().signum() < 0) {
                throw new ConfigException(file + ": " + path + ".spend_cap_usd must be US dollars, 0 or more");
            } else {
                cap = value.decimalValue();
            }
        }
        OwnerLimits.Period period = limits.period();
        if (node.has("period")) {
            String text = node.get("period").asText("").toUpperCase(Locale.ROOT);
            try {
                period = OwnerLimits.Period.valueOf(text);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(file + ": " + path + ".period must be day or month");
            }
        }
        Integer live = limits.maxLiveAttempts();
        if (node.has("max_live_attempts")) {
            JsonNode value = node.get("max_live_attempts");
            if (value.isNull()) {
                live = null;
            } else if (!value.isInt() || value.asInt() < 0) {
                throw new ConfigException(file + ": " + path + ".max_live_attempts must be a whole number, 0 or more");
            } else {
                live = value.asInt();
            }
        }
        Duration retention = base.keyRetention();
        if (node.has("key_retention")) {
            retention = ConfigFiles.parseDuration(node.get("key_retention").asText(""))
                    .filter(d -> !d.isZero())
                    .orElseThrow(() -> new ConfigException(file + ": " + path + ".key_retention must be a duration"
                            + " such as 24h or 168h, more than 0"));
        }
        return new Policy(new OwnerLimits(cap, period, live), retention);
    }
}
