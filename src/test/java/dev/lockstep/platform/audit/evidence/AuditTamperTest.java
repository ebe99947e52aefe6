package dev.lockstep.platform.audit.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.audit.AuditEntry;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.test.context.TestPropertySource;

/**
 * An attacker with superuser rights on the business database ({@code session_replication_role = replica} switches the
 * append-only triggers off) changes the chain; the export over real HTTP still goes out, and the offline verifier
 * finds the break, each kind in its own test. Databases of its own (the extra properties make a context of its own),
 * and each test puts back what it added, so the next one starts from an intact chain.
 */
@LockstepIntegrationTest
@TestPropertySource(properties = {"lockstep.audit.export-max-entries=40", "lockstep.audit.checkpoint-interval=1h"})
class AuditTamperTest {

    private static final Path BUNDLES = Path.of("target/audit-bundles");

    @Autowired
    Api api;

    @Autowired
    TestDatabases databases;

    @Autowired
    AuditTrail trail;

    @Autowired
    SigningKey key;

    @Autowired
    AnchorFile anchor;

    private long seqBefore;
    private long checkpointBefore;
    private long anchorBefore;
    private Instant from;

    @BeforeEach
    void remember() throws IOException {
        trail.chain();
        seqBefore = databases.business().queryForObject("select coalesce(max(seq), 0) from recovery_audit", Long.class);
        checkpointBefore = databases.business().queryForObject("select coalesce(max(id), 0) from audit_checkpoint", Long.class);
        anchorBefore = Files.size(anchor.file());
        from = Instant.now().minusMillis(1);
    }

    @AfterEach
    void restore() throws IOException {
        attack(connection -> {
            update(connection, "delete from recovery_audit where seq > " + seqBefore);
            update(connection, "delete from audit_checkpoint where id > " + checkpointBefore);
        });
        try (FileChannel file = FileChannel.open(anchor.file(), StandardOpenOption.WRITE)) {
            file.truncate(anchorBefore);
        }
    }

    @Test
    void anEditedEntry() throws IOException {
        List<Long> seqs = appendAndCheckpoint(6);
        attack(connection -> update(connection, "update recovery_audit set detail = 'nothing happened' where seq = " + seqs.get(2)));

        Evidence.Verified verified = exportAndVerify("--key", key.publicKey());

        assertThat(verified.output()).contains("(seq " + seqs.get(2) + "): its content does not give its hash: the entry was changed");
    }

    @Test
    void aDeletedMiddleEntry() throws IOException {
        List<Long> seqs = appendAndCheckpoint(6);
        attack(connection -> update(connection, "delete from recovery_audit where seq = " + seqs.get(2)));

        Evidence.Verified verified = exportAndVerify("--key", key.publicKey());

        assertThat(verified.output()).contains("seq " + seqs.get(2) + " missing: entries were removed",
                "(seq " + seqs.get(3) + "): prev_hash does not match the hash of the entry before it");
    }

    @Test
    void aDeletedTailAfterACheckpointTheAnchorFileStillHolds() throws IOException {
        List<Long> seqs = appendAndCheckpoint(6);
        long tail = seqs.get(4);
        attack(connection -> {
            update(connection, "delete from recovery_audit where seq >= " + tail);
            update(connection, "delete from audit_checkpoint where entries >= " + tail);
        });
        assertThat(databases.business().queryForObject("select count(*) from audit_checkpoint where entries > ?", Integer.class,
                seqs.get(3))).isZero();
        assertThat(Files.readString(anchor.file())).contains("\"entries\":" + seqs.get(5) + ",");

        Evidence.Verified verified = exportAndVerify("--key", key.publicKey());

        assertThat(verified.output()).contains("(anchor-file, " + seqs.get(5) + " entries",
                "counted " + seqs.get(5) + " entries but the chain ends at seq " + seqs.get(3) + ": entries after seq "
                        + seqs.get(3) + " were removed");
    }

    @Test
    void aChainRecomputedWithoutTheKeyAfterAnEdit() throws IOException {
        List<Long> seqs = appendAndCheckpoint(6);
        attack(connection -> {
            update(connection, "update recovery_audit set detail = 'nothing happened' where seq = " + seqs.get(2));
            rehash(connection, seqs.get(2));
        });

        Evidence.Verified verified = exportAndVerify("--key", key.publicKey());

        // every hash is consistent again; only the signed heads still name the old chain
        assertThat(verified.output()).doesNotContain("the entry was changed").contains("(seq " + seqs.get(5)
                + "): the checkpoint at checkpoints.jsonl", "the chain was rewritten");
    }

    @Test
    void aRecomputedChainWhoseCheckpointRowsAreResignedWithAnotherKey() throws IOException {
        List<Long> seqs = appendAndCheckpoint(6);
        SigningKey attacker = SigningKey.loadOrGenerate(BUNDLES.resolve("attacker-" + System.nanoTime() + ".pem"));
        String installation = databases.business().queryForObject("select id from audit_installation", String.class);
        attack(connection -> {
            update(connection, "update recovery_audit set detail = 'nothing happened' where seq = " + seqs.get(2));
            rehash(connection, seqs.get(2));
            update(connection, "delete from audit_checkpoint where id > " + checkpointBefore);
        });
        String newHead = databases.business().queryForObject("select hash from recovery_audit where seq = ?", String.class, seqs.get(5));
        Checkpoint forged = attacker.sign(installation, seqs.get(5), newHead, Instant.now().truncatedTo(ChronoUnit.MICROS),
                "lockstep-it.tm");
        databases.business().update("insert into audit_checkpoint (installation_id, entries, head_hash, at, signed_by, public_key,"
                + " signature) values (?, ?, ?, ?, ?, ?, ?)", installation, forged.entries(), forged.headHash(),
                Timestamp.from(forged.at()), forged.signedBy(), forged.publicKey(), forged.signature());

        Evidence.Verified pinned = exportAndVerify("--key", key.publicKey());

        assertThat(pinned.output()).contains("not pinned with --key: not counted", "(anchor-file, " + seqs.get(5) + " entries",
                "the chain was rewritten");
    }

    @Test
    void aSwappedCheckpoint() throws IOException {
        appendAndCheckpoint(3);
        appendAndCheckpoint(3);
        List<Long> ids = databases.business().queryForList("select id from audit_checkpoint where id > ? order by id", Long.class,
                checkpointBefore);
        attack(connection -> update(connection, "update audit_checkpoint set signature = (select signature from audit_checkpoint"
                + " where id = " + ids.get(0) + ") where id = " + ids.get(1)));

        Evidence.Verified verified = exportAndVerify("--key", key.publicKey());

        assertThat(verified.output()).contains("(table, ", "its Ed25519 signature does not verify");
    }

    @Test
    void anExportSpanningMoreThanTheCapIsRefused() {
        for (int i = 0; i < 41; i++) {
            trail.append("dba1", "FORCED_COMMIT", null, "bulk " + i);
        }
        Evidence.Download refused = Evidence.get(api, "audrey", "/api/audit/exports?from=" + from + "&to=" + Instant.now().plusSeconds(1));

        assertThat(refused.status()).as(refused.text()).isEqualTo(400);
        assertThat(refused.text()).contains("\"code\":\"AUDIT_EXPORT_TOO_LARGE\"", "lockstep.audit.export-max-entries");
    }

    /** Appends {@code count} entries, then takes a checkpoint over real HTTP; returns their seqs. */
    private List<Long> appendAndCheckpoint(int count) {
        List<Long> seqs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            seqs.add(trail.append("dba1", "FORCED_COMMIT", "gtrid-" + i, "resolution " + i).seq());
        }
        Api.Response checkpoint = api.post("audrey", "/api/audit/checkpoints", null);
        assertThat(checkpoint.status()).as(checkpoint.toString()).isEqualTo(201);
        return seqs;
    }

    /** Exports this test's entries over HTTP, verifies them offline, and expects a break. */
    private Evidence.Verified exportAndVerify(String... options) throws IOException {
        Path bundle = Evidence.export(api, "from=" + from + "&to=" + Instant.now().plusSeconds(1), BUNDLES);
        Evidence.Verified verified = Evidence.verify(bundle, options);
        assertThat(verified.exitCode()).as(verified.output()).isEqualTo(1);
        assertThat(verified.output()).contains("RESULT BROKEN");
        return verified;
    }

    interface Attack {
        void on(Connection connection) throws SQLException;
    }

    /** As a superuser whose session skips the append-only triggers. */
    private void attack(Attack attack) {
        databases.business().execute((ConnectionCallback<Void>) connection -> {
            update(connection, "set session_replication_role = replica");
            try {
                attack.on(connection);
            } finally {
                update(connection, "set session_replication_role = origin");
            }
            return null;
        });
    }

    private static void update(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** Recomputes every hash from {@code seq} on, as anyone who knows the public rule ({@code AuditEntryFormat}) can. */
    private static void rehash(Connection connection, long seq) throws SQLException {
        JdbcTemplate sql = new JdbcTemplate(new SingleConnectionDataSource(connection, true));
        String prev = sql.queryForObject("select hash from recovery_audit where seq = ?", String.class, seq - 1);
        List<AuditEntry> entries = sql.query("select seq, format, at, clock_source, actor, actor_roles, action, application_id,"
                + " lifecycle_no, definition_version, request_id, gtrid, detail from recovery_audit where seq >= ? order by seq",
                (row, n) -> new AuditEntry(row.getLong(1), row.getInt(2), row.getTimestamp(3).toInstant(), row.getString(4),
                        row.getString(5), row.getString(6), row.getString(7), row.getObject(8, Long.class),
                        row.getObject(9, Integer.class), row.getString(10), row.getString(11), row.getString(12), row.getString(13),
                        null, null), seq);
        for (AuditEntry entry : entries) {
            AuditEntry linked = new AuditEntry(entry.seq(), entry.format(), entry.at(), entry.clockSource(), entry.actor(),
                    entry.actorRoles(), entry.action(), entry.applicationId(), entry.lifecycleNo(), entry.definitionVersion(),
                    entry.requestId(), entry.gtrid(), entry.detail(), prev, null);
            prev = linked.recomputedHash();
            sql.update("update recovery_audit set prev_hash = ?, hash = ? where seq = ?", linked.prevHash(), prev, entry.seq());
        }
    }
}
