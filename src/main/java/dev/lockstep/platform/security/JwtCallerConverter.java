package dev.lockstep.platform.security;

import dev.lockstep.platform.StartupCheckFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.core.convert.converter.Converter;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

/**
 * Turns a verified token into the same authorities a configured user has: the {@code roles} claim
 * into {@code ROLE_*}, the {@code groups} claim into {@code GROUP_*}. The user id is the token's
 * stable subject ({@code sub}, or the claim {@code lockstep.security.jwt.user-id-claim} names), never
 * a display name such as {@code preferred_username} that a user or an admin can change: the id is
 * what applicants, signers, transfer targets and every stored row refer to.
 * <p>
 * A token whose id equals a configured HTTP Basic user's name is refused: the two would otherwise
 * become one caller, and the Basic account (an operator's) would share its applications, tasks and
 * separation-of-duties history with whoever the identity provider gave that subject.
 */
final class JwtCallerConverter implements Converter<Jwt, AbstractAuthenticationToken> {

    static final String ROLES_CLAIM = "roles";
    static final String GROUPS_CLAIM = "groups";
    static final String DEFAULT_USER_ID_CLAIM = "sub";
    static final String USER_ID_CLAIM_SETTING = "lockstep.security.jwt.user-id-claim";

    /** Standard OpenID Connect claims that hold names people see and can change, not identifiers. */
    static final Set<String> DISPLAY_CLAIMS = Set.of("preferred_username", "name", "nickname", "given_name", "family_name",
            "middle_name", "email", "phone_number", "upn", "unique_name");

    private final String userIdClaim;
    private final Set<String> basicUserNames;

    JwtCallerConverter(String userIdClaim, Set<String> basicUserNames) {
        this.userIdClaim = checkUserIdClaim(userIdClaim);
        this.basicUserNames = Set.copyOf(basicUserNames);
    }

    /** At startup: a missing or display-name claim would make the user id mutable. */
    static String checkUserIdClaim(String claim) {
        if (claim == null || claim.isBlank()) {
            throw new StartupCheckFailure(USER_ID_CLAIM_SETTING, "is empty.",
                    "leave it unset to use sub, the identity provider's stable subject, or name another immutable id claim.");
        }
        if (DISPLAY_CLAIMS.contains(claim)) {
            throw new StartupCheckFailure(USER_ID_CLAIM_SETTING, "names '" + claim + "', a display claim a user or an"
                    + " administrator can change; a renamed user would lose her tasks and applications, and a new user"
                    + " given the old name would inherit them.",
                    "leave it unset to use sub, or name an immutable id claim your identity provider issues (e.g. oid).");
        }
        return claim;
    }

    @Override
    public AbstractAuthenticationToken convert(Jwt jwt) {
        String id = jwt.getClaimAsString(userIdClaim);
        if (id == null || id.isBlank()) {
            throw new InvalidBearerTokenException("the token names no user (no " + userIdClaim + " claim)");
        }
        if (basicUserNames.contains(id)) {
            throw new InvalidBearerTokenException("the token's user id '" + id + "' is the name of a configured HTTP Basic"
                    + " user; one id cannot belong to both");
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
