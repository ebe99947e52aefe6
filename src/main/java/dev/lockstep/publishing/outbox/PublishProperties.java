package dev.lockstep.publishing.outbox;

import dev.lockstep.platform.StartupCheckFailure;
import java.net.URI;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code lockstep.publish.*}: where approved assets go and how hard the publisher tries. Without a
 * {@code catalogUrl} the publisher calls the reference catalog this service runs itself (over HTTP,
 * on its own port), which exists on the embedded default.
 */
@ConfigurationProperties("lockstep.publish")
public record PublishProperties(
        @DefaultValue("true") boolean enabled,
        URI catalogUrl,
        String catalogToken,
        @DefaultValue("2s") Duration connectTimeout,
        @DefaultValue("5s") Duration readTimeout,
        @DefaultValue("10") int maxAttempts,
        @DefaultValue("50") int batchSize,
        @DefaultValue("60s") Duration lease,
        @DefaultValue("1s") Duration pollInterval,
        @DefaultValue("1s") Duration backoffInitial,
        @DefaultValue("5m") Duration backoffMax,
        @DefaultValue("5m") Duration stuckAfter) {

    /** Refuses settings the publisher cannot work with, naming the setting and the fix. */
    void verify() {
        if (catalogUrl != null && (catalogUrl.getScheme() == null || !catalogUrl.getScheme().matches("https?")
                || catalogUrl.getHost() == null)) {
            throw new StartupCheckFailure("lockstep.publish.catalog-url", "'" + catalogUrl + "' is not an http(s) URL.",
                    "set it to the catalog's base URL, e.g. https://catalog.example.com/catalog, or leave it unset to"
                            + " use the reference catalog this service runs on the embedded default.");
        }
        StartupCheckFailure.requirePositive("lockstep.publish.connect-timeout", connectTimeout, "5s");
        StartupCheckFailure.requirePositive("lockstep.publish.read-timeout", readTimeout, "5s");
        StartupCheckFailure.requirePositive("lockstep.publish.backoff-initial", backoffInitial, "5s");
        StartupCheckFailure.requirePositive("lockstep.publish.stuck-after", stuckAfter, "5s");
        if (backoffMax.compareTo(backoffInitial) < 0) {
            throw new StartupCheckFailure("lockstep.publish.backoff-max", "(" + backoffMax + ") is shorter than"
                    + " lockstep.publish.backoff-initial (" + backoffInitial + ").", "set it to at least the initial backoff, e.g. 5m.");
        }
        if (maxAttempts < 1) {
            throw new StartupCheckFailure("lockstep.publish.max-attempts", "is " + maxAttempts + ".",
                    "set it to 1 or more (each attempt is one send, or one send and one query after a timeout).");
        }
        if (batchSize < 1 || batchSize > 1000) {
            throw new StartupCheckFailure("lockstep.publish.batch-size", "is " + batchSize + ".",
                    "set it between 1 and 1000: the events one poll claims (and must deliver within one lease).");
        }
        // one attempt is a send and possibly a query: the lease must outlast both, or a second node
        // would take the event while the first is still waiting for the catalog
        Duration attempt = connectTimeout.plus(readTimeout).multipliedBy(2);
        if (lease.compareTo(attempt) <= 0) {
            throw new StartupCheckFailure("lockstep.publish.lease", "(" + lease + ") is not longer than one attempt: twice"
                    + " connect-timeout + read-timeout (" + attempt + ").",
                    "raise lockstep.publish.lease (e.g. 60s) or lower the timeouts.");
        }
        if (pollInterval.isNegative()) {
            throw new StartupCheckFailure("lockstep.publish.poll-interval", "is negative.",
                    "set it to e.g. 1s, or 0 to run no polling loop on this node (it then only writes events).");
        }
    }
}
