package dev.onejob.core.billing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.onejob.core.config.ConfigException;
import dev.onejob.core.config.ConfigFiles;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The budgets file ({@code BUDGETS_FILE}, default {@code config/budgets.yaml}; no file = no limits), validated at
 * startup with errors that name the field:
 * <pre>
 * defaults:                  # for every owner the file does not name
 *   spend_cap_usd: 50.00     # per period; omit for none
 *   period: month            # day | month (UTC)
 *   max_live_attempts: 100   # omit for none
 * owners:
 *   alice:
 *     spend_cap_usd: 5.00
 *     period: day
 * </pre>
 * An owner's entry replaces the defaults field by field: what it does not say, the defaults say.
 */
public final class Budgets {
    /** No file: nobody is limited. */
    public static final Budgets NONE = new Budgets(OwnerLimits.NONE, Map.of());
    private static final Set<String> FIELDS = Set.of("spend_cap_usd", "period", "max_live_attempts");

    private final OwnerLimits defaults;
    private final Map<String, OwnerLimits> owners;

    private Budgets(OwnerLimits defaults, Map<String, OwnerLimits> owners) {
        this.defaults = defaults;
        this.owners = Map.copyOf(owners);
    }

    /** One set of limits for everyone (tests and the benchmark). */
    public static Budgets of(OwnerLimits defaults, Map<String, OwnerLimits> owners) {
        return new Budgets(defaults, owners);
    }

    public static Budgets load(Path file) {
        if (!Files.exists(file)) {
            return NONE;
        }
        JsonNode root = ConfigFiles.read(file);
        if (root == null || root.isNull()) {
            return NONE;
        }
        if (!root.isObject()) {
            throw new ConfigException(file + ": expected a mapping with 'defaults' and 'owners'");
        }
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals("defaults") && !name.equals("owners")) {
                throw new ConfigException(file + ": '" + name + "' is not a section; expected defaults or owners");
            }
        }
        OwnerLimits defaults = limits(file, root.get("defaults"), "defaults", OwnerLimits.NONE);
        Map<String, OwnerLimits> owners = new HashMap<>();
        JsonNode list = root.get("owners");
        if (list != null && !list.isNull()) {
            if (!list.isObject()) {
                throw new ConfigException(file + ": 'owners' must map owner ids to their limits");
            }
            list.fields().forEachRemaining(owner -> owners.put(owner.getKey(),
                    limits(file, owner.getValue(), "owners." + owner.getKey(), defaults)));
        }
        return new Budgets(defaults, owners);
    }

    /** {@code ownerId}'s limits: its own entry, else the defaults. */
    public OwnerLimits limitsFor(String ownerId) {
        return owners.getOrDefault(ownerId, defaults);
    }

    private static OwnerLimits limits(Path file, JsonNode node, String path, OwnerLimits base) {
        if (node == null || node.isNull()) {
            return base;
        }
        if (!node.isObject()) {
            throw new ConfigException(file + ": " + path + " must be a mapping with spend_cap_usd, period and"
                    + " max_live_attempts");
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new ConfigException(file + ": " + path + "." + name + " is not a limit; expected spend_cap_usd,"
                        + " period or max_live_attempts");
            }
        }
        BigDecimal cap = base.spendCapUsd();
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
        OwnerLimits.Period period = base.period();
        if (node.has("period")) {
            String text = node.get("period").asText("").toUpperCase(Locale.ROOT);
            try {
                period = OwnerLimits.Period.valueOf(text);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(file + ": " + path + ".period must be day or month");
            }
        }
        Integer live = base.maxLiveAttempts();
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
        return new OwnerLimits(cap, period, live);
    }
}
