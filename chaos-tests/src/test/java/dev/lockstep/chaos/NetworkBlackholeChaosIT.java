package dev.lockstep.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.LockstepClient;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import dev.lockstep.chaos.support.TcpProxy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A network blackhole to one database during a submit's prepare or commit (issue 14, item 4): the test's TCP
 * proxy stops forwarding the moment the service sends {@code PREPARE TRANSACTION} or {@code COMMIT PREPARED},
 * keeping every socket open and withholding (and counting) every byte, as a dead route does. Only the service's
 * own timeouts can end the wait: this harness runs it with a socket timeout of {@value #SOCKET_TIMEOUT_SECONDS} s
 * (statement 5 s, lock 2 s) and a connect timeout of {@value #CONNECT_TIMEOUT_SECONDS} s, so the client's answer is
 * bounded by them, not by the outage. The route comes back
 * after {@link #OUTAGE}; then recovery finishes, and a retry with the same Idempotency-Key shows that the stored
 * answer matches what the databases hold.
 */
class NetworkBlackholeChaosIT extends ChaosSuite {

    static final int SOCKET_TIMEOUT_SECONDS = 8;
    /** Bounds a new connection's login too: Atomikos opens one to end a branch whose connection broke. */
    static final int CONNECT_TIMEOUT_SECONDS = 4;
    static final int OLTP_RETRIES = 2;
    static final Duration OLTP_RETRY_INTERVAL = Duration.ofSeconds(2);
    /**
     * How long the route stays dead once the statement was seen: longer than everything the request may wait on,
     * the socket timeout on the stalled statement and then, per in-request retry of the second phase, the retry
     * interval and the connect timeout (8 + 2 x (2 + 4) = 20 s, plus a lock Atomikos's recovery thread may hold for
     * one login), so that an answer the client hears before the heal is bounded by the service's settings.
     */
    static final Duration OUTAGE = Duration.ofSeconds(60);
    /** A LONG transaction-manager decision waits for its record to expire (90 s) before recovery replays it. */
    static final Duration RECOVERY_WINDOW = Duration.ofSeconds(240);

    @BeforeAll
    static void startDatabases() throws IOException {
        h = new ChaosHarness();
        boundTheWaits(h);
    }

    /**
     * The settings that bound what a blackholed request waits for, on every service JVM of {@code harness}: the
     * socket, statement, lock and connect timeouts, and Atomikos's in-request retries of the second phase.
     */
    static void boundTheWaits(ChaosHarness harness) throws IOException {
        // Atomikos retries a failed commit or rollback in the request thread before it leaves the branch to recovery;
        // each retry waits the interval and then at most the connect timeout for a new connection. Production's
        // 5 x 10 s (xa-config/atomikos/transactions-prod.properties) would outlast any affordable outage here.
        Path atomikos = Files.writeString(harness.work.resolve("atomikos-blackhole.properties"), """
                com.atomikos.icatch.oltp_max_retries=%d
                com.atomikos.icatch.oltp_retry_interval=%d
                """.formatted(OLTP_RETRIES, OLTP_RETRY_INTERVAL.toMillis()));
        harness.serviceSettings.add("--lockstep.tm.properties-file=" + atomikos);
        for (String db : List.of("business", "workflow")) {
            harness.serviceSettings.addAll(List.of(
                    "--lockstep.db." + db + ".lock-timeout=2s",
                    "--lockstep.db." + db + ".statement-timeout=5s",
                    "--lockstep.db." + db + ".socket-timeout=" + SOCKET_TIMEOUT_SECONDS + "s",
                    "--lockstep.db." + db + ".connect-timeout=" + CONNECT_TIMEOUT_SECONDS + "s"));
        }
    }

    @ParameterizedTest(name = "{0}. blackhole to the {1} database at {2}")
    @CsvSource({
            "51, business, PREPARE TRANSACTION",
            "52, workflow, PREPARE TRANSACTION",
            "53, business, COMMIT PREPARED",
            "54, workflow, COMMIT PREPARED"})
    @DisplayName("Network blackhole to one database during prepare or commit -> the socket timeout fires, the client hears a"
            + " bounded honest answer, recovery finishes after the heal, a retry with the same key matches the truth")
    void blackholeDuringTwoPhaseCommit(int number, String database, String statement) throws Exception {
        boolean atCommit = statement.startsWith("COMMIT");
        ScenarioRecord s = REPORT.begin(number, "Network blackhole to the " + database + " database at " + statement,
                "A submit's " + statement + " on the " + database + " database is sent when the route to that database dies"
                        + " (sockets stay open, nothing arrives, nothing is answered)",
                "The service reaches each database through a TCP proxy in the test; from the first chunk carrying '" + statement
                        + "' the " + database + " proxy withholds every byte on every connection, new ones included, for "
                        + OUTAGE.toSeconds() + " s, then closes the connections it held and forwards again",
                (atCommit
                        ? "The commit decision was logged, so the submit commits on both databases: the client's answer is not a"
                                + " refusal, recovery commits the stalled branch after the heal, and the retry replays the success"
                        : "The prepare fails on the socket timeout, so the submit rolls back on both: the client gets a clear"
                                + " error, nothing of the submit is left after the heal, and the retry submits afresh")
                        + "; the client hears within the socket timeout's bound, never waits for the outage to end.");
        TcpProxy proxy = "business".equals(database) ? h.businessProxy : h.workflowProxy;
        assumeFalse(proxy == null, "an external " + database + " database is reached without the test's proxy");
        h.ensureService(Timeouts.LONG);
        long app = h.client.createDraft("chaos blackhole " + number);
        s.rowsBefore.putAll(h.rows(app));
        String key = LockstepClient.newKey();

        proxy.blackholeWhenSent(statement);
        long submitted = System.nanoTime();
        AtomicLong answeredAt = new AtomicLong();
        CompletableFuture<Answer> submit = CompletableFuture.supplyAsync(() -> {
            Answer heard = h.client.submit(app, key);
            answeredAt.set(System.nanoTime());
            return heard;
        });
        long healed;
        try {
            ChaosHarness.awaitTrue(proxy::blackholed, Duration.ofSeconds(60), statement + " was never sent to the " + database + " database");
            ChaosHarness.sleep(OUTAGE.toMillis());
            s.preparedAfterFault = h.prepared();
            s.coordinatorLogAfterFault = h.coordinatorLog();
            s.rowsAfterFault.putAll(h.rows(app));
        } finally {
            healed = System.nanoTime();
            proxy.heal();
        }
        s.faultFired = "the " + database + " proxy saw '" + statement + "' and withheld " + proxy.withheldBytes()
                + " bytes over " + OUTAGE.toSeconds() + " s with the connections kept open";
        assertThat(proxy.withheldBytes()).as("the blackhole stalled real traffic").isPositive();
        Answer answer = submit.get(120, TimeUnit.SECONDS);
        long answeredAfterMillis = Duration.ofNanos(answeredAt.get() - submitted).toMillis();
        boolean answeredDuringOutage = answeredAt.get() < healed;
        s.clientAnswer = answer + " after " + answeredAfterMillis + " ms, " + (answeredDuringOutage ? "during" : "after") + " the outage";

        h.awaitNoPrepared(RECOVERY_WINDOW);
        s.timeToRecoveryMillis = Duration.ofNanos(System.nanoTime() - healed).toMillis();
        assertThat(answer.answered()).as("the client hears an answer, not its own timeout").isTrue();
        assertThat(answeredDuringOutage).as("the service's timeouts, not the end of the outage, ended the wait: " + s.clientAnswer).isTrue();
        if (atCommit) {
            h.expectCommitted(s, app);
            assertThat(answer.status() < 400 || answer.status() >= 500).as("no refusal of a submit that committed: " + answer).isTrue();
        } else {
            h.expectRolledBack(s, app);
            ChaosHarness.expectClearError(answer);
        }

        // the client retries with the same key, as the answer tells it to; the replay must match the truth
        Answer retry = h.submitFollowingRetryAfter(s, app, key);
        String retried;
        if (retry.succeeded()) {
            assertThat(retry.replayed()).as("a replay only of a submit that committed; a rolled-back one runs afresh: " + retry)
                    .isEqualTo(atCommit);
            retried = retry.replayed() ? "the same key replayed the stored success" : "the same key submitted afresh";
        } else {
            // after an "unknown" first answer the intent journal may say HEURISTIC: the same key then gives neither a
            // stored result nor a new run, and the client reads the application and acts on what it shows
            assertThat(answer.json().path("code").asString()).as("only an unknown outcome is refused on retry: " + retry)
                    .isEqualTo("TRANSACTION_OUTCOME_UNKNOWN");
            assertThat(retry.status()).as(retry.toString()).isEqualTo(409);
            assertThat(retry.json().path("code").asString()).isEqualTo("TRANSACTION_OUTCOME_BEING_RESOLVED");
            String status = h.client.application(app).json().path("approvalStatus").asString();
            assertThat(status).as("the application shows the truth").isEqualTo(atCommit ? "APPROVING" : "DRAFT");
            retried = "the same key answered 409 TRANSACTION_OUTCOME_BEING_RESOLVED; the application read " + status;
            if (!atCommit) {
                Answer fresh = h.submitFollowingRetryAfter(s, app, LockstepClient.newKey());
                assertThat(fresh.succeeded()).as("a submit with a new key after reading DRAFT: " + fresh).isTrue();
                retried += "; a new key submitted it";
            }
        }
        s.note("after recovery: " + retried);
        s.rowsAfterRecovery.clear();
        h.expectCommitted(s, app);
        s.observedOutcome = "client heard HTTP " + answer.status() + " after " + answeredAfterMillis + " ms (outage "
                + OUTAGE.toSeconds() + " s, socket timeout " + SOCKET_TIMEOUT_SECONDS + " s); " + s.observedOutcome
                + "; " + retried + "; one process";
    }
}
