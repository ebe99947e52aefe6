package dev.lockstep.platform.audit.evidence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The signing key at start: generated owner-only when absent, the same key read back, a wrong file refused by name. */
class SigningKeyTest {

    @TempDir
    Path directory;

    @Test
    void anAbsentKeyIsGeneratedOwnerOnlyAndReadBackTheSame() throws Exception {
        Path file = directory.resolve("audit").resolve("signing-key.pem");

        SigningKey generated = SigningKey.loadOrGenerate(file);
        SigningKey read = SigningKey.loadOrGenerate(file);

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(read.publicKey()).isEqualTo(generated.publicKey());
        assertThat(read.sign("i", 3, "ab", Instant.EPOCH, "n").signatureValid()).isTrue();
    }

    @Test
    void aFileThatIsNotAnEd25519PairStopsTheStartNamingTheSetting() throws Exception {
        Path garbage = Files.writeString(directory.resolve("garbage.pem"), "not a key");
        KeyPair rsa = KeyPairGenerator.getInstance("RSA").generateKeyPair();
        Path rsaFile = Files.writeString(directory.resolve("rsa.pem"), "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(rsa.getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n"
                + "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder().encodeToString(rsa.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n");
        Path one = directory.resolve("one.pem");
        SigningKey.loadOrGenerate(one);
        Path other = directory.resolve("other.pem");
        SigningKey.loadOrGenerate(other);
        String mismatched = Files.readString(one).substring(0, Files.readString(one).indexOf("-----BEGIN PUBLIC KEY-----"))
                + Files.readString(other).substring(Files.readString(other).indexOf("-----BEGIN PUBLIC KEY-----"));
        Path mismatchedFile = Files.writeString(directory.resolve("mismatched.pem"), mismatched);

        assertThatThrownBy(() -> SigningKey.loadOrGenerate(garbage)).isInstanceOf(StartupCheckFailure.class)
                .hasMessageContaining("lockstep.audit.signing-key-file").hasMessageContaining("no PEM PRIVATE KEY and PUBLIC KEY");
        assertThatThrownBy(() -> SigningKey.loadOrGenerate(rsaFile)).isInstanceOf(StartupCheckFailure.class)
                .hasMessageContaining("lockstep.audit.signing-key-file").hasMessageContaining("is not an Ed25519 key pair");
        assertThatThrownBy(() -> SigningKey.loadOrGenerate(mismatchedFile)).isInstanceOf(StartupCheckFailure.class)
                .hasMessageContaining("not the PRIVATE KEY's");
    }

    @Test
    void anAnchorFileThatCannotBeCreatedStopsTheStartNamingTheSetting() throws Exception {
        Path notADirectory = Files.writeString(directory.resolve("plain-file"), "x");

        assertThatThrownBy(() -> new AnchorFile(notADirectory.resolve("checkpoints.jsonl"))).isInstanceOf(StartupCheckFailure.class)
                .hasMessageContaining("lockstep.audit.anchor-file");
    }
}
