package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.atomikos.datasource.xa.XATransactionalResource;
import com.atomikos.icatch.config.Configuration;
import com.atomikos.icatch.jta.UserTransactionManager;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.PassiveXaResource;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.xa.PgGidCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** The business intent is committed before any branch is prepared and readable while they are. */
@LockstepIntegrationTest
class IntentJournalTest {

    @Autowired IntentJournal journal;
    @Autowired TestDatabases databases;
    @Autowired PlatformTransactionManager transactions;
    @Autowired UserTransactionManager atomikos;
    @Autowired @Qualifier("businessDataSource") DataSource businessXa;
    @Autowired @Qualifier("workflowDataSource") DataSource workflowXa;

    @Test
    void theIntentIsReadableWhileTheBranchesArePreparedAndMarkedCommittedAfterwards() {
        PreparedPhaseProbe probe = new PreparedPhaseProbe(databases);
        // Atomikos only enlists XAResources that belong to a registered resource
        Configuration.addResource(new XATransactionalResource("intent-probe") {
            @Override
            protected XAResource refreshXAConnection() {
                return probe;
            }
        });
        String gtrid;
        try {
            gtrid = commitWithIntentAndProbe(probe);
        } finally {
            Configuration.removeResource("intent-probe");
        }

        assertThat(probe.seenGtrid).isEqualTo(gtrid);
        assertThat(probe.intentWhilePrepared).singleElement().satisfies(row -> {
            assertThat(row.get("use_case")).isEqualTo("submit");
            assertThat(row.get("business_key")).isEqualTo("application-77");
            assertThat(row.get("request_id")).isEqualTo("req-77");
            assertThat(row.get("user_id")).isEqualTo("alice");
            assertThat(row.get("status")).isEqualTo("PREPARING");
        });
        assertThat(probe.preparedGidsWhilePrepared).anyMatch(gid -> PgGidCodec.decode(gid)
                .map(xid -> xid.gtridText().equals(gtrid)).orElse(false));
        assertThat(databases.business().queryForObject("select status from recovery_intent where gtrid = ?", String.class,
                gtrid)).isEqualTo("COMMITTED");
        databases.business().update("delete from application where title = 'journal test'");
    }

    private String commitWithIntentAndProbe(XAResource probe) {
        return new TransactionTemplate(transactions).execute(status -> {
            new JdbcTemplate(businessXa).update("""
                    insert into application (title, asset_id, amount, risk_level, sensitive, applicant_id, approval_status,
                        publish_status, created_at, updated_at)
                    values ('journal test', 1, 10, 'LOW', false, 'alice', 'APPROVING', 'NOT_STARTED', now(), now())
                    """);
            new JdbcTemplate(workflowXa).queryForObject("select 1", Integer.class);
            journal.record("submit", "application-77", "req-77", "alice");
            try {
                atomikos.getTransaction().enlistResource(probe);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return Configuration.getCompositeTransactionManager().getCompositeTransaction().getTid();
        });
    }

    @Test
    void aRolledBackTransactionLeavesNoIntent() {
        List<String> gtrid = new ArrayList<>();
        new TransactionTemplate(transactions).executeWithoutResult(status -> {
            new JdbcTemplate(workflowXa).queryForObject("select 1", Integer.class);
            journal.record("withdraw", "application-78", "req-78", "bob");
            gtrid.add(Configuration.getCompositeTransactionManager().getCompositeTransaction().getTid());
            status.setRollbackOnly();
        });
        assertThat(databases.business().queryForObject("select count(*) from recovery_intent where gtrid = ?", Integer.class,
                gtrid.get(0))).isZero();
    }

    @Test
    void recordingOutsideATransactionIsABug() {
        assertThatThrownBy(() -> journal.record("claim", "application-79", "req-79", "carol"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("active JTA transaction");
    }

    /**
     * A third XA participant enlisted last: in its prepare, once the two database branches are prepared
     * (Atomikos prepares all branches at once, lockstep.tm.parallel-commit), it looks at both from outside,
     * exactly as a DBA would during an outage.
     */
    static final class PreparedPhaseProbe extends PassiveXaResource {

        private final TestDatabases databases;
        String seenGtrid;
        List<Map<String, Object>> intentWhilePrepared = List.of();
        List<String> preparedGidsWhilePrepared = List.of();

        PreparedPhaseProbe(TestDatabases databases) {
            this.databases = databases;
        }

        @Override
        public int prepare(Xid xid) {
            databases.awaitPrepared(xid, 2, java.time.Duration.ofSeconds(10));
            seenGtrid = new String(xid.getGlobalTransactionId(), StandardCharsets.US_ASCII);
            intentWhilePrepared = databases.business().queryForList(
                    "select use_case, business_key, request_id, user_id, status from recovery_intent where gtrid = ?", seenGtrid);
            preparedGidsWhilePrepared = databases.preparedTransactions().stream().map(row -> (String) row.get("gid")).toList();
            return XA_OK;
        }

    }

}
