package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.StartupCheckFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Ed25519 key that signs checkpoints, read from {@code lockstep.audit.signing-key-file}: a PEM file with the
 * PKCS#8 {@code PRIVATE KEY} and its {@code PUBLIC KEY} (the JDK cannot derive the public half from the private
 * one; {@code openssl genpkey -algorithm ed25519 -out k.pem && openssl pkey -in k.pem -pubout >> k.pem} writes
 * both). Absent, a new key is generated there, readable by the owner only.
 */
public final class SigningKey {

    static final String SETTING = "lockstep.audit.signing-key-file";
    private static final Pattern BLOCK = Pattern.compile("-----BEGIN (PRIVATE|PUBLIC) KEY-----([A-Za-z0-9+/=\\s]+)-----END \\1 KEY-----");

    private final PrivateKey privateKey;
    private final String publicKey;

    private SigningKey(PrivateKey privateKey, PublicKey publicKey) {
        this.privateKey = privateKey;
        this.publicKey = Base64.getEncoder().encodeToString(publicKey.getEncoded());
    }

    /** Reads the key at {@code file}, generating it first when there is none. */
    public static SigningKey loadOrGenerate(Path file) {
        if (!Files.exists(file)) {
            generate(file);
        }
        String pem;
        try {
            pem = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw refused(file, "cannot be read (" + e + ").");
        }
        byte[] privateDer = null;
        byte[] publicDer = null;
        Matcher block = BLOCK.matcher(pem);
        while (block.find()) {
            byte[] der = Base64.getMimeDecoder().decode(block.group(2));
            if (block.group(1).equals("PRIVATE")) {
                privateDer = der;
            } else {
                publicDer = der;
            }
        }
        if (privateDer == null || publicDer == null) {
            throw refused(file, "holds no PEM PRIVATE KEY and PUBLIC KEY pair.");
        }
        try {
            KeyFactory keys = KeyFactory.getInstance(Checkpoint.ALGORITHM);
            SigningKey key = new SigningKey(keys.generatePrivate(new PKCS8EncodedKeySpec(privateDer)),
                    Checkpoint.publicKey(Base64.getEncoder().encodeToString(publicDer)));
            // a mismatched pair would sign checkpoints no one can verify
            Checkpoint probe = key.sign("probe", 0, "0", Instant.EPOCH, "probe");
            if (!probe.signatureValid()) {
                throw refused(file, "holds a PUBLIC KEY that is not the PRIVATE KEY's.");
            }
            return key;
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw refused(file, "is not an Ed25519 key pair (" + e.getMessage() + ").");
        }
    }

    private static void generate(Path file) {
        try {
            KeyPair pair = KeyPairGenerator.getInstance(Checkpoint.ALGORITHM).generateKeyPair();
            String pem = pem("PRIVATE", pair.getPrivate().getEncoded()) + pem("PUBLIC", pair.getPublic().getEncoded());
            Files.createDirectories(file.toAbsolutePath().getParent());
            if (Files.getFileStore(file.toAbsolutePath().getParent()).supportsFileAttributeView("posix")) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } else {
                Files.createFile(file);
            }
            Files.writeString(file, pem, StandardCharsets.US_ASCII);
        } catch (FileAlreadyExistsException e) {
            // another node on shared storage generated it first: read theirs
        } catch (IOException | GeneralSecurityException e) {
            throw refused(file, "is absent and a new key could not be written there (" + e + ").");
        }
    }

    private static String pem(String kind, byte[] der) {
        return "-----BEGIN " + kind + " KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + kind + " KEY-----\n";
    }

    private static StartupCheckFailure refused(Path file, String problem) {
        return new StartupCheckFailure(SETTING, file.toAbsolutePath() + " " + problem, "point " + SETTING + " at a readable"
                + " PEM file holding an Ed25519 PRIVATE KEY (PKCS#8) and its PUBLIC KEY, or remove the file to have a new"
                + " key generated there (docs/operations.md, \"Audit signing key and anchor file\").");
    }

    public Checkpoint sign(String installationId, long entries, String headHash, Instant at, String signedBy) {
        Checkpoint unsigned = new Checkpoint(installationId, entries, headHash, at, signedBy, publicKey, null);
        try {
            Signature signer = Signature.getInstance(Checkpoint.ALGORITHM);
            signer.initSign(privateKey);
            signer.update(unsigned.payload().getBytes(StandardCharsets.UTF_8));
            return new Checkpoint(installationId, entries, headHash, at, signedBy, publicKey,
                    Base64.getEncoder().encodeToString(signer.sign()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 signing failed", e);
        }
    }

    /** Base64 X.509 SubjectPublicKeyInfo, as {@code verify --key} takes it. */
    public String publicKey() {
        return publicKey;
    }
}
