package dev.lockstep.publishing.catalog;

import dev.lockstep.platform.StartupCheckFailure;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer token every caller of the catalog presents ({@code Authorization: Bearer <token>}). There is always one:
 * {@code lockstep.catalog.token}, or on the embedded default, where the only caller is this process's own publisher,
 * a random one made at startup. A catalog reachable from elsewhere (external mode, or a process of its own) refuses
 * to start without one. Presented tokens are compared in constant time.
 */
public final class CatalogCredential {

    private static final Logger log = LoggerFactory.getLogger(CatalogCredential.class);
    static final String SETTING = "lockstep.catalog.token";

    private final String token;
    private final byte[] expectedHeader;

    private CatalogCredential(String token) {
        this.token = token;
        this.expectedHeader = ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * {@code configured}: {@code lockstep.catalog.token}; {@code embeddedDefault}: the catalog runs inside the service on
     * its embedded default, so only this process needs to know a generated token.
     */
    static CatalogCredential of(String configured, boolean embeddedDefault) {
        if (configured != null && !configured.isBlank()) {
            return new CatalogCredential(configured);
        }
        if (!embeddedDefault) {
            throw new StartupCheckFailure(SETTING, "is not set, so anyone who reaches the catalog's port could publish an"
                    + " asset nobody approved, or pre-empt a real event under its id.", "set " + SETTING + " (environment"
                    + " LOCKSTEP_CATALOG_TOKEN) to a long random secret, e.g. the output of `openssl rand -base64 32`, and give"
                    + " the publisher the same value as lockstep.publish.catalog-token.");
        }
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        log.info("{} is not set: generated a random token for the catalog in this process, known only to its own publisher."
                + " Set it (and lockstep.publish.catalog-token) for any other caller.", SETTING);
        return new CatalogCredential(Base64.getUrlEncoder().withoutPadding().encodeToString(random));
    }

    /** Whether an {@code Authorization} header carries the token; in constant time for a header of any content. */
    boolean admits(String authorization) {
        return authorization != null && MessageDigest.isEqual(expectedHeader, authorization.getBytes(StandardCharsets.UTF_8));
    }

    /** For this process's own publisher, which calls the catalog in this process over HTTP like any other caller. */
    public String token() {
        return token;
    }

    @Override
    public String toString() {
        return "CatalogCredential[token not shown]";
    }
}
