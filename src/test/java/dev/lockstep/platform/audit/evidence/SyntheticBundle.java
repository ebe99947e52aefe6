package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.audit.AuditEntry;
import dev.lockstep.platform.audit.AuditEntryFormat;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A bundle of {@code entries} format-2 entries written by the export's own writer, without a database: two of three
 * in full, every third a hash-only link, a signed checkpoint every {@code checkpointEvery} entries and at the end.
 * For the verifier's tests and the 1,000,000-entry benchmark.
 */
public final class SyntheticBundle {

    public static final String INSTALLATION = "synthetic-installation";

    private SyntheticBundle() {
    }

    /** Writes the bundle and returns the base64 public key that signed it (generated at {@code keyFile} when absent). */
    public static String write(Path zip, long entries, int checkpointEvery, Path keyFile) throws IOException {
        SigningKey key = SigningKey.loadOrGenerate(keyFile);
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        String prev = AuditEntryFormat.GENESIS;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(zip), 1 << 16)) {
            BundleWriter bundle = new BundleWriter(out);
            List<Checkpoint> checkpoints = new ArrayList<>();
            for (long seq = 1; seq <= entries; seq++) {
                Instant at = start.plusMillis(seq * 10);
                AuditEntry unhashed = new AuditEntry(seq, AuditEntryFormat.CURRENT, at, "system-utc", "approver-" + seq % 97,
                        "APPROVER,managers", "TASK_APPROVED", seq % 5000, 1, "expense:3", "req-" + seq, "gtrid-" + seq,
                        "managerApproval: approved, separation of duties checked", prev, null);
                String hash = unhashed.recomputedHash();
                bundle.entry(new AuditEntry(seq, unhashed.format(), at, unhashed.clockSource(), unhashed.actor(), unhashed.actorRoles(),
                        unhashed.action(), unhashed.applicationId(), unhashed.lifecycleNo(), unhashed.definitionVersion(),
                        unhashed.requestId(), unhashed.gtrid(), unhashed.detail(), prev, hash), seq % 3 != 0);
                if (seq % checkpointEvery == 0 || seq == entries) {
                    checkpoints.add(key.sign(INSTALLATION, seq, hash, at, "synthetic.tm"));
                }
                prev = hash;
            }
            checkpoints.forEach(checkpoint -> bundle.checkpoint(checkpoint, BundleFormat.FROM_ANCHOR));
            bundle.finish(INSTALLATION, start, "benchmark", BundleFormat.JSON.createObjectNode().put("synthetic", true), entries, prev);
        }
        return key.publicKey();
    }
}
