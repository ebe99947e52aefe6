package dev.lockstep.platform.security;

import dev.lockstep.platform.AreaApi;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/** The candidate groups the demo users belong to: what an embedded demo knows as groups when nothing else is configured. */
@AreaApi
public final class DemoGroups {

    private DemoGroups() {
    }

    public static Set<String> all() {
        return new TreeSet<>(DemoUsers.USERS.stream().map(DemoUsers.DemoUser::group).filter(Objects::nonNull).toList());
    }
}
