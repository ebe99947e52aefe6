package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import com.atomikos.datasource.xa.XATransactionalResource;
import com.atomikos.icatch.config.Configuration;
import com.atomikos.icatch.jta.UserTransactionManager;
import dev.lockstep.approval.ApiFlows;
import dev.lockstep.support.Api;
import dev.lockstep.support.InjectedFaults;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.PassiveXaResource;
import dev.lockstep.support.TestDatabases;
import java.util.UUID;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A real heuristic outcome: a third XA participant, enlisted in a submit over HTTP, prepares and then
 * answers its commit with XA_HEURRB (it rolled back on its own) while both databases commit. The commit
 * ends with Atomikos's HeurMixedException (its open-source build publishes no event for it: the use
 * case that sees the exception reports it).
 */
@LockstepIntegrationTest
class HeuristicOutcomeTest {

    private static final String PROBE = "heuristic-probe";

    @Autowired Api api;
    @Autowired TestDatabases databases;
    @Autowired InjectedFaults faults;
    @Autowired UserTransactionManager atomikos;

    @AfterEach
    void cleanUp() {
        faults.disarmAll();
        Configuration.removeResource(PROBE);
    }

    /**
     * Expected: the client gets 500 TRANSACTION_OUTCOME_UNKNOWN; the intent is journaled HEURISTIC (not
     * COMMITTED or ROLLED_BACK) and listed as a HEUR_MIXED heuristic event; a retry with the same Idempotency-Key is
     * refused with 409 TRANSACTION_OUTCOME_BEING_RESOLVED instead of replaying the stored 200.
     */
    @Test
    void aHeuristicOutcomeIsJournaledAsHeuristicAndItsKeyIsNotReplayedAsASuccess() {
        XAResource heuristicRollback = new HeuristicRollbackParticipant();
        Configuration.addResource(new XATransactionalResource(PROBE) {
            @Override
            protected XAResource refreshXAConnection() {
                return heuristicRollback;
            }
        });
        long id = ApiFlows.createDraft(api, "LOW", false);
        String key = UUID.randomUUID().toString();
        faults.afterCall("approvalProcess", "start", () -> {
            try {
                atomikos.getTransaction().enlistResource(heuristicRollback);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        Api.Response submitted = api.post("alice", "/api/applications/" + id + "/submit", null, key);

        assertThat(submitted.status()).as(submitted.toString()).isEqualTo(500);
        assertThat(submitted.json().get("code").asString()).isEqualTo("TRANSACTION_OUTCOME_UNKNOWN");
        assertThat(databases.business().queryForObject("select status from recovery_intent where request_id = ?",
                String.class, key)).isEqualTo("HEURISTIC");
        String gtrid = databases.business().queryForObject("select gtrid from recovery_intent where request_id = ?",
                String.class, key);
        assertThat(databases.business().queryForList("select state from recovery_heuristic_event where gtrid = ?",
                String.class, gtrid)).containsExactly("HEUR_MIXED");
        // both databases did commit: the stored response is a 200 that must not be handed out as the outcome
        assertThat(databases.business().queryForObject("select response_status from workflow_command where request_id = ?",
                Integer.class, key)).isEqualTo(200);

        Api.Response retried = api.post("alice", "/api/applications/" + id + "/submit", null, key);

        assertThat(retried.status()).as(retried.toString()).isEqualTo(409);
        assertThat(retried.json().get("code").asString()).isEqualTo("TRANSACTION_OUTCOME_BEING_RESOLVED");
        assertThat(retried.header("Idempotent-Replayed")).isNull();
    }

    /** Votes yes, then reports that it rolled back on its own instead of committing. */
    private static final class HeuristicRollbackParticipant extends PassiveXaResource {

        @Override
        public int prepare(Xid xid) {
            return XA_OK;
        }

        @Override
        public void commit(Xid xid, boolean onePhase) throws XAException {
            throw new XAException(XAException.XA_HEURRB);
        }

    }
}
