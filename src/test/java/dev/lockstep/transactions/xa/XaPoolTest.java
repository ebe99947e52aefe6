package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The XA pools' contract with the transactions that use them, read from the databases themselves: one connection
 * (one backend, one branch) per database per transaction however often it is borrowed, both branches prepared and
 * committed by two-phase commit, the configured timeouts on every connection, no connection outside a transaction,
 * and a connection that died in the pool replaced at the borrow instead of lent out.
 */
@LockstepIntegrationTest
class XaPoolTest {

    @Autowired TestDatabases db;
    @Autowired DatabaseEndpoints endpoints;
    @Autowired PlatformTransactionManager transactions;
    @Autowired @Qualifier("businessDataSource") XaPool business;
    @Autowired @Qualifier("workflowDataSource") XaPool workflow;

    @Test
    void everyBorrowInOneTransactionGetsTheSameBackendAndTheTransactionCommitsOnBothDatabases() {
        List<Integer> businessBackends = new ArrayList<>();
        List<Integer> workflowBackends = new ArrayList<>();
        List<Long> transactionIds = new ArrayList<>();

        new TransactionTemplate(transactions).executeWithoutResult(status -> {
            for (int borrow = 0; borrow < 3; borrow++) {
                businessBackends.add(new JdbcTemplate(business).queryForObject("select pg_backend_pid()", Integer.class));
                workflowBackends.add(new JdbcTemplate(workflow).queryForObject("select pg_backend_pid()", Integer.class));
            }
            // a write on each side, so that both branches are prepared and committed (two-phase, not one-phase)
            transactionIds.add(new JdbcTemplate(business).queryForObject("select txid_current()", Long.class));
            transactionIds.add(new JdbcTemplate(workflow).queryForObject("select txid_current()", Long.class));
        });

        assertThat(businessBackends).hasSize(3).containsOnly(businessBackends.get(0));
        assertThat(workflowBackends).hasSize(3).containsOnly(workflowBackends.get(0));
        assertThat(db.business().queryForObject("select txid_status(?)", String.class, transactionIds.get(0))).isEqualTo("committed");
        assertThat(db.workflow().queryForObject("select txid_status(?)", String.class, transactionIds.get(1))).isEqualTo("committed");
    }

    @Test
    void aRolledBackTransactionLeavesNothingOnEitherDatabase() {
        List<Long> transactionIds = new ArrayList<>();

        new TransactionTemplate(transactions).executeWithoutResult(status -> {
            transactionIds.add(new JdbcTemplate(business).queryForObject("select txid_current()", Long.class));
            transactionIds.add(new JdbcTemplate(workflow).queryForObject("select txid_current()", Long.class));
            status.setRollbackOnly();
        });

        assertThat(db.business().queryForObject("select txid_status(?)", String.class, transactionIds.get(0))).isEqualTo("aborted");
        assertThat(db.workflow().queryForObject("select txid_status(?)", String.class, transactionIds.get(1))).isEqualTo("aborted");
    }

    /**
     * A transaction of its own inside another (REQUIRES_NEW, as the engine's timer-job acquisition does): the outer
     * one's branches are suspended meanwhile, which pgjdbc cannot do; both still commit, each on its own backend.
     */
    @Test
    void aTransactionOfItsOwnInsideAnotherLeavesBothCommitted() {
        TransactionTemplate inner = new TransactionTemplate(transactions);
        inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        List<Long> outerIds = new ArrayList<>();
        List<Long> innerIds = new ArrayList<>();

        new TransactionTemplate(transactions).executeWithoutResult(status -> {
            outerIds.add(new JdbcTemplate(business).queryForObject("select txid_current()", Long.class));
            outerIds.add(new JdbcTemplate(workflow).queryForObject("select txid_current()", Long.class));
            inner.executeWithoutResult(nested -> {
                innerIds.add(new JdbcTemplate(business).queryForObject("select txid_current()", Long.class));
                innerIds.add(new JdbcTemplate(workflow).queryForObject("select txid_current()", Long.class));
            });
            // the outer branches resumed: the same server transactions go on
            assertThat(new JdbcTemplate(business).queryForObject("select txid_current()", Long.class)).isEqualTo(outerIds.get(0));
            assertThat(new JdbcTemplate(workflow).queryForObject("select txid_current()", Long.class)).isEqualTo(outerIds.get(1));
        });

        assertThat(innerIds).doesNotContainAnyElementsOf(outerIds);
        for (List<Long> ids : List.of(outerIds, innerIds)) {
            assertThat(db.business().queryForObject("select txid_status(?)", String.class, ids.get(0))).isEqualTo("committed");
            assertThat(db.workflow().queryForObject("select txid_status(?)", String.class, ids.get(1))).isEqualTo("committed");
        }
    }

    /** Whichever way a transaction ends, its connections are back in the pools afterwards. */
    @Test
    void everyConnectionComesBackWhateverWayItsTransactionEnded() {
        TransactionTemplate transaction = new TransactionTemplate(transactions);
        for (int round = 0; round < 3; round++) {
            // two-phase commit, one-phase commit (one database), rollback-only, an exception
            transaction.executeWithoutResult(status -> {
                new JdbcTemplate(business).queryForObject("select txid_current()", Long.class);
                new JdbcTemplate(workflow).queryForObject("select txid_current()", Long.class);
            });
            transaction.executeWithoutResult(status -> new JdbcTemplate(business).queryForObject("select txid_current()", Long.class));
            transaction.executeWithoutResult(status -> {
                new JdbcTemplate(workflow).queryForObject("select txid_current()", Long.class);
                status.setRollbackOnly();
            });
            assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
                new JdbcTemplate(business).queryForObject("select 1", Integer.class);
                new JdbcTemplate(workflow).queryForObject("select no_such_column from no_such_table", Integer.class);
            })).isInstanceOf(BadSqlGrammarException.class);
        }

        // the engine's job acquisition borrows now and then on its own thread: wait out such a moment, not a leak
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(business.totalSize() - business.availableSize()).as("business connections still out").isZero();
            assertThat(workflow.totalSize() - workflow.availableSize()).as("workflow connections still out").isZero();
        });
    }

    @Test
    void theConnectionsCarryTheConfiguredLockAndStatementTimeouts() {
        DatabaseSettings settings = endpoints.business();

        List<Long> millis = new TransactionTemplate(transactions).execute(status -> new JdbcTemplate(business).queryForList(
                "select (extract(epoch from current_setting(name)::interval) * 1000)::bigint from"
                        + " (values (1, 'lock_timeout'), (2, 'statement_timeout')) settings(position, name) order by position",
                Long.class));

        assertThat(millis).containsExactly(settings.lockTimeout().toMillis(), settings.statementTimeout().toMillis());
    }

    @Test
    void noConnectionOutsideATransaction() {
        assertThatThrownBy(() -> {
            try (Connection connection = business.getConnection()) {
                connection.createStatement().execute("select 1");
            }
        }).isInstanceOf(SQLException.class).hasMessageContaining("JTA transaction is required");
    }

    @Test
    void aConnectionThatDiedInThePoolIsReplacedAtTheBorrow() {
        int backend = new TransactionTemplate(transactions).execute(status ->
                new JdbcTemplate(business).queryForObject("select pg_backend_pid()", Integer.class));
        // the connection is back in the pool; its server process goes away, as in a server restart or a cut network
        assertThat(db.business().queryForObject("select pg_terminate_backend(?)", Boolean.class, backend)).isTrue();
        awaitGone(backend);

        // however the pool picks (it first hands a thread the connection it had last), no transaction gets the dead one
        List<Integer> next = new ArrayList<>();
        for (long transaction = 0; transaction <= business.totalSize(); transaction++) {
            next.add(new TransactionTemplate(transactions).execute(status ->
                    new JdbcTemplate(business).queryForObject("select pg_backend_pid()", Integer.class)));
        }

        assertThat(next).doesNotContain(backend);
    }

    private void awaitGone(int backend) {
        for (int poll = 0; poll < 100; poll++) {
            if (db.business().queryForObject("select count(*) from pg_stat_activity where pid = ?", Integer.class, backend) == 0) {
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        throw new AssertionError("backend " + backend + " still there");
    }
}
