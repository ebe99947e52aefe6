package dev.lockstep.publishing.catalog;

import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The catalog's data, in its own database. A publication is applied at most once per event id: the
 * inbox row goes in first and its primary key refuses a second one (insert first, never select
 * first), so concurrent or repeated deliveries of one event make one asset row.
 */
class CatalogStore implements AutoCloseable {

    private static final String COLUMNS = "event_id, asset_id, application_id, lifecycle_no, title, approved_at, published_at,"
            + " payload_sha256";

    private final HikariDataSource pool;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate transaction;
    private final String consumerName;
    private final Clock clock;
    private final Counter firstDeliveries;
    private final Counter duplicates;

    CatalogStore(HikariDataSource pool, String consumerName, Clock clock, MeterRegistry meters) {
        this.pool = pool;
        this.jdbc = new JdbcTemplate(pool);
        this.transaction = new TransactionTemplate(new DataSourceTransactionManager(pool));
        this.consumerName = consumerName;
        this.clock = clock;
        this.firstDeliveries = inboxCounter(meters, "FIRST");
        this.duplicates = inboxCounter(meters, "DUPLICATE");
    }

    /** FIRST: applied now; REPLAY: applied before from the same body; OTHER_PAYLOAD: applied before from another body. */
    enum Outcome { FIRST, REPLAY, OTHER_PAYLOAD }

    record Applied(Publication publication, Outcome outcome) {
    }

    /** {@code payloadSha256}: the hash of the body {@code request} was read from ({@code PayloadDigest}). */
    Applied publish(String eventId, PublicationRequest request, String payloadSha256) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        try {
            Publication created = transaction.execute(status -> {
                jdbc.update("insert into inbox_message (consumer_name, event_id, processed_at, result_code) values (?, ?, ?, ?)",
                        consumerName, eventId, Timestamp.from(now), "PUBLISHED");
                Publication publication = new Publication(eventId, request.assetId(), request.applicationId(),
                        request.lifecycleNo() == null ? 1 : request.lifecycleNo(), request.title(), request.approvedAt(), now,
                        payloadSha256);
                jdbc.update("insert into published_asset (" + COLUMNS + ") values (?, ?, ?, ?, ?, ?, ?, ?)",
                        publication.eventId(), publication.assetId(), publication.applicationId(), publication.lifecycleNo(),
                        publication.title(), publication.approvedAt() == null ? null : Timestamp.from(publication.approvedAt()),
                        Timestamp.from(now), payloadSha256);
                return publication;
            });
            firstDeliveries.increment();
            return new Applied(created, Outcome.FIRST);
        } catch (DuplicateKeyException e) {
            // the event was applied before (or just now by a concurrent delivery that committed first)
            Publication stored = byEvent(eventId).orElseThrow(() -> new IllegalStateException(
                    "inbox holds event " + eventId + " but no publication does", e));
            // a publication stored before its hash was kept (null) cannot be compared: answered as before
            if (stored.payloadSha256() != null && !stored.payloadSha256().equals(payloadSha256)) {
                return new Applied(stored, Outcome.OTHER_PAYLOAD);
            }
            duplicates.increment();
            return new Applied(stored, Outcome.REPLAY);
        }
    }

    Optional<Publication> byEvent(String eventId) {
        return jdbc.query("select " + COLUMNS + " from published_asset where event_id = ?", ROW, eventId).stream().findFirst();
    }

    List<Publication> byAsset(long assetId) {
        return jdbc.query("select " + COLUMNS + " from published_asset where asset_id = ? order by published_at, id", ROW, assetId);
    }

    private static final RowMapper<Publication> ROW = (row, n) -> new Publication(row.getString(1), row.getLong(2),
            row.getLong(3), row.getInt(4), row.getString(5),
            row.getTimestamp(6) == null ? null : row.getTimestamp(6).toInstant(), row.getTimestamp(7).toInstant(), row.getString(8));

    private static Counter inboxCounter(MeterRegistry meters, String result) {
        return Counter.builder("lockstep.catalog.inbox.messages")
                .description("Deliveries the catalog's inbox received: FIRST applied, DUPLICATE deduped")
                .tag("result", result)
                .register(meters);
    }

    @Override
    public void close() {
        pool.close();
    }
}
