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
        CountDownLatch settled = new CountDownLatch(poolSize);
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> holders = new ArrayList<>();
        for (int i = 0; i < poolSize; i++) {
            Thread holder = new Thread(() -> {
                try {
                    new TransactionTemplate(transactions).executeWithoutResult(status -> {
                        // the connection stays enlisted in this global transaction until it ends
                        new JdbcTemplate(businessPool).queryForObject("select 1", Integer.class);
                        settled.countDown();
                        await(release);
                    });
                } catch (RuntimeException poolAlreadyEmpty) {
                    // another part of the shared service held a connection: the pool is full all the same
                    settled.countDown();
                }
            });
            holder.start();
            holders.add(holder);
        }
        long applicationsBefore;
        Api.Response busy;
        try {
            // every holder has a connection, or found none within the borrow timeout: the pool is empty
            assertThat(settled.await(60, TimeUnit.SECONDS)).as("every holder settled").isTrue();
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

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
