package dev.onejob.ingest;

import java.util.Set;

/** Who is calling: the owner every job they touch belongs to, and what they may do. */
public record Principal(String ownerId, Set<String> roles) {
    public static final String SUBMIT = "submit";
    public static final String OPERATE = "operate";

    public boolean may(String role) {
        return roles.contains(role);
    }
}
