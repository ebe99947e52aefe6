package dev.lockstep.platform.security;

import dev.lockstep.platform.StartupCheckFailure;
import java.io.IOException;
import java.io.InputStream;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.List;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.Resource;
import org.springframework.security.converter.RsaKeyConverters;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimNames;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/** Builds the bearer-token decoder from {@code lockstep.security.jwt.*}. */
final class BearerTokenDecoders {

    private BearerTokenDecoders() {
    }

    static JwtDecoder from(LockstepSecurityProperties.Jwt jwt) {
        boolean jwkSet = LockstepSecurityProperties.Jwt.isSet(jwt.jwkSetUri());
        boolean publicKey = LockstepSecurityProperties.Jwt.isSet(jwt.publicKeyLocation());
        if (jwkSet && publicKey) {
            throw new StartupCheckFailure("lockstep.security.jwt.public-key-location",
                    "is set together with lockstep.security.jwt.jwk-set-uri; tokens can be verified against only one of them.",
                    "keep the one your identity provider publishes and remove the other.");
        }
        NimbusJwtDecoder decoder;
        if (jwkSet) {
            decoder = NimbusJwtDecoder.withJwkSetUri(jwt.jwkSetUri()).build();
        } else if (publicKey) {
            decoder = NimbusJwtDecoder.withPublicKey(readPublicKey(jwt.publicKeyLocation())).build();
        } else {
            decoder = discover(jwt.issuerUri());
        }
        requireAudience(jwt);
        JwtCallerConverter.checkUserIdClaim(jwt.userIdClaim());
        decoder.setJwtValidator(validator(jwt));
        return decoder;
    }

    private static OAuth2TokenValidator<Jwt> validator(LockstepSecurityProperties.Jwt jwt) {
        List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
        validators.add(LockstepSecurityProperties.Jwt.isSet(jwt.issuerUri())
                ? JwtValidators.createDefaultWithIssuer(jwt.issuerUri())
                : JwtValidators.createDefault());
        validators.add(new JwtClaimValidator<List<String>>(JwtClaimNames.AUD,
                audience -> audience != null && audience.contains(jwt.audience())));
        return new DelegatingOAuth2TokenValidator<>(validators);
    }

    /** Without an audience, any token the identity provider issued for another application would do. */
    private static void requireAudience(LockstepSecurityProperties.Jwt jwt) {
        if (!LockstepSecurityProperties.Jwt.isSet(jwt.audience())) {
            throw new StartupCheckFailure("lockstep.security.jwt.audience",
                    "is not set; every token of the identity provider, issued for any other application, would be accepted.",
                    "set it to the audience your identity provider puts into the aud claim of tokens for Lockstep (often its"
                            + " client id), e.g. LOCKSTEP_SECURITY_JWT_AUDIENCE=lockstep.");
        }
    }

    /** Discovery happens now, not at the first request: a wrong issuer URL should stop the startup. */
    private static NimbusJwtDecoder discover(String issuerUri) {
        try {
            return NimbusJwtDecoder.withIssuerLocation(issuerUri).build();
        } catch (RuntimeException e) {
            throw new StartupCheckFailure("lockstep.security.jwt.issuer-uri",
                    "OpenID discovery at " + issuerUri + " failed (" + e.getMessage() + ").",
                    "use the issuer exactly as it appears in the tokens' iss claim and make sure"
                            + " <issuer>/.well-known/openid-configuration is reachable from this host. To start while the"
                            + " identity provider is down, also set lockstep.security.jwt.jwk-set-uri: keys are then"
                            + " fetched at the first request.");
        }
    }

    private static RSAPublicKey readPublicKey(String location) {
        Resource resource = new DefaultResourceLoader().getResource(location);
        try (InputStream pem = resource.getInputStream()) {
            return RsaKeyConverters.x509().convert(pem);
        } catch (IOException | RuntimeException e) {
            throw new StartupCheckFailure("lockstep.security.jwt.public-key-location",
                    "cannot read an RSA public key from " + location + " (" + e.getMessage() + ").",
                    "point it at a PEM file holding '-----BEGIN PUBLIC KEY-----' (X.509 SubjectPublicKeyInfo), e.g."
                            + " file:/etc/lockstep/jwt-public.pem or classpath:jwt-public.pem.");
        }
    }
}
