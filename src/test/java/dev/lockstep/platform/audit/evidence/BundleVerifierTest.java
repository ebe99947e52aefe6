package dev.lockstep.platform.audit.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The verifier's command line on bundles written without a database: usage, damage in transit (the packaged jar: {@link PackagedVerifierRun}). */
class BundleVerifierTest {

    @TempDir
    Path directory;

    @Test
    void anIntactBundleVerifiesAndSaysWhatItChecked() throws IOException {
        Path bundle = directory.resolve("intact.zip");
        String key = SyntheticBundle.write(bundle, 250, 100, directory.resolve("key.pem"));

        Evidence.Verified verified = Evidence.verify(bundle, "--key", key);

        assertThat(verified.exitCode()).as(verified.output()).isZero();
        assertThat(verified.output()).contains("250 read (167 in full with their hash recomputed, 83 hash-only links), seq 1..250",
                "3 counted", "covered by a counted checkpoint at 250 entries", "RESULT INTACT");
    }

    @Test
    void aKeyCanBeGivenAsThePemFileTheServiceWrote() throws IOException {
        Path bundle = directory.resolve("intact.zip");
        Path keyFile = directory.resolve("key.pem");
        SyntheticBundle.write(bundle, 10, 5, keyFile);
        Path publicOnly = Files.writeString(directory.resolve("public.pem"), Files.readString(keyFile)
                .substring(Files.readString(keyFile).indexOf("-----BEGIN PUBLIC KEY-----")));

        assertThat(Evidence.verify(bundle, "--key", publicOnly.toString()).exitCode()).isZero();
    }

    @Test
    void aFileChangedAfterTheExportBreaksItsManifestHash() throws IOException {
        Path bundle = directory.resolve("intact.zip");
        SyntheticBundle.write(bundle, 20, 10, directory.resolve("key.pem"));
        Path damaged = rewrite(bundle, BundleFormat.README, "nothing to see here\n");

        Evidence.Verified verified = Evidence.verify(damaged);

        assertThat(verified.exitCode()).isEqualTo(1);
        assertThat(verified.output()).contains("BREAK  README.txt: its SHA-256 differs from the manifest's");
    }

    @Test
    void wrongUseExitsWithTwo() throws IOException {
        Path bundle = directory.resolve("intact.zip");
        SyntheticBundle.write(bundle, 3, 3, directory.resolve("key.pem"));

        assertThat(BundleVerifier.run(List.of(), System.out)).isEqualTo(2);
        assertThat(Evidence.verify(directory.resolve("absent.zip")).exitCode()).isEqualTo(2);
        assertThat(Evidence.verify(bundle, "--key", "not-a-key").exitCode()).isEqualTo(2);
        assertThat(Evidence.verify(bundle, "--frobnicate").exitCode()).isEqualTo(2);
    }

    @Test
    void somethingThatIsNotABundleIsBroken() throws IOException {
        Evidence.Verified verified = Evidence.verify(Files.writeString(directory.resolve("notes.zip"), "not a zip"));

        assertThat(verified.exitCode()).isEqualTo(1);
        assertThat(verified.output()).contains("not a readable zip bundle");
    }

    static String readEntry(Path bundle, String name) throws IOException {
        try (ZipFile zip = new ZipFile(bundle.toFile()); InputStream in = zip.getInputStream(zip.getEntry(name))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private Path rewrite(Path bundle, String name, String content) throws IOException {
        return rewrite(bundle, name, content, directory);
    }

    /** A copy of {@code bundle} in {@code directory} with one file's content replaced and its manifest left as it was. */
    static Path rewrite(Path bundle, String name, String content, Path directory) throws IOException {
        Path copy = directory.resolve("changed-" + name.replace('/', '-') + ".zip");
        try (ZipFile zip = new ZipFile(bundle.toFile()); OutputStream file = Files.newOutputStream(copy);
                ZipOutputStream out = new ZipOutputStream(file)) {
            List<ZipEntry> entries = new ArrayList<>(Collections.list(zip.entries()));
            for (ZipEntry entry : entries) {
                out.putNextEntry(new ZipEntry(entry.getName()));
                out.write(entry.getName().equals(name) ? content.getBytes(StandardCharsets.UTF_8) : zip.getInputStream(entry).readAllBytes());
                out.closeEntry();
            }
        }
        return copy;
    }
}
