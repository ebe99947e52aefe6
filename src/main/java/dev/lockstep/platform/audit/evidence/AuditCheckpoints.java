package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.audit.AuditTrail;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Takes signed checkpoints of the chain: periodically ({@code audit-checkpoint} job, when entries were added), on
 * demand ({@code POST /api/audit/checkpoints}) and at every export. What has committed is chained first
 * ({@link AuditTrail#chain()}, a short local transaction); the head is then a plain read. Each checkpoint goes to the
 * anchor file before the table, so the file never lacks one the table has.
 */
class AuditCheckpoints {

    private final AuditTrail trail;
    private final EvidenceStore store;
    private final SigningKey key;
    private final AnchorFile anchor;
    private final String node;
    private final Clock clock;

    AuditCheckpoints(AuditTrail trail, EvidenceStore store, SigningKey key, AnchorFile anchor, String node, Clock clock) {
        this.trail = trail;
        this.store = store;
        this.key = key;
        this.anchor = anchor;
        this.node = node;
        this.clock = clock;
    }

    /** One node's checkpoints are taken one at a time, so its anchor lines come in the order of their counts. */
    synchronized Checkpoint take() {
        trail.chain();
        EvidenceStore.Head head = store.head();
        // the database keeps microseconds: sign exactly what will be read back
        Checkpoint checkpoint = key.sign(store.installationId(), head.seq(), head.hash(),
                clock.instant().truncatedTo(ChronoUnit.MICROS), node);
        anchor.append(checkpoint);
        store.insert(checkpoint);
        return checkpoint;
    }

    /** The periodic pass: a checkpoint only when the chain grew since the last one. */
    synchronized Optional<Checkpoint> takeIfAdvanced() {
        trail.chain();
        return store.head().seq() > store.lastCheckpointEntries() ? Optional.of(take()) : Optional.empty();
    }
}
