package dev.lockstep.platform.security;

import dev.lockstep.platform.AreaApi;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The authenticated user behind a request, as the use cases see it: an id, its roles
 * ({@code ROLE_*} authorities without the prefix) and its workflow candidate groups
 * ({@code GROUP_*} authorities without the prefix, e.g. managers, legal, finance, directors).
 */
@AreaApi
public record Caller(String id, Set<String> roles, Set<String> groups) {

    public static final String ROLE_PREFIX = "ROLE_";
    public static final String GROUP_PREFIX = "GROUP_";

    public static Caller current() {
        return ifAuthenticated().orElseThrow(() -> new IllegalStateException("no authenticated caller"));
    }

    /** The caller on this thread, if one has authenticated: for code that also runs outside a user's request. */
    public static Optional<Caller> ifAuthenticated() {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (authentication == null || !authentication.isAuthenticated()) {
            return Optional.empty();
        }
        return Optional.of(new Caller(authentication.getName(),
                withPrefix(authentication, ROLE_PREFIX),
                withPrefix(authentication, GROUP_PREFIX)));
    }

    public boolean hasRole(String role) {
        return roles.contains(role);
    }

    private static Set<String> withPrefix(Authentication authentication, String prefix) {
        return authentication.getAuthorities().stream()
                .map(GrantedAuthority::getAuthority)
                .filter(authority -> authority.startsWith(prefix))
                .map(authority -> authority.substring(prefix.length()))
                .collect(Collectors.toUnmodifiableSet());
    }
}
