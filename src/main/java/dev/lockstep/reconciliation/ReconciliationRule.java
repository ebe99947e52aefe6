package dev.lockstep.reconciliation;

import java.util.Optional;

/**
 * One consistency rule over an application's {@link Evidence}. Empty means consistent. Rules of other
 * capabilities (outbox, catalog) plug in as Spring beans implementing this interface.
 */
public interface ReconciliationRule {

    /** Stable id: metric label, incident rule and documentation anchor. */
    String id();

    Optional<Finding> check(Evidence evidence);
}
