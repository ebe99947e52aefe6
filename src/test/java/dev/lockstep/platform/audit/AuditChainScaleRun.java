package dev.lockstep.platform.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.io.StringReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Measurement, not a CI test (its name ends in Run, so surefire's defaults leave it out): appends
 * {@code bench.audit.entries} (1,000,000) format-2 entries to the chain of this context's throwaway embedded business
 * database, then verifies the whole chain with {@link AuditTrail#verify()} while a sampler forces a GC every
 * {@code 250 ms} and records the heap still in use after it: the memory the verification holds, which must not grow
 * with the chain. Reports to stdout (docs/performance.md, "Verifying the audit chain").
 *
 * <p>Run: {@code nice -n 5 mvn -o test-compile surefire:test -Dtest=AuditChainScaleRun -Dsurefire.failIfNoSpecifiedTests=false}
 */
@LockstepIntegrationTest
class AuditChainScaleRun {

    static final int ENTRIES = Integer.getInteger("bench.audit.entries", 1_000_000);
    /** Far below what a million entries held at once would need (several hundred MB). */
    static final long BOUND_BYTES = 64L << 20;

    @Autowired
    TestDatabases db;
    @Autowired
    AuditTrail trail;

    @Test
    void verifyingAMillionEntriesHoldsBoundedMemory() throws Exception {
        Instant filling = Instant.now();
        appendEntries(ENTRIES);
        Duration filled = Duration.between(filling, Instant.now());
        long total = db.business().queryForObject("select count(*) from recovery_audit", Long.class);

        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        long baseline = memory.getHeapMemoryUsage().getUsed();
        AtomicLong peakAfterGc = new AtomicLong(baseline);
        Thread sampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                System.gc();
                peakAfterGc.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        sampler.setDaemon(true);
        Instant verifying = Instant.now();
        sampler.start();
        AuditTrail.Verification verification = trail.verify();
        sampler.interrupt();
        sampler.join();
        Duration verified = Duration.between(verifying, Instant.now());

        long held = peakAfterGc.get() - baseline;
        System.out.printf("[bench] audit chain: %,d entries (%,d appended in %s); verify %s in %s (%,.0f entries/s);"
                        + " heap in use after GC: baseline %,d MB, peak during verify +%,d MB%n",
                total, ENTRIES, filled, verification, verified, total / (verified.toMillis() / 1000.0),
                baseline >> 20, held >> 20);
        assertThat(verification.intact()).as(verification.toString()).isTrue();
        assertThat(verification.entries()).isEqualTo(total);
        assertThat(held).as("heap held by verify").isLessThan(BOUND_BYTES);
    }

    /** Chained onto the current head under the chain's lock, written with COPY in batches of 50,000. */
    private void appendEntries(int count) throws Exception {
        try (Connection connection = db.business().getDataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (Statement lock = connection.createStatement()) {
                lock.execute("lock table recovery_audit in share row exclusive mode");
            }
            long seq = 0;
            String prev = AuditEntryFormat.GENESIS;
            try (Statement head = connection.createStatement();
                    ResultSet row = head.executeQuery("select seq, hash from recovery_audit order by seq desc fetch first 1 row only")) {
                if (row.next()) {
                    seq = row.getLong(1);
                    prev = row.getString(2);
                }
            }
            Instant at = Instant.now().truncatedTo(ChronoUnit.MICROS);
            StringBuilder batch = new StringBuilder();
            for (int i = 1; i <= count; i++) {
                seq++;
                AuditEntry entry = new AuditEntry(seq, AuditEntryFormat.CURRENT, at, "jvm-utc@bench.tm", "bob", "APPROVER",
                        "TASK_APPROVED", (long) i, 1, "APPLICATION v1", "bench-" + i, "bench-gtrid-" + i,
                        "step Manager approval (managerApproval): decision APPROVE, no comment", prev, null);
                String hash = entry.recomputedHash();
                batch.append(seq).append('\t').append(AuditEntryFormat.CURRENT).append('\t').append(at).append('\t')
                        .append(entry.clockSource()).append('\t').append(entry.actor()).append('\t').append(entry.actorRoles())
                        .append('\t').append(entry.action()).append('\t').append(entry.applicationId()).append('\t')
                        .append(entry.lifecycleNo()).append('\t').append(entry.definitionVersion()).append('\t')
                        .append(entry.requestId()).append('\t').append(entry.gtrid()).append('\t').append(entry.detail())
                        .append('\t').append(prev).append('\t').append(hash).append('\n');
                prev = hash;
                if (i % 50_000 == 0 || i == count) {
                    connection.unwrap(PGConnection.class).getCopyAPI().copyIn("copy recovery_audit (seq, format, at,"
                            + " clock_source, actor, actor_roles, action, application_id, lifecycle_no, definition_version,"
                            + " request_id, gtrid, detail, prev_hash, hash) from stdin", new StringReader(batch.toString()));
                    batch.setLength(0);
                }
            }
            connection.commit();
        }
    }
}
