package dev.onejob.core.events;

import java.util.Locale;
import java.util.Optional;

/**
 * An enum whose constants are named outside the code (a column, an event's field, a config file, a report) by one
 * rule: the constant's name in lower case with hyphens for underscores, {@code LOST_CAS} as {@code lost-cas}. The
 * rule lives here once, so no enum keeps a second spelling of each constant in step with the first.
 */
public interface WireName {
    /** The constant's name in the code; every enum has it. */
    String name();

    /** The constant's name outside the code, e.g. {@code lost-cas}. */
    default String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The constant of {@code type} with this wire name; empty when there is none. */
    static <E extends Enum<E> & WireName> Optional<E> find(Class<E> type, String wireName) {
        for (E constant : type.getEnumConstants()) {
            if (constant.wireName().equals(wireName)) {
                return Optional.of(constant);
            }
        }
        return Optional.empty();
    }
}
