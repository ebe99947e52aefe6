package dev.lockstep.transactions.businessonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.approval.Application;
import dev.lockstep.approval.ApplicationRepository;
import dev.lockstep.approval.RiskLevel;
import dev.lockstep.approval.application.ApplicationQueries;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.security.Roles;
import dev.lockstep.support.Api;
import dev.lockstep.support.UseCaseIntegrationTest;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Work on the business database alone (creating a draft, the application view, the todo list) runs in a
 * local transaction on the business-only pool, with its Idempotency-Key record in the same transaction;
 * work that also needs the workflow database cannot run on that path, nor the path inside a JTA one.
 */
class BusinessOnlyTransactionsTest extends UseCaseIntegrationTest {

    @Autowired
    MeterRegistry meters;
    @Autowired
    PlatformTransactionManager jta;
    @Autowired
    @Qualifier(BusinessOnlyTransactions.MANAGER)
    PlatformTransactionManager businessOnly;
    @Autowired
    ApplicationRepository applications;
    @Autowired
    ApplicationQueries queries;
    @Autowired
    ApprovalProcess process;

    @Test
    void createReadAndTodoBorrowFromTheBusinessOnlyPoolAndOpenNoXaBranch() {
        double xaBranchCalls = xaBranchCalls("business-db");
        long borrows = businessOnlyBorrows();

        long id = ApiFlows.createDraft(api, "LOW", false);
        assertThat(api.get("alice", "/api/applications/" + id).status()).isEqualTo(200);
        assertThat(api.get("bob", "/api/tasks").status()).isEqualTo(200);

        assertThat(businessOnlyBorrows() - borrows).isEqualTo(3);
        assertThat(xaBranchCalls("business-db")).isEqualTo(xaBranchCalls);
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("DRAFT");
    }

    @Test
    void aCreateRepeatedUnderItsKeyIsReplayedAndRunsOnce() {
        String key = UUID.randomUUID().toString();
        String title = "replayed " + key;

        Api.Response first = create("alice", title, key);
        Api.Response again = create("alice", title, key);

        assertThat(first.status()).as(first.toString()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(draftsTitled(title)).isEqualTo(1);
        assertThat(db.business().queryForObject("select command_status || ' ' || business_id from workflow_command"
                + " where request_id = ?", String.class, key)).isEqualTo("SUCCEEDED " + first.json().get("id").asLong());
    }

    @Test
    void aCreateRacingWithItselfUnderOneKeyRunsOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        String title = "raced " + key;

        List<Api.Response> answers = ApiFlows.race(() -> create("alice", title, key), () -> create("alice", title, key));

        assertThat(answers).extracting(Api.Response::status).containsExactly(201, 201);
        assertThat(answers.get(0).body()).isEqualTo(answers.get(1).body());
        assertThat(draftsTitled(title)).isEqualTo(1);
    }

    /** The key's claim, the draft and the stored answer are one local transaction: a failure after the insert leaves none. */
    @Test
    void aCreateFailingAfterItsInsertLeavesNeitherTheDraftNorItsKey() {
        String key = UUID.randomUUID().toString();
        String title = "failed " + key;
        faults.failAfter("applicationRepository", "saveAndFlush");

        Api.Response failed = create("alice", title, key);

        assertThat(failed.status()).as(failed.toString()).isEqualTo(500);
        assertThat(draftsTitled(title)).isZero();
        assertThat(db.business().queryForObject("select count(*) from workflow_command where request_id = ?", Integer.class, key))
                .isZero();
    }

    /**
     * A business write and an engine call put on the local path fail together: the JTA manager refuses to
     * begin inside a business-only transaction, so neither database keeps anything.
     */
    @Test
    void workThatAlsoNeedsTheWorkflowDatabaseFailsOnTheBusinessOnlyPath() {
        String title = "two databases " + UUID.randomUUID();
        long[] draft = new long[1];

        assertThatThrownBy(() -> new TransactionTemplate(businessOnly).executeWithoutResult(status -> {
            draft[0] = applications.saveAndFlush(draft(title)).getId();
            process.start(Long.toString(draft[0]), "alice", false, "LOW", null, 0);
        })).isInstanceOf(IllegalTransactionStateException.class).hasMessageContaining("inside a business-only transaction");

        assertThat(draft[0]).isPositive();
        assertThat(draftsTitled(title)).isZero();
        assertThat(db.engineRowsForBusinessKey(draft[0])).isZero();
    }

    /** Inside a use case's JTA transaction the local path would write beside its XA branch: refused, and the use case rolls back. */
    @Test
    void theBusinessOnlyPathRefusesToRunInsideAJtaTransaction() {
        String title = "inside jta " + UUID.randomUUID();
        Caller alice = new Caller("alice", Set.of(Roles.APPLICANT), Set.of());

        assertThatThrownBy(() -> new TransactionTemplate(jta).executeWithoutResult(status ->
                queries.details(applications.saveAndFlush(draft(title)).getId(), alice)))
                .isInstanceOf(IllegalTransactionStateException.class).hasMessageContaining("inside another transaction");

        assertThat(draftsTitled(title)).isZero();
    }

    private Api.Response create(String user, String title, String key) {
        return api.post(user, "/api/applications", """
                {"title": "%s", "assetId": 42, "amount": 100, "riskLevel": "LOW", "sensitive": false}
                """.formatted(title), key);
    }

    private static Application draft(String title) {
        return Application.draft(title, null, 42, new BigDecimal("100"), RiskLevel.LOW, false, null, "alice", Instant.now());
    }

    private int draftsTitled(String title) {
        return db.business().queryForObject("select count(*) from application where title = ?", Integer.class, title);
    }

    private long businessOnlyBorrows() {
        return meters.get("hikaricp.connections.usage").tag("pool", "business-only").timer().count();
    }

    private static double xaBranchCalls(String resource) {
        return Metrics.globalRegistry.find("lockstep.xa.branch").tag("resource", resource).timers().stream()
                .mapToDouble(Timer::count).sum();
    }
}
