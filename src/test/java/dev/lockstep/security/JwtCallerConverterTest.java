package dev.lockstep.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;

class JwtCallerConverterTest {

    private final JwtCallerConverter converter = new JwtCallerConverter();

    @Test
    void rolesAndGroupsClaimsBecomeRoleAndGroupAuthorities() {
        AbstractAuthenticationToken token = converter.convert(jwt()
                .subject("3f2c").claim("preferred_username", "carol")
                .claim("roles", List.of("APPROVER", "AUDITOR")).claim("groups", List.of("legal", "finance"))
                .build());

        assertThat(token.getName()).isEqualTo("carol");
        assertThat(token.getAuthorities()).extracting(GrantedAuthority::getAuthority)
                .containsExactlyInAnyOrder("ROLE_APPROVER", "ROLE_AUDITOR", "GROUP_legal", "GROUP_finance");
    }

    @Test
    void userIdFallsBackToSubjectAndMissingClaimsGiveNoAuthorities() {
        AbstractAuthenticationToken token = converter.convert(jwt().subject("service-account-7").build());

        assertThat(token.getName()).isEqualTo("service-account-7");
        assertThat(token.getAuthorities()).isEmpty();
    }

    @Test
    void tokenNamingNoUserIsRejected() {
        assertThatThrownBy(() -> converter.convert(jwt().claim("roles", List.of("ADMIN")).build()))
                .isInstanceOf(InvalidBearerTokenException.class);
    }

    private static Jwt.Builder jwt() {
        return Jwt.withTokenValue("token").header("alg", "RS256");
    }
}
