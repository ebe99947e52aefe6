package dev.lockstep.publishing.delivery;

import dev.lockstep.platform.AreaApi;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What the publisher and the catalog agree a publication's payload is: the SHA-256 of the body's bytes, in hex. The
 * publisher sends {@code outbox_event.payload_json} as it is (UTF-8), the catalog stores the hash of what it received,
 * and a lookup answers it: the outbox and the catalog can then tell whether they hold the same publication.
 */
@AreaApi
public final class PayloadDigest {

    private PayloadDigest() {
    }

    public static String sha256(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    public static String sha256(String payloadJson) {
        return sha256(payloadJson.getBytes(StandardCharsets.UTF_8));
    }
}
