package dev.lockstep.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.approval.ApplicationRepository;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.businessonly.BusinessOnlyTransactions;
import dev.lockstep.transactions.xa.XaPool;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * When every connection of a pool (an XA pool, or the business-only one) is taken and none comes free
 * within the borrow timeout, the client gets 503 DATABASE_BUSY with Retry-After — an overload answer it can act on — and nothing is
 * written. (Seen in the recovery benchmark under 100 concurrent submits: it was a 500 INTERNAL_ERROR.) When the
 * database ended the pool's sessions, 503 DATABASE_UNAVAILABLE, and nothing is written either.
 */
@LockstepIntegrationTest
class DatabaseBusyTest {

    private static final String DRAFT = """
            {"title": "While the pool is full", "assetId": 5, "amount": 10.00, "riskLevel": "LOW", "sensitive": false}""";

    @Autowired Api api;
    @Autowired TestDatabases db;
    @Autowired PlatformTransactionManager transactions;
    @Autowired @Qualifier(BusinessOnlyTransactions.MANAGER) PlatformTransactionManager businessOnly;
    @Autowired @Qualifier("businessDataSource") XaPool businessPool;
    @Autowired ApplicationRepository applications;

    /** A submit needs the business XA pool (its key, the row lock, the binding). */
    @Test
    void aFullXaPoolAnswers503DatabaseBusyAndWritesNothing() throws Exception {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String key = UUID.randomUUID().toString();

        Api.Response busy = whileEveryConnectionIsHeld(transactions, () -> new JdbcTemplate(businessPool)
                .queryForObject("select 1", Integer.class), () -> api.post("alice", "/api/applications/" + id + "/submit", null, key));

        assertBusy(busy);
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("DRAFT");
        assertThat(db.business().queryForObject("select count(*) from workflow_command where request_id = ?", Integer.class, key))
                .isZero();
        assertThat(api.post("alice", "/api/applications/" + id + "/submit", null, key).status()).isEqualTo(200);
    }

    /** Creating a draft borrows from the business-only pool (a local transaction): the same answer when that one is full. */
    @Test
    void aFullBusinessOnlyPoolAnswers503DatabaseBusyAndWritesNothing() throws Exception {
        long applicationsBefore = db.business().queryForObject("select count(*) from application", Long.class);

        Api.Response busy = whileEveryConnectionIsHeld(businessOnly, applications::count,
                () -> api.post("alice", "/api/applications", DRAFT, null));

        assertBusy(busy);
        assertThat(db.business().queryForObject("select count(*) from application", Long.class)).isEqualTo(applicationsBefore);
        assertThat(api.post("alice", "/api/applications", DRAFT, null).status()).isEqualTo(201);
    }

    /**
     * A restart ends the server's sessions; HikariCP lends a connection used within the last 500 ms without
     * validating it, so the next draft can run on a dead one. That answers 503 DATABASE_UNAVAILABLE and writes
     * nothing, and the next attempt works. (It was a 500 INTERNAL_ERROR: the rollback on the pool's already closed
     * connection failed, and that failure hid the lost connection.)
     */
    @Test
    void aSessionTheServerEndedAnswers503DatabaseUnavailableAndWritesNothing() throws Exception {
        Set<Integer> backends = ConcurrentHashMap.newKeySet();
        JdbcTemplate businessOnlyConnection = new JdbcTemplate(((JpaTransactionManager) businessOnly).getDataSource());
        // every connection of the pool used just now, so none is validated at its next borrow
        whileEveryConnectionIsHeld(businessOnly, () -> backends.add(businessOnlyConnection.queryForObject(
                "select pg_backend_pid()", Integer.class)), () -> null);
        long applicationsBefore = db.business().queryForObject("select count(*) from application", Long.class);
        String pids = backends.stream().map(String::valueOf).collect(Collectors.joining(","));
        assertThat(db.business().queryForObject("select count(pg_terminate_backend(pid)) from pg_stat_activity where pid in ("
                + pids + ")", Integer.class)).isEqualTo(backends.size());
        awaitAllGone(pids);

        Api.Response lost = api.post("alice", "/api/applications", DRAFT, null);

        assertThat(lost.status()).as(lost.toString()).isEqualTo(503);
        assertThat(lost.json().get("code").asString()).isEqualTo("DATABASE_UNAVAILABLE");
        assertThat(lost.header("Retry-After")).isEqualTo("1");
        assertThat(db.business().queryForObject("select count(*) from application", Long.class)).isEqualTo(applicationsBefore);
        // each dead connection fails one request at most and is thrown away; none answers anything but 503 or 201
        List<Integer> statuses = new ArrayList<>();
        for (int attempt = 0; attempt <= backends.size() && !statuses.contains(201); attempt++) {
            statuses.add(api.post("alice", "/api/applications", DRAFT, null).status());
        }
        assertThat(statuses).isSubsetOf(503, 201).endsWith(201);
    }

    private void awaitAllGone(String pids) throws InterruptedException {
        for (int poll = 0; poll < 100; poll++) {
            if (db.business().queryForObject("select count(*) from pg_stat_activity where pid in (" + pids + ")", Integer.class) == 0) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("backends " + pids + " still there");
    }

    private static void assertBusy(Api.Response busy) {
        assertThat(busy.status()).as(busy.toString()).isEqualTo(503);
        assertThat(busy.json().get("code").asString()).isEqualTo("DATABASE_BUSY");
        assertThat(busy.header("Retry-After")).isEqualTo("1");
    }

    /** Both pools hold as many connections as the business XA pool. */
    private Api.Response whileEveryConnectionIsHeld(PlatformTransactionManager manager, Runnable useConnection,
            Supplier<Api.Response> request) throws InterruptedException {
        int poolSize = businessPool.maxSize();
        CountDownLatch holding = new CountDownLatch(poolSize);
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> holders = new ArrayList<>();
        for (int i = 0; i < poolSize; i++) {
            Thread holder = new Thread(() -> holdOneConnection(manager, useConnection, holding, release));
            holder.start();
            holders.add(holder);
        }
        try {
            assertThat(holding.await(90, TimeUnit.SECONDS)).as("the test holds every pooled connection").isTrue();
            return request.get();
        } finally {
            release.countDown();
            for (Thread holder : holders) {
                holder.join(30_000);
            }
        }
    }

    /**
     * Takes one pooled connection and keeps it in a transaction until released. The shared service may
     * hold connections for a while (startup recovery scans): a holder that finds the pool empty tries
     * again, so once all have one the pool is the test's alone.
     */
    private static void holdOneConnection(PlatformTransactionManager manager, Runnable useConnection, CountDownLatch holding,
            CountDownLatch release) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(80);
        while (release.getCount() > 0 && System.nanoTime() < deadline) {
            try {
                new TransactionTemplate(manager).executeWithoutResult(status -> {
                    useConnection.run();
                    holding.countDown();
                    await(release);
                });
                return;
            } catch (RuntimeException poolEmptyForNow) {
                // someone else holds a connection beyond the borrow timeout; it will give it back
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
