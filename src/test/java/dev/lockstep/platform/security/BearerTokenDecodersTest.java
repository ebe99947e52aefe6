package dev.lockstep.platform.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;

/** Tokens signed by a key generated here, verified the three ways an operator can configure. */
class BearerTokenDecodersTest {

    private final TestTokenIssuer issuer = new TestTokenIssuer("test-key");
    private final TestTokenIssuer stranger = new TestTokenIssuer("test-key");
    private final TestTokenIssuer.Claims bob = TestTokenIssuer.Claims.of("bob", List.of("APPROVER"), List.of("managers"));

    @TempDir
    Path dir;

    @Test
    void publicKeyFileVerifiesTokensSignedWithItsPrivateKeyOnly() throws Exception {
        Path pem = issuer.writePublicKeyPem(dir.resolve("jwt-public.pem"));
        JwtDecoder decoder = BearerTokenDecoders.from(jwt(null, null, "file:" + pem, "lockstep"));

        assertThat(decoder.decode(issuer.sign(bob)).getClaimAsString("preferred_username")).isEqualTo("bob");
        assertThatThrownBy(() -> decoder.decode(stranger.sign(bob))).isInstanceOf(JwtException.class);
        assertThatThrownBy(() -> decoder.decode(issuer.sign(bob.expiredAt(Instant.now().minusSeconds(3600)))))
                .isInstanceOf(JwtException.class).hasMessageContaining("expired");
    }

    @Test
    void issuerDiscoveryFindsTheKeysAndChecksTheIssuer() throws Exception {
        try (issuer) {
            String issuerUri = issuer.serve();
            JwtDecoder decoder = BearerTokenDecoders.from(jwt(issuerUri, null, null, "lockstep"));

            assertThat(decoder.decode(issuer.sign(bob.withIssuer(issuerUri))).getSubject()).isEqualTo("subject-of-bob");
            assertThatThrownBy(() -> decoder.decode(issuer.sign(bob.withIssuer("https://elsewhere.example"))))
                    .isInstanceOf(JwtException.class).hasMessageContaining("iss");
        }
    }

    @Test
    void unreachableIssuerStopsStartupNamingTheSetting() {
        assertThatThrownBy(() -> BearerTokenDecoders.from(jwt("http://127.0.0.1:1/realms/lockstep", null, null, null)))
                .isInstanceOfSatisfying(StartupCheckFailure.class,
                        failure -> assertThat(failure.setting()).isEqualTo("lockstep.security.jwt.issuer-uri"));
    }

    @Test
    void jwkSetUriIsFetchedLazilySoStartupDoesNotNeedTheIdentityProvider() {
        JwtDecoder decoder = BearerTokenDecoders.from(
                jwt("http://127.0.0.1:1/realms/lockstep", "http://127.0.0.1:1/realms/lockstep/jwks", null, "lockstep"));

        assertThatThrownBy(() -> decoder.decode(issuer.sign(bob))).isInstanceOf(JwtException.class);
    }

    @Test
    void jwkSetUriVerifiesTokensWithThePublishedKeys() throws Exception {
        try (issuer) {
            String issuerUri = issuer.serve();
            JwtDecoder decoder = BearerTokenDecoders.from(jwt(issuerUri, issuerUri + "/jwks", null, "lockstep"));

            assertThat(decoder.decode(issuer.sign(bob.withIssuer(issuerUri))).getSubject()).isEqualTo("subject-of-bob");
            assertThatThrownBy(() -> decoder.decode(stranger.sign(bob.withIssuer(issuerUri)))).isInstanceOf(JwtException.class);
            assertThatThrownBy(() -> decoder.decode(issuer.sign(bob.withIssuer("https://elsewhere.example"))))
                    .isInstanceOf(JwtException.class).hasMessageContaining("iss");
        }
    }

    @Test
    void configuredAudienceMustBeInTheToken() throws Exception {
        Path pem = issuer.writePublicKeyPem(dir.resolve("jwt-public.pem"));
        JwtDecoder decoder = BearerTokenDecoders.from(jwt(null, null, "file:" + pem, "lockstep"));

        assertThat(decoder.decode(issuer.sign(bob.withAudience("lockstep"))).getAudience()).containsExactly("lockstep");
        assertThatThrownBy(() -> decoder.decode(issuer.sign(bob.withAudience("payroll"))))
                .isInstanceOf(JwtException.class).hasMessageContaining("aud");
        assertThatThrownBy(() -> decoder.decode(issuer.sign(bob.withAudience(null))))
                .isInstanceOf(JwtException.class).hasMessageContaining("aud");
    }

    @Test
    void unreadablePublicKeyStopsStartupNamingTheSetting() throws Exception {
        Path notAKey = Files.writeString(dir.resolve("not-a-key.pem"), "hello");

        assertThatThrownBy(() -> BearerTokenDecoders.from(jwt(null, null, "file:" + notAKey, null)))
                .isInstanceOfSatisfying(StartupCheckFailure.class,
                        failure -> assertThat(failure.setting()).isEqualTo("lockstep.security.jwt.public-key-location"));
        assertThatThrownBy(() -> BearerTokenDecoders.from(jwt(null, null, "file:" + dir.resolve("missing.pem"), null)))
                .isInstanceOfSatisfying(StartupCheckFailure.class,
                        failure -> assertThat(failure.setting()).isEqualTo("lockstep.security.jwt.public-key-location"));
    }

    @Test
    void jwkSetUriAndPublicKeyTogetherAreRefused() throws Exception {
        Path pem = issuer.writePublicKeyPem(dir.resolve("jwt-public.pem"));

        assertThatThrownBy(() -> BearerTokenDecoders.from(jwt(null, "http://127.0.0.1:1/jwks", "file:" + pem, null)))
                .isInstanceOfSatisfying(StartupCheckFailure.class, failure -> assertThat(failure.getMessage())
                        .contains("lockstep.security.jwt.public-key-location", "lockstep.security.jwt.jwk-set-uri"));
    }

    @Test
    void withoutAnAudienceTheStartupStopsNamingTheSetting() throws Exception {
        Path pem = issuer.writePublicKeyPem(dir.resolve("jwt-public.pem"));

        assertThatThrownBy(() -> BearerTokenDecoders.from(jwt(null, null, "file:" + pem, null)))
                .isInstanceOfSatisfying(StartupCheckFailure.class,
                        failure -> assertThat(failure.setting()).isEqualTo("lockstep.security.jwt.audience"));
        assertThatThrownBy(() -> BearerTokenDecoders.from(jwt(null, null, "file:" + pem, " ")))
                .isInstanceOfSatisfying(StartupCheckFailure.class,
                        failure -> assertThat(failure.setting()).isEqualTo("lockstep.security.jwt.audience"));
    }

    @Test
    void aDisplayNameAsUserIdClaimStopsTheStartupNamingTheSetting() throws Exception {
        Path pem = issuer.writePublicKeyPem(dir.resolve("jwt-public.pem"));

        assertThatThrownBy(() -> BearerTokenDecoders.from(new LockstepSecurityProperties.Jwt(null, null, "file:" + pem,
                "lockstep", "preferred_username")))
                .isInstanceOfSatisfying(StartupCheckFailure.class,
                        failure -> assertThat(failure.setting()).isEqualTo("lockstep.security.jwt.user-id-claim"));
    }

    private static LockstepSecurityProperties.Jwt jwt(String issuerUri, String jwkSetUri, String publicKey, String audience) {
        return new LockstepSecurityProperties.Jwt(issuerUri, jwkSetUri, publicKey, audience, "sub");
    }
}
