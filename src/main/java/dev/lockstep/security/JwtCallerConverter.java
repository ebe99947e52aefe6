package dev.lockstep.security;

import java.util.ArrayList;
import java.util.List;
import org.springframework.core.convert.converter.Converter;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

/**
 * Turns a verified token into the same authorities a configured user has: the {@code roles} claim
 * into {@code ROLE_*}, the {@code groups} claim into {@code GROUP_*}; the user id is
 * {@code preferred_username} (what people type and see), else {@code sub}.
 */
final class JwtCallerConverter implements Converter<Jwt, AbstractAuthenticationToken> {

    static final String ROLES_CLAIM = "roles";
    static final String GROUPS_CLAIM = "groups";
    static final String USERNAME_CLAIM = "preferred_username";

    @Override
    public AbstractAuthenticationToken convert(Jwt jwt) {
        String id = jwt.getClaimAsString(USERNAME_CLAIM);
        if (id == null || id.isBlank()) {
            id = jwt.getSubject();
        }
        if (id == null || id.isBlank()) {
            throw new InvalidBearerTokenException("the token names no user (neither preferred_username nor sub)");
        }
        List<GrantedAuthority> authorities = new ArrayList<>();
        claim(jwt, ROLES_CLAIM).forEach(role -> authorities.add(new SimpleGrantedAuthority(Caller.ROLE_PREFIX + role)));
        claim(jwt, GROUPS_CLAIM).forEach(group -> authorities.add(new SimpleGrantedAuthority(Caller.GROUP_PREFIX + group)));
        return new JwtAuthenticationToken(jwt, authorities, id);
    }

    private static List<String> claim(Jwt jwt, String name) {
        List<String> values = jwt.getClaimAsStringList(name);
        return values == null ? List.of() : values;
    }
}
