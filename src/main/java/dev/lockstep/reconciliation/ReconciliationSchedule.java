package dev.lockstep.reconciliation;

import dev.lockstep.platform.ConditionalOnXaMode;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The timer that starts runs, only where {@code lockstep.reconciliation.enabled=true}. A thin adapter on
 * purpose: it is to be moved onto the platform's DB-backed one-node-at-a-time scheduler; until then enable it on
 * one node only (two nodes would run the same scans, which is safe — repairs re-check under the row lock — but wasteful).
 */
@Component
@ConditionalOnXaMode
@ConditionalOnProperty(name = "lockstep.reconciliation.enabled", havingValue = "true")
class ReconciliationSchedule {

    private final Reconciliation reconciliation;

    ReconciliationSchedule(Reconciliation reconciliation) {
        this.reconciliation = reconciliation;
    }

    @Scheduled(initialDelayString = "${lockstep.reconciliation.incremental-interval:PT1M}",
            fixedDelayString = "${lockstep.reconciliation.incremental-interval:PT1M}")
    void incremental() {
        reconciliation.runIncremental();
    }

    @Scheduled(initialDelayString = "${lockstep.reconciliation.full-sweep-interval:PT1H}",
            fixedDelayString = "${lockstep.reconciliation.full-sweep-interval:PT1H}")
    void fullSweep() {
        reconciliation.runFullSweep();
    }
}
