package dev.lockstep.reconciliation;

import dev.lockstep.publishing.delivery.CatalogClient;
import dev.lockstep.publishing.delivery.CatalogClient.Lookup;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Adds the catalog's answers to a PUBLISHED application's evidence: for each of its PUBLISHED outbox events, whether
 * the catalog applied it, and from the outbox's payload (the hashes compared) or another one. Always over HTTP and outside any transaction (the client refuses otherwise), before a repair
 * or an incident step starts; the transaction then re-checks the business side and keeps these answers. A catalog
 * that does not answer, or none configured, yields UNKNOWN, never "absent".
 */
class CatalogEvidence {

    private final CatalogClient catalog;

    /** @param catalog null when no catalog is configured */
    CatalogEvidence(CatalogClient catalog) {
        this.catalog = catalog;
    }

    Evidence attach(Evidence evidence) {
        if (!"PUBLISHED".equals(evidence.publication().status())) {
            return evidence;
        }
        Map<String, Lookup> answers = new LinkedHashMap<>();
        for (Evidence.OutboxEvent event : PublicationRule.published(evidence.publication())) {
            answers.put(event.eventId(), lookup(event));
        }
        return evidence.withCatalog(answers);
    }

    private Lookup lookup(Evidence.OutboxEvent event) {
        if (catalog == null || !catalog.configured()) {
            return Lookup.UNKNOWN;
        }
        try {
            return catalog.lookup(event.eventId(), event.payloadSha256());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Lookup.UNKNOWN;
        }
    }
}
