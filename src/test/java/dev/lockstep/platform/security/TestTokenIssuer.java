package dev.lockstep.platform.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

/**
 * A tiny identity provider for tests: an RSA key pair generated here, tokens signed with it, and on
 * demand an HTTP server publishing OpenID discovery and the JWK set, as Keycloak or Entra ID would.
 */
final class TestTokenIssuer implements AutoCloseable {

    private final KeyPair keys;
    private final String keyId;
    private HttpServer server;

    TestTokenIssuer(String keyId) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            this.keys = generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        this.keyId = keyId;
    }

    /** Claims of a token for one caller; {@code username} null leaves out preferred_username. */
    record Claims(String subject, String username, List<String> roles, List<String> groups, String issuer,
            String audience, Instant expiresAt) {

        static Claims of(String username, List<String> roles, List<String> groups) {
            return new Claims("subject-of-" + username, username, roles, groups, null, "lockstep",
                    Instant.now().plusSeconds(600));
        }

        Claims withIssuer(String newIssuer) {
            return new Claims(subject, username, roles, groups, newIssuer, audience, expiresAt);
        }

        Claims withAudience(String newAudience) {
            return new Claims(subject, username, roles, groups, issuer, newAudience, expiresAt);
        }

        Claims withoutUsername() {
            return new Claims(subject, null, roles, groups, issuer, audience, expiresAt);
        }

        Claims expiredAt(Instant instant) {
            return new Claims(subject, username, roles, groups, issuer, audience, instant);
        }
    }

    String sign(Claims claims) {
        JWTClaimsSet.Builder set = new JWTClaimsSet.Builder()
                .subject(claims.subject())
                .issueTime(java.util.Date.from(claims.expiresAt().minusSeconds(600)))
                .expirationTime(java.util.Date.from(claims.expiresAt()))
                .claim(JwtCallerConverter.ROLES_CLAIM, claims.roles())
                .claim(JwtCallerConverter.GROUPS_CLAIM, claims.groups());
        if (claims.username() != null) {
            set.claim("preferred_username", claims.username());
        }
        if (claims.issuer() != null) {
            set.issuer(claims.issuer());
        }
        if (claims.audience() != null) {
            set.audience(claims.audience());
        }
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(keyId).build(), set.build());
        try {
            jwt.sign(new RSASSASigner((RSAPrivateKey) keys.getPrivate()));
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return jwt.serialize();
    }

    /** The public key as the PEM file an operator would configure in lockstep.security.jwt.public-key-location. */
    Path writePublicKeyPem(Path file) throws IOException {
        String base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(keys.getPublic().getEncoded());
        Files.createDirectories(file.getParent());
        return Files.writeString(file, "-----BEGIN PUBLIC KEY-----\n" + base64 + "\n-----END PUBLIC KEY-----\n");
    }

    /** Serves /.well-known/openid-configuration and /jwks on a free port; returns the issuer URI. */
    String serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String issuer = issuerUri();
        String jwks = new JWKSet(new RSAKey.Builder((RSAPublicKey) keys.getPublic()).keyID(keyId).build())
                .toString(true);
        server.createContext("/.well-known/openid-configuration", exchange -> respond(exchange,
                "{\"issuer\":\"" + issuer + "\",\"jwks_uri\":\"" + issuer + "/jwks\","
                        + "\"subject_types_supported\":[\"public\"]}"));
        server.createContext("/jwks", exchange -> respond(exchange, jwks));
        server.start();
        return issuer;
    }

    String issuerUri() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private static void respond(HttpExchange exchange, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        try (exchange; OutputStream out = exchange.getResponseBody()) {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            out.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop(0);
        }
    }
}
