package dev.lockstep.publishing.outbox;

import static dev.lockstep.publishing.outbox.PublishingTest.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.EmbeddedPostgresServers;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.publishing.catalog.CatalogCredential;
import dev.lockstep.publishing.delivery.RemoteCallOutsideTransaction;
import dev.lockstep.support.Api;
import dev.lockstep.support.BlackholeProxy;
import dev.lockstep.support.UseCaseIntegrationTest;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Issue 29, item 6: the publisher's pool waits as long as every other pool and no longer. A transaction in doubt that
 * holds an outbox event's or an application's row, or a database that stops answering mid-statement, used to hold the
 * single publisher thread and an operator's outbox repair forever. Now each gives up within the database's lock or
 * socket timeout, nothing is written, and the next poll (or the operator's next try) goes on once the cause is gone.
 * The JUnit timeouts only tell a hang from an answer; they measure nothing.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
class BoundedOutboxWaitsTest extends UseCaseIntegrationTest {

    private static final Pattern HOST_AND_PORT = Pattern.compile("//([^:/]+):(\\d+)/");

    @Autowired
    private ObjectProvider<AuditTrail> auditTrail;
    @Autowired
    OutboxPublisher publisher;
    @Autowired
    OutboxStore store;
    @Autowired
    PublishProperties publishProperties;
    @Autowired
    DatabaseEndpoints endpoints;
    @Autowired
    MeterRegistry meters;
    @Autowired
    EmbeddedPostgresServers servers;
    @Autowired
    RemoteCallOutsideTransaction outsideTransaction;
    @Autowired
    CatalogCredential catalogCredential;

    PublishFixture fixture;
    private final List<String> preparedHere = new ArrayList<>();
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @BeforeEach
    void fixture() {
        fixture = new PublishFixture(api, db, store, meters, servers, outsideTransaction, catalogCredential);
    }

    @AfterEach
    void resolveAndClose() throws Exception {
        for (String gid : preparedHere) {
            if (!db.business().queryForList("select gid from pg_prepared_xacts where gid = ?", String.class, gid).isEmpty()) {
                db.business().execute("rollback prepared '" + gid + "'");
            }
        }
        for (AutoCloseable closeable : closeAfter) {
            closeable.close();
        }
    }

    @Test
    void anOperatorsRepairOfAnEventHeldInDoubtAnswers409SayingSoAndGoesThroughOnceItIsResolved() throws Exception {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);
        String gid = prepareRowLock("select event_id from outbox_event where event_id = ? for update", eventId);

        Api.Response refused = api.post("erin", "/api/admin/outbox/" + eventId + "/give-up", "{\"reason\":\"catalog retired\"}");

        assertThat(refused.status()).as(refused.toString()).isEqualTo(409);
        assertThat(refused.contentType()).contains("application/problem+json");
        assertThat(refused.json().get("code").asString()).isEqualTo("RESOURCE_LOCKED");
        assertThat(refused.json().get("lockedTable").asString()).isEqualTo("outbox_event");
        assertThat(refused.json().get("holder").asString()).isEqualTo("in-doubt");
        // the transaction's identity is for DBAs (issue 29 item 10): an admin gets the reference the log names it under
        assertThat(refused.json().has("heldBy")).isFalse();
        assertThat(refused.json().get("reference").asString()).isNotBlank();
        assertThat(fixture.event(eventId)).containsEntry("event_status", "PENDING");
        assertThat(auditEntriesAbout(eventId)).isZero();

        db.business().execute("rollback prepared '" + gid + "'");
        Api.Response givenUp = api.post("erin", "/api/admin/outbox/" + eventId + "/give-up", "{\"reason\":\"catalog retired\"}");

        assertThat(givenUp.status()).as(givenUp.toString()).isEqualTo(200);
        assertThat(fixture.event(eventId)).containsEntry("event_status", "FAILED").containsEntry("last_error_code", "GIVEN_UP");
        assertThat(fixture.publishStatus(id)).isEqualTo("FAILED");
        assertThat(auditEntriesAbout(eventId)).isOne();
    }

    @Test
    void thePublishersClaimGivesUpOnAnApplicationRowHeldInDoubtAndTheNextPollPublishesOnceItIsResolved() throws Exception {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);
        // as an in-doubt repair of the application would: its row stays locked until the transaction is resolved
        prepareRowLock("select id from application where id = cast(? as bigint) for update", Long.toString(id));

        Throwable failure = catchThrowable(publisher::publishDue);

        assertThat(failure).isInstanceOf(OutboxStore.OutboxUnavailable.class);
        assertThat(sqlState(failure)).as("the lock timeout's SQLState").isEqualTo("55P03");
        assertThat(fixture.event(eventId)).containsEntry("event_status", "PENDING").containsEntry("retry_count", 0);
        assertThat(fixture.publishStatus(id)).isEqualTo("PENDING");

        db.business().execute("rollback prepared '" + preparedHere.get(preparedHere.size() - 1) + "'");
        drain(publisher);

        assertThat(fixture.event(eventId)).containsEntry("event_status", "PUBLISHED");
        assertThat(fixture.publishStatus(id)).isEqualTo("PUBLISHED");
        assertThat(fixture.assetRows(eventId)).isOne();
    }

    @Test
    void thePublishersPoolGivesUpOnADatabaseThatStopsAnsweringMidClaimAndPublishesOnceTheRouteIsBack() throws Exception {
        long id = fixture.approvedApplication();
        String eventId = fixture.eventIdOf(id);
        BlackholeProxy proxy = proxyToBusiness();
        OutboxPublisher behindProxy = publisherThrough(proxy);
        proxy.blackholeWhenClientSends("outbox_event");

        Throwable failure = catchThrowable(behindProxy::publishDue);

        assertThat(failure).isInstanceOf(OutboxStore.OutboxUnavailable.class);
        assertThat(sqlState(failure)).as("a connection failure, not a server's answer").startsWith("08");
        assertThat(fixture.event(eventId)).containsEntry("event_status", "PENDING").containsEntry("retry_count", 0);

        proxy.restore();
        drain(behindProxy);

        assertThat(fixture.event(eventId)).containsEntry("event_status", "PUBLISHED").containsEntry("owner", "behind-proxy.tm");
        assertThat(fixture.publishStatus(id)).isEqualTo("PUBLISHED");
    }

    /** The publisher's own pool, built as the service builds it, on a route to the business database through the proxy. */
    private OutboxPublisher publisherThrough(BlackholeProxy proxy) {
        DatabaseSettings business = endpoints.business();
        String url = HOST_AND_PORT.matcher(business.url()).replaceFirst("//127.0.0.1:" + proxy.port() + "/");
        // short bounds, in the order the startup check wants them, so the wait below ends soon
        DatabaseSettings proxied = new DatabaseSettings(url, business.username(), business.password(), business.vendor(), 2, null,
                Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ofSeconds(2));
        PublishConfiguration configuration = new PublishConfiguration();
        DatabaseEndpoints throughTheProxy = new DatabaseEndpoints(proxied, endpoints.workflow());
        HikariDataSource pool = configuration.publishDataSource(throughTheProxy);
        closeAfter.add(0, pool);
        OutboxStore proxiedStore = configuration.outboxStore(pool, throughTheProxy, publishProperties, auditTrail);
        PublishFixture throughProxy = new PublishFixture(api, db, proxiedStore, meters, servers, outsideTransaction,
                catalogCredential);
        return throughProxy.node("behind-proxy.tm", fixture.inProcessCatalogUrl(), Duration.ofSeconds(10), Duration.ofSeconds(1), 5);
    }

    private BlackholeProxy proxyToBusiness() throws Exception {
        Matcher hostAndPort = HOST_AND_PORT.matcher(endpoints.business().url());
        assertThat(hostAndPort.find()).as(endpoints.business().url()).isTrue();
        BlackholeProxy proxy = new BlackholeProxy(hostAndPort.group(1), Integer.parseInt(hostAndPort.group(2)));
        closeAfter.add(proxy);
        return proxy;
    }

    /** {@code BEGIN; SELECT ... FOR UPDATE; PREPARE TRANSACTION}, as a DBA would from psql; returns the gid. */
    private String prepareRowLock(String lockingSelect, String key) throws SQLException {
        String gid = "outbox-held-in-doubt-" + UUID.randomUUID();
        DatabaseSettings business = endpoints.business();
        try (Connection connection = DriverManager.getConnection(business.url(), business.username(), business.password())) {
            connection.setAutoCommit(false);
            try (PreparedStatement lock = connection.prepareStatement(lockingSelect)) {
                lock.setString(1, key);
                lock.executeQuery().close();
            }
            try (Statement prepare = connection.createStatement()) {
                prepare.execute("prepare transaction '" + gid + "'");
            }
        }
        preparedHere.add(gid);
        return gid;
    }

    private int auditEntriesAbout(String eventId) {
        return db.business().queryForObject("select count(*) from recovery_audit where detail like ?", Integer.class,
                "%outbox event " + eventId + "%");
    }

    private static String sqlState(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql.getSQLState();
            }
        }
        return null;
    }
}
