package dev.lockstep.platform.security;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Who may log in when {@code lockstep.mode=external}: configured users (HTTP Basic), a JWT resource
 * server (bearer tokens), or both. In embedded mode only the demo users exist, and setting any of
 * this stops the startup rather than being silently ignored.
 */
@ConfigurationProperties("lockstep.security")
public record LockstepSecurityProperties(@DefaultValue List<User> users, @DefaultValue Jwt jwt) {

    /**
     * One configured user. {@code password} is an encoded password with its encoder id, e.g.
     * {@code {bcrypt}$2a$10$...}; roles are {@link Roles} names, groups are workflow candidate groups.
     */
    public record User(String name, String password, @DefaultValue List<String> roles, @DefaultValue List<String> groups) {
    }

    /**
     * Where bearer tokens are verified: an OpenID issuer (discovery), a JWK set URL, or a PEM public
     * key. {@code audience} is required and must be among the token's {@code aud} values.
     * {@code userIdClaim} names the claim whose value is the caller's user id (default {@code sub}, the
     * identity provider's stable subject): it must never be a display name a user can change.
     */
    public record Jwt(String issuerUri, String jwkSetUri, String publicKeyLocation, String audience,
            @DefaultValue(JwtCallerConverter.DEFAULT_USER_ID_CLAIM) String userIdClaim) {

        public boolean isConfigured() {
            return isSet(issuerUri) || isSet(jwkSetUri) || isSet(publicKeyLocation);
        }

        static boolean isSet(String value) {
            return value != null && !value.isBlank();
        }
    }

    public boolean hasUsers() {
        return !users.isEmpty();
    }
}
