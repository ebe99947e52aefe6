package dev.lockstep.chaos.longrun;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.ChaosHarness;
import dev.lockstep.chaos.ChaosSuite;
import dev.lockstep.chaos.LoadClients;
import dev.lockstep.chaos.LoadClients.Request;
import dev.lockstep.chaos.LoadClients.Verdicts;
import dev.lockstep.chaos.report.ComplianceReport;
import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The soak (issue 14, item 8): the service is killed -9 every 20-40 s of uptime (drawn from a seed that
 * is printed; {@code -Dchaos.soak.seed=} repeats the schedule) and restarted on the same coordinator log,
 * for {@code -Dchaos.soak.minutes} (10), while {@code -Dchaos.soak.clients} (16) clients take applications
 * through every use case ({@link LoadClients#everyUseCase}). A client that gets no answer sends the same
 * request with the same Idempotency-Key again until the restarted service answers. At the end every
 * request has a final answer, and the business database, read with plain SQL, holds every acknowledged
 * request in full, nothing of a refused one, and nothing else (no duplicate, no change no client was told
 * of); nothing is prepared on either server after the recovery window; the suite's invariants hold.
 * Opt-in, too long for CI: {@code mvn -Pchaos,chaos-long verify -Dit.test=SoakChaosIT} (docs/compliance.md).
 */
class SoakChaosIT extends ChaosSuite {

    private static final int NUMBER = 60;
    private static final Duration RECOVERY_WINDOW = Duration.ofSeconds(120);

    @BeforeAll
    static void startDatabases() {
        h = new ChaosHarness();
    }

    /** One kill: how long the service had been up, what was prepared when it died, and how long until all of that was resolved. */
    private static final class Kill {
        final int number;
        final long killedAt = System.nanoTime();
        final Duration uptime;
        final int exitCode;
        final Set<String> inDoubt;
        /** Coordinator-log records without TERMINATED at the kill: decisions recovery has to finish. */
        final List<String> pendingDecisions;
        Duration answeredAfter;
        Duration recoveredAfter;

        Kill(int number, Duration uptime, int exitCode, Set<String> inDoubt, List<String> pendingDecisions) {
            this.number = number;
            this.uptime = uptime;
            this.exitCode = exitCode;
            this.inDoubt = inDoubt;
            this.pendingDecisions = pendingDecisions;
        }

        /** Distinct global transactions among the in-doubt branches ("database gid"; pgjdbc's gid is formatId_gtrid_bqual). */
        long transactions() {
            return inDoubt.stream().map(g -> g.substring(g.indexOf(' ') + 1).split("_")[1]).distinct().count();
        }

        @Override
        public String toString() {
            return "kill " + number + " after " + ChaosHarness.seconds(uptime) + " up (exit code " + exitCode + "): "
                    + inDoubt.size() + " prepared branch(es) of " + transactions() + " transaction(s) in doubt, "
                    + pendingDecisions.size() + " coordinator-log record(s) without TERMINATED; answered HTTP again after "
                    + ChaosHarness.seconds(answeredAfter) + ", all of them resolved after "
                    + (recoveredAfter == null ? "-" : ChaosHarness.seconds(recoveredAfter));
        }
    }

    @Test
    void serviceKilledEveryTwentyToFortySecondsUnderEveryUseCase() throws Exception {
        long seed = Long.getLong("chaos.soak.seed", System.nanoTime());
        Duration length = Duration.ofMinutes(Long.getLong("chaos.soak.minutes", 10));
        int clients = Integer.getInteger("chaos.soak.clients", 16);
        ScenarioRecord s = REPORT.begin(NUMBER, "Soak: service killed -9 every 20-40 s for " + length.toMinutes() + " min under "
                        + clients + " clients doing every use case",
                "Any point of any use case: requests of every kind in flight when the JVM gets SIGKILL, again and again",
                "Process.destroyForcibly() (SIGKILL) of the service JVM 20-40 s (seeded) after each restart answered HTTP;"
                        + " restart on the same Atomikos log, SHORT timings; clients resend unanswered requests with the same"
                        + " Idempotency-Key",
                "Every request acknowledged (2xx) is in full in the business database (command record and effect), every"
                        + " refused one is absent, no other change and no duplicate; every transaction in doubt at a kill is"
                        + " resolved, nothing prepared after the recovery window; the whole-database invariants hold.");
        s.useCase = "every use case";
        s.note("the clients' use cases: create, submit, final decision, join decision, return, countersign vote, withdraw");
        String repeat = "seed " + seed + " (repeat with -Dchaos.soak.seed=" + seed + ")";
        s.note(repeat);
        ComplianceReport.progress("soak: " + repeat + ", " + length.toMinutes() + " min, " + clients + " clients");

        h.ensureService(Timeouts.SHORT);
        Random schedule = new Random(seed);
        LoadClients load = LoadClients.everyUseCase(h.client, clients, seed);
        load.start();
        List<Kill> kills = new ArrayList<>();
        long end = System.nanoTime() + length.toNanos();
        long upSince = System.nanoTime();
        while (true) {
            long killAt = upSince + Duration.ofSeconds(20 + schedule.nextInt(21)).toNanos();
            while (System.nanoTime() < Math.min(killAt, end)) {
                watchRecovery(kills);
                ChaosHarness.sleep(250);
            }
            if (killAt > end) {
                break;
            }
            Duration uptime = Duration.ofNanos(System.nanoTime() - upSince);
            h.service.kill9();
            Kill kill = new Kill(kills.size() + 1, uptime, h.service.awaitExit(Duration.ofSeconds(5)), h.preparedGids(),
                    h.coordinatorLog());
            kills.add(kill);
            h.ensureService(Timeouts.SHORT);
            upSince = System.nanoTime();
            kill.answeredAfter = Duration.ofNanos(upSince - kill.killedAt);
            watchRecovery(kills);
            ComplianceReport.progress("soak: " + kill + "; " + load.requests().size() + " requests so far");
        }
        load.stopAndJoin();
        h.awaitNoPrepared(RECOVERY_WINDOW);
        watchRecovery(kills);
        s.preparedAfterRecovery = h.prepared();

        List<Request> requests = load.requests();
        Verdicts verdicts;
        try (Connection b = h.business.connect()) {
            verdicts = LoadClients.verdicts(b, requests);
        }
        s.clientAnswer = load.summary();
        kills.forEach(k -> s.note(k.toString()));
        s.faultFired = kills.stream().map(k -> "kill " + k.number + ": service JVM ended with exit code " + k.exitCode
                + " after " + ChaosHarness.seconds(k.uptime) + " up; prepared at the kill: " + (k.inDoubt.isEmpty() ? "none" : k.inDoubt)
                + "; coordinator-log records without TERMINATED: " + (k.pendingDecisions.isEmpty() ? "none" : k.pendingDecisions))
                .collect(Collectors.joining("\n"));
        s.timeToRecoveryMillis = kills.stream().filter(k -> k.recoveredAfter != null)
                .mapToLong(k -> k.recoveredAfter.toMillis()).max().orElse(0);
        s.rowsAfterRecovery.put("all databases", h.invariants(s, false).counts());
        long acknowledged = requests.stream().filter(r -> r.answer().succeeded()).count();
        // unknown: the kill cut the request off in flight; a resend with the same key told the client what became of it
        long unknown = requests.stream().filter(r -> r.unknownThenResolved() && r.cutOffInFlight()).count();
        long unknownReplayed = requests.stream().filter(r -> r.unknownThenResolved() && r.cutOffInFlight() && r.answer().replayed()).count();
        long unknownRanAgain = requests.stream().filter(r -> r.unknownThenResolved() && r.cutOffInFlight() && r.answer().succeeded()
                && !r.answer().replayed()).count();
        long sentWhileDown = requests.stream().filter(r -> r.unknownThenResolved() && !r.cutOffInFlight()).count();
        s.observedOutcome = requests.size() + " requests: " + acknowledged + " acknowledged, "
                + requests.stream().filter(r -> r.answer().answered() && !r.answer().succeeded()).count() + " refused, "
                + unknown + " unknown then resolved with the same key (" + unknownReplayed + " had committed and were replayed, "
                + unknownRanAgain + " had not and ran afresh, " + (unknown - unknownReplayed - unknownRanAgain) + " refused), "
                + sentWhileDown + " first sent while the service was down and resent, "
                + requests.stream().filter(r -> !r.answer().answered()).count() + " never answered; "
                + kills.size() + " kills; " + kills.stream().mapToLong(Kill::transactions).sum() + " in-doubt transactions ("
                + kills.stream().mapToInt(k -> k.inDoubt.size()).sum() + " prepared branches) recovered, "
                + kills.stream().mapToInt(k -> k.pendingDecisions.size()).sum() + " coordinator-log records without TERMINATED at the kills;"
                + " time to recover per kill: "
                + kills.stream().map(k -> k.recoveredAfter == null ? "-" : ChaosHarness.seconds(k.recoveredAfter))
                        .collect(Collectors.joining(", ")) + "; " + verdicts;
        String refusals = requests.stream().filter(r -> r.answer().answered() && !r.answer().succeeded())
                .collect(Collectors.groupingBy(r -> r.kind() + " " + r.answer().status() + " " + r.answer().json().path("code").asString(),
                        java.util.TreeMap::new, Collectors.counting())).toString();
        s.note("refusals by kind, status and code: " + refusals);
        ComplianceReport.progress("soak: " + s.observedOutcome);
        ComplianceReport.progress("soak: refusals by kind, status and code: " + refusals);
        ComplianceReport.progress("soak: " + s.clientAnswer.replace("\n", "; "));

        assertThat(kills).as("the service was killed at least once").isNotEmpty();
        assertThat(kills).as("each kill ended the JVM by SIGKILL (exit code 128 + 9)").allMatch(k -> k.exitCode == 137);
        assertThat(requests).as("refused requests (the withdraw after a decision), whose absence is checked")
                .anyMatch(r -> r.answer().answered() && !r.answer().succeeded());
        assertThat(requests.stream().filter(r -> !r.answer().answered()).map(Request::toString).toList())
                .as("requests that never got an answer").isEmpty();
        assertThat(verdicts.missing()).as("acknowledged but not held in full").isEmpty();
        assertThat(verdicts.leaked()).as("refused but held, in full or in part").isEmpty();
        assertThat(verdicts.unasked()).as("changes no client was told of (duplicates or phantoms)").isEmpty();
        assertThat(kills.stream().filter(k -> k.recoveredAfter == null).map(Kill::toString).toList())
                .as("kills whose in-doubt transactions were never resolved").isEmpty();
        assertThat(s.preparedAfterRecovery).as("prepared after the recovery window").isEmpty();
        assertThat(s.invariantViolations).as("whole-database invariants").isEmpty();
    }

    /** Marks each kill whose in-doubt branches are all gone from pg_prepared_xacts, once the service answered again. */
    private static void watchRecovery(List<Kill> kills) {
        Set<String> prepared = null;
        for (Kill kill : kills) {
            if (kill.recoveredAfter == null && kill.answeredAfter != null) {
                prepared = prepared != null ? prepared : h.preparedGids();
                if (kill.inDoubt.stream().noneMatch(prepared::contains)) {
                    kill.recoveredAfter = Duration.ofNanos(System.nanoTime() - kill.killedAt);
                }
            }
        }
    }
}
