package dev.lockstep.transactions.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * {@code /actuator/health} is open to anyone, so a flood of it must not cost a database connection per request
 * (issue 29, item 5): the backends of both PostgreSQL servers, counted with plain SQL before, during and after 500
 * concurrent anonymous requests, grow by no more than the pools the health components read through.
 */
@LockstepIntegrationTest
class HealthFloodTest {

    private static final int REQUESTS = 500;
    /**
     * How many more backends health may hold on the business server: one probe runs at a time per component, holding
     * one pooled connection (businessDb, reconciliation, outbox), plus one a background job (the in-doubt scan) may
     * open meanwhile. A connection per request would be bounded by nothing but Tomcat's 200 threads.
     */
    private static final int BUSINESS_ALLOWANCE = 3 + 1;
    /** The workflow server: the workflowDb probe and a background job's connection. */
    private static final int WORKFLOW_ALLOWANCE = 1 + 1;

    @Autowired
    Api api;

    @Autowired
    DatabaseEndpoints endpoints;

    @Test
    void fiveHundredConcurrentAnonymousRequestsOpenNoConnectionsBeyondOnePerProbeAndSeeOnlyTheStatus() throws Exception {
        List<Api.Response> answers = new ArrayList<>();
        try (Server business = new Server("business", endpoints.business(), BUSINESS_ALLOWANCE);
                Server workflow = new Server("workflow", endpoints.workflow(), WORKFLOW_ALLOWANCE)) {
            ExecutorService callers = Executors.newFixedThreadPool(REQUESTS);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Api.Response>> pending = new ArrayList<>();
                for (int i = 0; i < REQUESTS; i++) {
                    pending.add(callers.submit(() -> {
                        start.await();
                        return api.get(null, "/actuator/health");
                    }));
                }
                start.countDown();
                do {
                    business.sample();
                    workflow.sample();
                } while (!pending.stream().allMatch(Future::isDone));
                for (Future<Api.Response> answer : pending) {
                    answers.add(answer.get());
                }
            } finally {
                callers.shutdownNow();
            }
            business.assertBounded();
            workflow.assertBounded();
        }
        for (Api.Response answer : answers) {
            assertThat(answer.status()).as(answer.toString()).isIn(200, 503);
            assertAnonymousAnswer(answer);
        }
    }

    @Test
    void anOperatorSeesEachComponentWithTheAgeOfItsProbeAndAnonymousCallersCannotAskForOne() {
        JsonNode components = api.get("erin", "/actuator/health").json().path("components");

        for (String component : new String[] {"businessDb", "workflowDb", "outbox", "reconciliation"}) {
            assertThat(components.path(component).path("status").asString()).as(component).isEqualTo("UP");
            assertThat(components.path(component).path("details").path("probedAt").asString()).as(component).isNotBlank();
            assertThat(components.path(component).path("details").path("probeAgeMillis").isNumber()).as(component).isTrue();
        }
        Api.Response anonymous = api.get(null, "/actuator/health/businessDb");
        assertThat(anonymous.status()).as(anonymous.toString()).isEqualTo(404);
    }

    /** The status, and the names of the probe groups ({@code /actuator/health/liveness}, {@code /readiness}). */
    static void assertAnonymousAnswer(Api.Response answer) {
        assertThat(answer.json().propertyNames()).as("an anonymous caller sees the status alone: %s", answer)
                .containsOnly("status", "groups");
        assertThat(answer.json().path("groups").valueStream().map(JsonNode::asString)).as(answer.toString())
                .containsExactly("liveness", "readiness");
    }

    /**
     * One PostgreSQL server seen over a plain connection of the test's own (counted in every figure alike): its client
     * backends now and at their highest, and the sessions it has had ({@code pg_stat_database.sessions}, which counts
     * the short-lived connections a sample may miss).
     */
    private static final class Server implements AutoCloseable {

        private final String name;
        private final int allowance;
        private final Connection connection;
        private final int backendsBefore;
        private final long sessionsBefore;
        private int backendsPeak;

        Server(String name, DatabaseSettings database, int allowance) throws SQLException {
            this.name = name;
            this.allowance = allowance;
            this.connection = DriverManager.getConnection(database.url(), database.username(), database.password());
            this.backendsBefore = backends();
            this.sessionsBefore = sessions();
            this.backendsPeak = backendsBefore;
        }

        void sample() throws SQLException {
            backendsPeak = Math.max(backendsPeak, backends());
        }

        void assertBounded() throws SQLException {
            int after = backends();
            long opened = sessions() - sessionsBefore;
            System.out.printf("%s server: client backends %d before, %d at most during the flood, %d after; %d sessions opened%n",
                    name, backendsBefore, backendsPeak, after, opened);
            assertThat(backendsPeak).as("%s backends during the flood (%d before)", name, backendsBefore)
                    .isLessThanOrEqualTo(backendsBefore + allowance);
            assertThat(after).as("%s backends after the flood (%d before)", name, backendsBefore)
                    .isLessThanOrEqualTo(backendsBefore + allowance);
            assertThat(opened).as("%s sessions opened during %d requests", name, REQUESTS).isLessThan(REQUESTS / 10);
        }

        private int backends() throws SQLException {
            return (int) count("select count(*) from pg_stat_activity where backend_type = 'client backend'");
        }

        private long sessions() throws SQLException {
            return count("select coalesce(sum(sessions), 0) from pg_stat_database");
        }

        private long count(String sql) throws SQLException {
            try (Statement statement = connection.createStatement(); ResultSet count = statement.executeQuery(sql)) {
                count.next();
                return count.getLong(1);
            }
        }

        @Override
        public void close() throws SQLException {
            connection.close();
        }
    }
}
