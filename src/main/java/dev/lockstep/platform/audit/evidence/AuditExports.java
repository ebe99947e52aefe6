package dev.lockstep.platform.audit.evidence;

import dev.lockstep.platform.web.ApiException;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Evidence bundles (docs/compliance.md, "Evidence for auditors"). A plan is made before the response starts, so
 * every refusal is a problem+json; the bundle is then streamed from the database.
 */
class AuditExports {

    private final AuditCheckpoints checkpoints;
    private final EvidenceStore store;
    private final AnchorFile anchor;
    private final long maxEntries;
    private final Clock clock;

    AuditExports(AuditCheckpoints checkpoints, EvidenceStore store, AnchorFile anchor, long maxEntries, Clock clock) {
        this.checkpoints = checkpoints;
        this.store = store;
        this.anchor = anchor;
        this.maxEntries = maxEntries;
        this.clock = clock;
    }

    /**
     * What one export holds: the span {@code firstSeq..lastSeq} (null when nothing is selected) runs from the first
     * selected entry to the first checkpoint covering the last one; {@code head} is the checkpoint taken for it.
     */
    record Plan(ExportQuery query, String exportedBy, Instant exportedAt, Checkpoint head, Long firstSeq, Long lastSeq) {
    }

    Plan plan(ExportQuery query, String exportedBy) {
        Checkpoint head = checkpoints.take();
        EvidenceStore.Selection selected = query.applicationId() != null ? store.ofApplication(query.applicationId(), head.entries())
                : store.between(query.from(), query.to(), head.entries());
        if (selected.count() == 0 && query.applicationId() != null) {
            throw ApiException.notFound("AUDIT_APPLICATION_UNKNOWN", "The audit trail holds no entry about application "
                    + query.applicationId() + ".");
        }
        if (selected.count() == 0) {
            return new Plan(query, exportedBy, clock.instant(), head, null, null);
        }
        long lastSeq = store.firstCheckpointCovering(selected.lastSeq());
        long span = lastSeq - selected.firstSeq() + 1;
        if (span > maxEntries) {
            throw ApiException.badRequest("AUDIT_EXPORT_TOO_LARGE", "The export would span " + span + " entries (seq "
                    + selected.firstSeq() + ".." + lastSeq + "), more than lockstep.audit.export-max-entries (" + maxEntries
                    + "): narrow the time range.").with("entries", span).with("maxEntries", maxEntries);
        }
        return new Plan(query, exportedBy, clock.instant(), head, selected.firstSeq(), lastSeq);
    }

    void write(Plan plan, OutputStream out) {
        BundleWriter bundle = new BundleWriter(out);
        Set<Long> applications = new TreeSet<>();
        if (plan.firstSeq() != null) {
            store.entries(plan.firstSeq(), plan.lastSeq(), entry -> {
                boolean selected = plan.query().selects(entry);
                bundle.entry(entry, selected);
                if (selected && entry.applicationId() != null) {
                    applications.add(entry.applicationId());
                }
            });
        }
        // an empty span still shows the newest checkpoints: the chain's state when the auditor asked
        long from = plan.firstSeq() != null ? plan.firstSeq() : plan.head().entries();
        store.checkpointsFrom(from, checkpoint -> bundle.checkpoint(checkpoint, BundleFormat.FROM_TABLE));
        List<Checkpoint> anchored = anchor.checkpoints();
        for (int i = 0; i < anchored.size(); i++) {
            if (anchored.get(i).entries() >= from || i == anchored.size() - 1) {
                bundle.checkpoint(anchored.get(i), BundleFormat.FROM_ANCHOR);
            }
        }
        String installation = plan.head().installationId();
        for (long application : applications) {
            bundle.application(application, installation, plan.exportedAt(), page -> store.entriesOf(application,
                    plan.firstSeq(), plan.lastSeq(), entry -> {
                        if (plan.query().selects(entry)) {
                            page.accept(entry);
                        }
                    }));
        }
        bundle.finish(installation, plan.exportedAt(), plan.exportedBy(), plan.query().json(), plan.head().entries(),
                plan.head().headHash());
    }
}
