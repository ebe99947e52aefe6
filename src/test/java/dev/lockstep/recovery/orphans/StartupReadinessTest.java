package dev.lockstep.recovery.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.recovery.PreparedBranches;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.SecondNode;
import dev.lockstep.support.ServiceProcess;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.xa.DecodedXid;
import dev.lockstep.transactions.xa.PgGidCodec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.json.JsonMapper;

/**
 * Scenario: a node restarts after a crash beside a branch it prepared and never decided, and a Byteman rule
 * holds its startup recovery pass for 5 s before it ends that branch. Expected: readiness
 * ({@code /actuator/health/readiness}) never answers 200 while the branch is still prepared — the test polls it from
 * the moment the JVM starts and reads pg_prepared_xacts after every answer — and answers 200 once the pass has rolled
 * the branch back (its audit rows say so); liveness answers 200 too; the gauge
 * {@code lockstep_recovery_startup_seconds} shows the pass took at least the hold.
 */
@LockstepIntegrationTest
class StartupReadinessTest {

    private static final String NODE = "ready-n7.tm";
    private static final String PASSWORD = UUID.randomUUID().toString();
    private static final Duration HOLD = Duration.ofSeconds(5);
    private static final Pattern STARTUP_GAUGE = Pattern.compile("(?m)^lockstep_recovery_startup_seconds(?:\\{[^}]*\\})? (\\S+)$");

    @Autowired TestDatabases db;
    @Autowired DatabaseEndpoints endpoints;

    @AfterEach
    void rollBackLeftovers() {
        PreparedBranches.rollBackAll(db.business(), db.workflow());
        db.business().update("delete from application where title = 'in-doubt test'");
    }

    @Test
    void readinessIsDownUntilTheStartupRecoveryPassHasEndedTheNodesOwnBranch() throws Exception {
        Path home = Path.of("target", "readiness-test", UUID.randomUUID().toString().substring(0, 8)).toAbsolutePath();
        try (ServiceProcess first = ServiceProcess.start(home, environment()).awaitUp()) {
            // a two-phase transaction, so the coordinator log has records: only a used log proves a previous life
            long draft = JsonMapper.builder().build().readTree(first.post("/api/applications", basic("ann"), """
                    {"title": "Before the restart", "assetId": 3, "amount": 10.00, "riskLevel": "LOW", "sensitive": false}
                    """).body()).get("id").asLong();
            assertThat(first.post("/api/applications/" + draft + "/submit", basic("ann"), null).statusCode()).isEqualTo(200);
            first.kill(); // a crash: the log stays as the last transaction left it
        }
        String orphan = NODE + (System.currentTimeMillis() - Duration.ofHours(1).toMillis()) + "00001";
        new PreparedBranches(endpoints).prepareOnBusiness(PreparedBranches.xid(DecodedXid.ATOMIKOS_FORMAT_ID, orphan, NODE + "1"));
        assertThat(stillPrepared(orphan)).isTrue();

        Path rules = home.resolve("hold-the-pass.btm");
        Files.writeString(rules, """
                RULE hold the startup recovery pass before it ends a branch
                CLASS dev.lockstep.recovery.orphans.StartupBranchResolution
                METHOD end
                AT ENTRY
                IF true
                DO traceln("READINESS-TEST holding the startup recovery pass");
                   delay(%d)
                ENDRULE
                """.formatted(HOLD.toMillis()));
        List<String> answers = new ArrayList<>();
        try (ServiceProcess restarted = ServiceProcess.start(home, environment(), List.of(SecondNode.bytemanAgent(rules)))) {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            int status = 0;
            while (status != 200 && System.nanoTime() < deadline) {
                status = readiness(http, restarted);
                boolean prepared = stillPrepared(orphan);
                answers.add(status + (prepared ? " while prepared" : " after the pass"));
                assertThat(status == 200 && prepared).as("readiness UP while the pass had not ended the branch: %s", answers)
                        .isFalse();
                Thread.sleep(100);
            }
            assertThat(status).as("readiness answers %s; console:%n%s", answers, restarted.output()).isEqualTo(200);
            assertThat(restarted.output()).contains("READINESS-TEST holding the startup recovery pass");
            assertThat(answers).as("polled while the pass was held").anyMatch(answer -> answer.endsWith("while prepared"));
            assertThat(db.business().queryForList(
                    "select action from recovery_audit where gtrid = ? and actor = 'startup-recovery' order by seq",
                    String.class, orphan)).containsExactly("ORPHAN_ROLLBACK_INTENDED", "ORPHAN_ROLLBACK_ROLLED_BACK");
            assertThat(restarted.get("/actuator/health/liveness", null).statusCode()).isEqualTo(200);

            String metrics = restarted.get("/actuator/prometheus", basic("ops")).body();
            Matcher gauge = STARTUP_GAUGE.matcher(metrics);
            assertThat(gauge.find()).as("lockstep_recovery_startup_seconds in %s", metrics).isTrue();
            assertThat(Double.parseDouble(gauge.group(1))).as("the pass took at least the hold")
                    .isGreaterThanOrEqualTo(HOLD.toSeconds());
        }
    }

    /** The readiness status, or 0 while nothing listens. */
    private static int readiness(HttpClient http, ServiceProcess service) throws InterruptedException {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(service.baseUrl() + "/actuator/health/readiness"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException notListening) {
            return 0;
        }
    }

    private boolean stillPrepared(String gtrid) {
        return db.preparedTransactions().stream().anyMatch(row -> PgGidCodec.decode((String) row.get("gid"))
                .map(DecodedXid::gtridText).filter(gtrid::equals).isPresent());
    }

    private static String basic(String user) {
        return ServiceProcess.basic(user, PASSWORD);
    }

    private Map<String, String> environment() {
        Map<String, String> environment = ServiceProcess.externalModeOn(endpoints, NODE);
        environment.put("LOCKSTEP_SECURITY_USERS_0_NAME", "ann");
        environment.put("LOCKSTEP_SECURITY_USERS_0_PASSWORD", "{noop}" + PASSWORD);
        environment.put("LOCKSTEP_SECURITY_USERS_0_ROLES", "APPLICANT");
        environment.put("LOCKSTEP_SECURITY_USERS_1_NAME", "ops");
        environment.put("LOCKSTEP_SECURITY_USERS_1_PASSWORD", "{noop}" + PASSWORD);
        environment.put("LOCKSTEP_SECURITY_USERS_1_ROLES", "ADMIN");
        return environment;
    }
}
