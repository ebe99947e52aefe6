package dev.lockstep.platform.audit.evidence;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;

/**
 * A signed statement "the chain of installation {@code installationId} had {@code entries} entries ending in
 * {@code headHash} at {@code at}", Ed25519-signed by node {@code signedBy}. The public key travels with it
 * (base64 X.509 SubjectPublicKeyInfo), so checkpoints of nodes with different keys all verify; which keys an
 * auditor trusts is the auditor's call ({@code verify --key}). Pure JDK: the offline verifier uses it.
 */
public record Checkpoint(String installationId, long entries, String headHash, Instant at, String signedBy,
        String publicKey, String signature) {

    static final String ALGORITHM = "Ed25519";

    /** The exact bytes signed: a fixed text form, one field a line, so no field can be shifted into another. */
    public String payload() {
        return String.join("\n", "lockstep-audit-checkpoint v1", "installation " + installationId, "entries " + entries,
                "head " + headHash, "at " + at, "signed-by " + signedBy);
    }

    /** True when {@link #signature} is an Ed25519 signature of {@link #payload} by {@link #publicKey}. */
    public boolean signatureValid() {
        try {
            Signature verifier = Signature.getInstance(ALGORITHM);
            verifier.initVerify(publicKey(publicKey));
            verifier.update(payload().getBytes(StandardCharsets.UTF_8));
            return verifier.verify(Base64.getDecoder().decode(signature));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }

    /** {@code sha256:<hex>} of the key's encoded form: what an auditor compares with the key the installation printed. */
    public static String fingerprint(String publicKeyBase64) {
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(Base64.getDecoder().decode(publicKeyBase64)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is always present in the JDK", e);
        }
    }

    static PublicKey publicKey(String base64) throws GeneralSecurityException {
        return KeyFactory.getInstance(ALGORITHM).generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }
}
