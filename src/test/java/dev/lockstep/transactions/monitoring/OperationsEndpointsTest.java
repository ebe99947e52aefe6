package dev.lockstep.transactions.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import com.atomikos.icatch.event.EventListener;
import com.atomikos.icatch.event.transaction.ParticipantHeuristicEvent;
import com.atomikos.publish.EventPublisher;
import com.atomikos.recovery.TxState;
import dev.lockstep.approval.ApiFlows;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.xa.XaPool;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.activiti.spring.SpringProcessEngineConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.jta.JtaTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/** Health and metrics as an operator reads them: over HTTP, checked against the databases themselves. */
@LockstepIntegrationTest
class OperationsEndpointsTest {

    @Autowired
    Api api;

    @Autowired
    TestDatabases databases;

    @Autowired
    JtaTransactionManager transactionManager;

    @Autowired
    @Qualifier("businessDataSource")
    XaPool businessPool;

    @Autowired
    @Qualifier("workflowDataSource")
    XaPool workflowPool;

    @Autowired
    SpringProcessEngineConfiguration engine;

    /**
     * The engine's job executor (step deadlines) polls for due jobs in short JTA transactions of its
     * own, one-phase on the workflow database: these tests count transactions and branch calls exactly.
     */
    @BeforeEach
    void pauseJobExecutor() {
        engine.getAsyncExecutor().shutdown();
    }

    @AfterEach
    void resumeJobExecutor() {
        engine.getAsyncExecutor().start();
    }

    @Test
    void anyoneSeesTheOverallStatusButNoComponent() {
        Api.Response response = api.get(null, "/actuator/health");

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        assertThat(response.json().path("status").asString()).isEqualTo("UP");
        HealthFloodTest.assertAnonymousAnswer(response);
        // an approver is not an operator either
        HealthFloodTest.assertAnonymousAnswer(api.get("bob", "/actuator/health"));
    }

    @Test
    void operatorsSeeBothXaResourcesAndTheTransactionManagerInDetail() {
        Api.Response response = api.get("erin", "/actuator/health");

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        JsonNode components = response.json().path("components");
        assertThat(response.json().path("status").asString()).isEqualTo("UP");

        JsonNode business = components.path("businessDb");
        assertThat(business.path("status").asString()).isEqualTo("UP");
        assertThat(business.path("details").path("resource").asString()).isEqualTo("business-db");
        assertThat(business.path("details").path("vendor").asString()).isEqualTo("POSTGRESQL");
        assertThat(business.path("details").path("url").asString()).contains("/lockstep_business");
        assertThat(business.path("details").path("poolTotal").asInt()).isPositive();
        assertThat(business.path("details").has("poolAvailable")).isTrue();

        JsonNode workflow = components.path("workflowDb");
        assertThat(workflow.path("status").asString()).isEqualTo("UP");
        assertThat(workflow.path("details").path("resource").asString()).isEqualTo("workflow-db");
        assertThat(workflow.path("details").path("url").asString()).contains("/lockstep_workflow");

        JsonNode manager = components.path("transactionManager");
        assertThat(manager.path("status").asString()).isEqualTo("UP");
        assertThat(manager.path("details").path("uniqueName").asString()).isEqualTo("lockstep-it.tm");
        assertThat(manager.path("details").path("running").asBoolean()).isTrue();
        assertThat(manager.path("details").path("logDirWritable").asBoolean()).isTrue();
        assertThat(manager.path("details").path("logDir").asString()).endsWith("atomikos");
        assertThat(manager.path("details").path("pendingTransactions").isNumber()).isTrue();
    }

    /** A transaction prepared by hand in the business database is counted there, and only there. */
    @Test
    void healthAndMetricsCountThePreparedTransactionsOfEachDatabase() {
        JdbcTemplate business = databases.business();
        String gid = "health-probe-" + System.nanoTime();
        try {
            business.execute((ConnectionCallback<Void>) connection -> {
                connection.setAutoCommit(false);
                try (var statement = connection.createStatement()) {
                    statement.execute("select 1");
                    statement.execute("prepare transaction '" + gid + "'");
                }
                connection.setAutoCommit(true);
                return null;
            });
            JsonNode components = api.get("dba1", "/actuator/health").json().path("components");

            assertThat(components.path("businessDb").path("details").path("preparedTransactions").asLong())
                    .isEqualTo(countPrepared(business));
            assertThat(countPrepared(business)).isGreaterThanOrEqualTo(1);
            assertThat(components.path("workflowDb").path("details").path("preparedTransactions").asLong())
                    .isEqualTo(countPrepared(databases.workflow()));
            String metrics = scrape();
            assertThat(gauge(metrics, "lockstep_xa_prepared_transactions", "business-db")).isEqualTo(countPrepared(business));
            assertThat(gauge(metrics, "lockstep_xa_prepared_transactions", "workflow-db"))
                    .isEqualTo(countPrepared(databases.workflow()));
        } finally {
            business.execute("rollback prepared '" + gid + "'");
        }
    }

    @Test
    void prometheusListsThePoolGaugesAndCountsCommitsAndRollbacks() {
        double committedBefore = jtaCount(scrape(), "committed");
        double rolledBackBefore = jtaCount(scrape(), "rolled_back");

        TransactionTemplate transaction = new TransactionTemplate(transactionManager);
        transaction.executeWithoutResult(status -> new JdbcTemplate(businessPool).queryForObject("select 1", Integer.class));
        transaction.executeWithoutResult(status -> {
            new JdbcTemplate(businessPool).queryForObject("select 1", Integer.class);
            status.setRollbackOnly();
        });
        String metrics = scrape();

        assertThat(gauge(metrics, "lockstep_xa_pool_size", "business-db")).isEqualTo(businessPool.totalSize());
        assertThat(gauge(metrics, "lockstep_xa_pool_size", "workflow-db")).isEqualTo(workflowPool.totalSize());
        assertThat(gauge(metrics, "lockstep_xa_pool_available", "business-db")).isEqualTo(businessPool.availableSize());
        assertThat(gauge(metrics, "lockstep_xa_pool_available", "workflow-db")).isEqualTo(workflowPool.availableSize());
        assertThat(jtaCount(metrics, "committed")).isEqualTo(committedBefore + 1);
        assertThat(jtaCount(metrics, "rolled_back")).isEqualTo(rolledBackBefore + 1);
    }

    /**
     * The XA phase timers: a submit spans both databases (each branch prepared, then committed in the
     * second phase, one coordinator decision between); reading the application touches the business
     * database alone and runs in a local transaction of it, so it makes no XA branch call at all.
     */
    @Test
    void xaPhaseTimersCountTwoPhaseWritesAndNoBranchForBusinessOnlyReads() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        String beforeSubmit = scrape();
        ApiFlows.submit(api, id);
        String afterSubmit = scrape();
        assertThat(api.get("alice", "/api/applications/" + id).status()).isEqualTo(200);
        String afterRead = scrape();

        for (String resource : new String[] {"business-db", "workflow-db"}) {
            assertThat(branchCount(afterSubmit, "prepare", resource)).isEqualTo(branchCount(beforeSubmit, "prepare", resource) + 1);
            assertThat(branchCount(afterSubmit, "commit-two-phase", resource))
                    .isEqualTo(branchCount(beforeSubmit, "commit-two-phase", resource) + 1);
            assertThat(branchCount(afterRead, "prepare", resource)).isEqualTo(branchCount(afterSubmit, "prepare", resource));
        }
        assertThat(count(afterSubmit, "lockstep_xa_decision_seconds_count"))
                .isEqualTo(count(beforeSubmit, "lockstep_xa_decision_seconds_count") + 1);
        assertThat(branchCount(afterRead, "commit-one-phase", "business-db"))
                .isEqualTo(branchCount(afterSubmit, "commit-one-phase", "business-db"));
    }

    /**
     * Atomikos finds the listener through the ServiceLoader and it counts into the registries Prometheus
     * reads. (Fed directly: publishing a made-up heuristic event to Atomikos would reach every listener.)
     */
    @Test
    void heuristicOutcomesAreCountedInPrometheus() {
        assertThat(ServiceLoader.load(EventListener.class, EventPublisher.class.getClassLoader()).stream()
                .map(ServiceLoader.Provider::type)).contains(HeuristicOutcomeMetrics.class);
        String heuristics = "lockstep_jta_heuristics_total\\{[^}]*scope=\"participant\"[^}]*state=\"HEUR_HAZARD\"[^}]*\\}";
        Matcher before = series(scrape(), heuristics);
        // there before the first outcome, so that increase() in an alert counts that one too
        assertThat(before.find()).as("every scope and heuristic state is exported from the start").isTrue();
        double counted = Double.parseDouble(before.group(1));

        new HeuristicOutcomeMetrics().eventOccurred(
                new ParticipantHeuristicEvent("lockstep-it.tm-probe", "business-db-probe", TxState.HEUR_HAZARD));

        assertThat(value(scrape(), heuristics)).isEqualTo(counted + 1);
    }

    private String scrape() {
        Api.Response response = api.get("erin", "/actuator/prometheus", "text/plain");
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        return response.body();
    }

    private static long countPrepared(JdbcTemplate database) {
        return database.queryForObject("select count(*) from pg_prepared_xacts where database = current_database()",
                Long.class);
    }

    private static double gauge(String metrics, String name, String resource) {
        return value(metrics, name + "\\{[^}]*resource=\"" + resource + "\"[^}]*\\}");
    }

    private static double jtaCount(String metrics, String outcome) {
        return value(metrics, "lockstep_jta_transactions_seconds_count\\{[^}]*outcome=\"" + outcome + "\"[^}]*\\}");
    }

    private static double branchCount(String metrics, String phase, String resource) {
        return count(metrics, "lockstep_xa_branch_seconds_count\\{[^}]*phase=\"" + phase + "\"[^}]*resource=\"" + resource
                + "\"[^}]*\\}");
    }

    /** A timer's count, zero before its first recording (the series appears with it). */
    private static double count(String metrics, String series) {
        Matcher matcher = series(metrics, series);
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
    }

    private static double value(String metrics, String series) {
        Matcher matcher = series(metrics, series);
        assertThat(matcher.find()).as("%s in%n%s", series, metrics).isTrue();
        return Double.parseDouble(matcher.group(1));
    }

    private static Matcher series(String metrics, String series) {
        return Pattern.compile("(?m)^" + series + " (\\S+)$").matcher(metrics);
    }
}
