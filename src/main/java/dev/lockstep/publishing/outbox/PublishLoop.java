package dev.lockstep.publishing.outbox;

import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * Polls the outbox every {@code lockstep.publish.poll-interval} once the service is ready (the
 * in-process catalog must be listening), and at once after a transaction of this node that wrote an
 * event commits, so that an approval does not wait for the next tick. Several nodes may poll the same
 * outbox: claims skip each other's locked rows and leases keep an event with one node at a time.
 */
class PublishLoop implements ApplicationListener<ApplicationReadyEvent>, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PublishLoop.class);

    private final OutboxPublisher publisher;
    private final PublishConfiguration.CatalogTarget target;
    private final PublishProperties properties;
    private volatile ScheduledExecutorService executor;
    /** At most one early poll waits in the queue however many commits asked for it. */
    private final AtomicBoolean earlyPollQueued = new AtomicBoolean();

    PublishLoop(OutboxPublisher publisher, PublishConfiguration.CatalogTarget target, PublishProperties properties) {
        this.publisher = publisher;
        this.target = target;
        this.properties = properties;
    }

    @Override
    public synchronized void onApplicationEvent(ApplicationReadyEvent event) {
        if (!properties.enabled() || properties.pollInterval().isZero()) {
            log.info("publishing: no polling loop on this node (lockstep.publish.enabled={}, poll-interval={})",
                    properties.enabled(), properties.pollInterval());
            return;
        }
        if (!target.known()) {
            log.warn("publishing is OFF: approved applications stay publishStatus=PENDING. Set lockstep.publish.catalog-url"
                    + " to the catalog's base URL, or lockstep.catalog.db.url to run the reference catalog in this process.");
            return;
        }
        if (executor != null) {
            return;
        }
        executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "outbox-publisher");
            thread.setDaemon(true);
            return thread;
        });
        long interval = properties.pollInterval().toMillis();
        executor.scheduleWithFixedDelay(this::poll, interval, interval, TimeUnit.MILLISECONDS);
        log.info("publishing to {} every {}", target.description(), properties.pollInterval());
    }

    /** After the commit only: an event that rolled back must not be looked for, and the claim needs the row visible. */
    @TransactionalEventListener
    void onEventWritten(Outbox.EventWritten written) {
        ScheduledExecutorService running = executor;
        if (running == null || !earlyPollQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            running.execute(() -> {
                earlyPollQueued.set(false);
                poll();
            });
        } catch (RejectedExecutionException closing) {
            earlyPollQueued.set(false); // shutting down: the next node or start polls it
        }
    }

    private void poll() {
        try {
            // a full batch means more may be due: go on without waiting for the next tick
            while (publisher.publishDue() == properties.batchSize() && !Thread.currentThread().isInterrupted()) {
                log.debug("publishing: full batch, polling again");
            }
        } catch (RuntimeException e) {
            log.warn("publishing: poll failed, trying again in {}: {}", properties.pollInterval(), e.toString());
        }
    }

    @Override
    public synchronized void close() throws InterruptedException {
        if (executor != null) {
            executor.shutdownNow();
            executor.awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
