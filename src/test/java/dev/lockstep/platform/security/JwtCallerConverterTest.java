package dev.lockstep.platform.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;

class JwtCallerConverterTest {

    private final JwtCallerConverter converter = new JwtCallerConverter("sub", Set.of("ops"));

    @Test
    void theUserIdIsTheStableSubjectNeverTheDisplayName() {
        AbstractAuthenticationToken token = converter.convert(jwt()
                .subject("3f2c").claim("preferred_username", "carol")
                .claim("roles", List.of("APPROVER", "AUDITOR")).claim("groups", List.of("legal", "finance"))
                .build());

        assertThat(token.getName()).isEqualTo("3f2c");
        assertThat(token.getAuthorities()).extracting(GrantedAuthority::getAuthority)
                .containsExactlyInAnyOrder("ROLE_APPROVER", "ROLE_AUDITOR", "GROUP_legal", "GROUP_finance");
    }

    @Test
    void aConfiguredClaimNamesTheUserIdAndMissingClaimsGiveNoAuthorities() {
        JwtCallerConverter byObjectId = new JwtCallerConverter("oid", Set.of());

        AbstractAuthenticationToken token = byObjectId.convert(jwt().subject("pairwise-1").claim("oid", "9b1d-77").build());

        assertThat(token.getName()).isEqualTo("9b1d-77");
        assertThat(token.getAuthorities()).isEmpty();
        assertThatThrownBy(() -> byObjectId.convert(jwt().subject("pairwise-1").build()))
                .isInstanceOf(InvalidBearerTokenException.class).hasMessageContaining("oid");
    }

    @Test
    void aDisplayNameClaimOrNoClaimIsRefusedAtStartupNamingTheSetting() {
        for (String claim : List.of("preferred_username", "email", "name", " ")) {
            assertThatThrownBy(() -> new JwtCallerConverter(claim, Set.of()))
                    .isInstanceOfSatisfying(StartupCheckFailure.class,
                            failure -> assertThat(failure.setting()).isEqualTo("lockstep.security.jwt.user-id-claim"));
        }
    }

    @Test
    void aTokenWhoseSubjectIsAConfiguredBasicUserIsRefused() {
        assertThatThrownBy(() -> converter.convert(jwt().subject("ops").claim("roles", List.of("ADMIN")).build()))
                .isInstanceOf(InvalidBearerTokenException.class).hasMessageContaining("HTTP Basic");
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
