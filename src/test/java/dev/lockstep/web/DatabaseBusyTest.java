package dev.lockstep.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.atomikos.jdbc.AtomikosDataSourceBean;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * When every connection of an XA pool is taken and none comes free within the borrow timeout, the
 * client gets 503 DATABASE_BUSY with Retry-After — an overload answer it can act on — and nothing is
 * written. (Seen in the recovery benchmark under 100 concurrent submits: it was a 500 INTERNAL_ERROR.)
 */
@LockstepIntegrationTest
class DatabaseBusyTest {

    private static final String DRAFT = """
            {"title": "While the pool is full", "assetId": 5, "amount": 10.00, "riskLevel": "LOW", "sensitive": false}""";

    @Autowired Api api;
    @Autowired TestDatabases db;
    @Autowired PlatformTransactionManager transactions;
    @Autowired @Qualifier("businessDataSource") AtomikosDataSourceBean businessPool;

    @Test
    void aFullPoolAnswers503DatabaseBusyAndWritesNothing() throws Exception {
        int poolSize = businessPool.getMaxPoolSize();
        CountDownLatch holding = new CountDownLatch(poolSize);
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> holders = new ArrayList<>();
        for (int i = 0; i < poolSize; i++) {
            Thread holder = new Thread(() -> holdOneConnection(holding, release));
            holder.start();
            holders.add(holder);
        }
        long applicationsBefore;
        Api.Response busy;
        try {
            assertThat(holding.await(90, TimeUnit.SECONDS)).as("the test holds every pooled connection").isTrue();
            applicationsBefore = db.business().queryForObject("select count(*) from application", Long.class);
            busy = api.post("alice", "/api/applications", DRAFT, null);
        } finally {
            release.countDown();
            for (Thread holder : holders) {
                holder.join(30_000);
            }
        }

        assertThat(busy.status()).as(busy.toString()).isEqualTo(503);
        assertThat(busy.json().get("code").asString()).isEqualTo("DATABASE_BUSY");
        assertThat(busy.header("Retry-After")).isEqualTo("1");
        assertThat(db.business().queryForObject("select count(*) from application", Long.class)).isEqualTo(applicationsBefore);
        assertThat(api.post("alice", "/api/applications", DRAFT, null).status()).isEqualTo(201);
    }

    /**
     * Takes one pooled connection and keeps it enlisted in a global transaction until released. The
     * shared service may hold connections for a while (startup recovery scans): a holder that finds the
     * pool empty tries again, so once all have one the pool is the test's alone.
     */
    private void holdOneConnection(CountDownLatch holding, CountDownLatch release) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(80);
        while (release.getCount() > 0 && System.nanoTime() < deadline) {
            try {
                new TransactionTemplate(transactions).executeWithoutResult(status -> {
                    new JdbcTemplate(businessPool).queryForObject("select 1", Integer.class);
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
