package dev.lockstep.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lockstep.chaos.LoadClients.Held;
import dev.lockstep.chaos.LoadClients.Kind;
import dev.lockstep.chaos.LoadClients.Request;
import dev.lockstep.chaos.LoadClients.Sent;
import dev.lockstep.chaos.LoadClients.Verdicts;
import dev.lockstep.chaos.report.ComplianceReport;
import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.HaProxy;
import dev.lockstep.chaos.support.LockstepClient;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.ServiceProcess;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A cluster of three service nodes (cluster-1.tm, cluster-2.tm, cluster-3.tm: each its own transaction-manager name,
 * HTTP port and home) on the same two databases, behind a real HAProxy the test starts (round robin, each node checked
 * on {@code /actuator/health/readiness}, a request whose connection failed or that got no answer sent again to another
 * node: {@code retry-on conn-failure empty-response}, {@code retries 2}, {@code option redispatch}). The coordinator
 * log is in the business database ({@code lockstep.tm.log=database}) and the leases are short, so a peer takes a dead
 * node's name over within seconds: heartbeat every 2 s, lease 10 s, takeover pass every 2 s.
 *
 * <ul>
 * <li>150: under 8 clients, one node halted for good in phase two (its workflow branch still prepared, the decision
 * logged): a survivor takes its name over and finishes its transactions within 30 s of the lease's expiry, every
 * acknowledged request is held in full and nothing twice, and the retry of each request the halt cut off is clean.</li>
 * <li>151: the zombie. A node frozen (SIGSTOP) with a submit's decision logged and both branches prepared; a survivor
 * takes its name over and commits them; thawed (SIGCONT), it writes nothing under its old epoch, resolves nothing,
 * and stops with exit code 3 and "FENCED:".</li>
 * <li>152: a rolling restart (SIGTERM, wait for the exit, start, ready, next) of all three under 8 clients: no
 * request fails as the clients see it, nothing prepared at the end.</li>
 * </ul>
 *
 * Needs {@code haproxy} on the PATH ({@code apt-get install haproxy}, which {@code .ci/run} does); without it every
 * scenario is skipped and says so. CI runs 150, the takeover; 151 and 152 are long and run with the opt-in profile:
 * {@code mvn -Pchaos,chaos-long verify -Dit.test=ClusterChaosIT} runs all three (docs/compliance.md).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterChaosIT extends ChaosSuite {

    private static final List<String> NAMES = List.of("cluster-1.tm", "cluster-2.tm", "cluster-3.tm");
    /** Every node's settings on top of the suite's: the database log, short leases and a short drain. */
    private static final List<String> CLUSTER_SETTINGS = List.of(
            // a peer can finish only what a dead node logged where it can read it
            ServiceProcess.TM_LOG_SETTING + "database",
            "--lockstep.recovery.heartbeat-interval=2s",
            "--lockstep.recovery.heartbeat-timeout=10s",
            "--lockstep.recovery.takeover-interval=2s",
            "--lockstep.recovery.known-nodes=" + String.join(",", NAMES),
            // requests here take well under a second: a short drain keeps the rolling restart quick
            "--spring.lifecycle.timeout-per-shutdown-phase=5s");
    private static final Duration TAKEOVER_LIMIT = Duration.ofSeconds(30);
    private static final int CLIENTS = 8;
    private static final Optional<Path> HAPROXY = HaProxy.executable();

    /** One node of the cluster: its name, its JVM, and the directory whose files arm its own Byteman rules. */
    private record Node(String tm, ServiceProcess process, Path armDir, Path rules) {
    }

    private static final Map<String, Node> nodes = new LinkedHashMap<>();
    private static HaProxy haproxy;
    /** The clients' way in: through HAProxy. */
    private static LockstepClient client;
    /** Every request any client of this class sent, so that each verdict sees every change the databases hold. */
    private static final List<Request> allRequests = Collections.synchronizedList(new ArrayList<>());

    @AfterAll
    static void stopHaproxy() {
        if (haproxy != null) {
            haproxy.close();
            haproxy = null;
        }
        nodes.clear();
    }

    /** Skips the scenario without HAProxy; otherwise starts what is not running: databases, nodes, HAProxy. */
    private static void requireCluster() {
        assumeTrue(HAPROXY.isPresent(), "haproxy is not on the PATH (apt-get install haproxy): the cluster scenarios need a real"
                + " load balancer in front of the three nodes");
        if (h == null) {
            h = new ChaosHarness();
            h.describe(REPORT);
        }
        if (nodes.isEmpty()) {
            for (String name : NAMES) {
                Path armDir = h.work().resolve("armed-" + name);
                nodes.put(name, new Node(name, h.newNode(name, CLUSTER_SETTINGS), armDir, h.rulesArmedIn(armDir)));
            }
        }
        List<Node> down = nodes.values().stream().filter(n -> !n.process().isAlive()).toList();
        if (!down.isEmpty()) {
            // the first start migrates both databases; the others then start side by side
            start(down.get(0));
            CompletableFuture.allOf(down.stream().skip(1).map(n -> CompletableFuture.runAsync(() -> start(n)))
                    .toArray(CompletableFuture[]::new)).join();
        }
        if (haproxy == null) {
            Map<String, Integer> ports = new LinkedHashMap<>();
            nodes.values().forEach(n -> ports.put(n.tm(), n.process().httpPort()));
            haproxy = new HaProxy(HAPROXY.get(), h.work().resolve("haproxy"), ChaosHarness.freePort(), ChaosHarness.freePort(), ports);
            client = new LockstepClient(haproxy.baseUrl());
        }
        nodes.keySet().forEach(name -> haproxy.awaitStatus(name, true, Duration.ofSeconds(60)));
    }

    private static Duration start(Node node) {
        long t0 = System.nanoTime();
        node.process().start(node.tm(), h.bytemanJar(), node.rules(), Timeouts.SHORT);
        node.process().awaitReady(Duration.ofSeconds(240));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        ComplianceReport.progress("cluster: " + node.tm() + " ready after " + ChaosHarness.seconds(took) + " (port "
                + node.process().httpPort() + ", pid " + node.process().pid() + ")");
        return took;
    }

    @Test
    @Order(1)
    void nodeHaltedForGoodInPhaseTwoUnderLoad() throws Exception {
        ScenarioRecord s = REPORT.begin(150, "Cluster of three behind HAProxy under load: one node halted for good in phase two,"
                        + " a survivor takes its name over",
                CLIENTS + " clients through HAProxy (create, submit, manager's and final approval, each with an Idempotency-Key);"
                        + " on one node a two-phase commit halted after its business branch committed, the workflow branch still"
                        + " prepared and the COMMITTING decision in tm_coordinator_log (other transactions of the node possibly"
                        + " prepared too); the node never comes back",
                "Byteman rule " + HaltPoint.BETWEEN_COMMITS.rule + " armed for cluster-2.tm only: Runtime.halt(1). HAProxy"
                        + " (roundrobin, readiness checks every 1 s, retry-on conn-failure empty-response, retries 2, option"
                        + " redispatch) sends the requests the halt cut off to another node",
                "A survivor takes the dead node's name over (recovery_node.epoch bumped, TM_NAME_TAKEN_OVER audited by"
                        + " peer-takeover), commits the branches of its transactions with a COMMITTING record and rolls back the"
                        + " others: no prepared transaction of the dead name within " + TAKEOVER_LIMIT.toSeconds() + " s of its"
                        + " lease's expiry. Every acknowledged request is held in full, nothing of a refused one, nothing twice;"
                        + " nothing prepared; invariants hold. The retry through HAProxy (so to another node), with the same"
                        + " Idempotency-Key, of each request the halt cut off answers the original answer or a clean result"
                        + " (2xx, or a 4xx problem+json), never 5xx, and changes nothing more.");
        s.useCase = "cluster load";
        s.haltPoint = HaltPoint.BETWEEN_COMMITS.name();
        requireCluster();
        Node victim = nodes.get("cluster-2.tm");
        s.note("HAProxy configuration: " + haproxy.config() + ", log " + haproxy.log());

        LoadClients load = LoadClients.finalDecisions(client, CLIENTS);
        load.start();
        List<String> inDoubt;
        OffsetDateTime leaseExpiry;
        long epochBefore;
        double afterExpiry;
        try {
            load.awaitSucceeded(40, Duration.ofMinutes(4));
            epochBefore = epoch(victim.tm());
            long t0 = System.nanoTime();
            h.arm(victim.armDir(), HaltPoint.BETWEEN_COMMITS.rule);
            int exit;
            try {
                exit = victim.process().awaitExit(Duration.ofSeconds(120));
            } finally {
                h.disarm(victim.armDir(), HaltPoint.BETWEEN_COMMITS.rule);
            }
            leaseExpiry = leaseExpiresAt(victim.tm());
            inDoubt = preparedOf(victim.tm());
            s.preparedAfterFault = inDoubt;
            s.coordinatorLogAfterFault = pendingLog(victim.tm());
            s.faultFired = lastTrace(victim) + "\n" + victim.tm() + " JVM exited with code " + exit + " after "
                    + load.succeeded() + " acknowledged requests; its lease (epoch " + epochBefore + ") expires at "
                    + leaseExpiry + "\nits prepared branches at the halt: " + String.join("; ", inDoubt)
                    + "\nits pending coordinator-log rows: " + String.join("; ", s.coordinatorLogAfterFault);
            assertThat(exit).as("the rule halted the JVM (Runtime.halt(1))").isEqualTo(1);
            assertThat(lastTrace(victim)).as("the halt rule fired on this node").startsWith("CHAOS halt after commit");
            assertThat(inDoubt).as("the dead node holds prepared branches").isNotEmpty();
            assertThat(s.coordinatorLogAfterFault).as("its decision is logged").anyMatch(l -> l.contains("COMMITTING"));

            afterExpiry = awaitNothingPreparedOf(victim.tm(), leaseExpiry);
            s.timeToRecoveryMillis = Duration.ofNanos(System.nanoTime() - t0).toMillis();
            ComplianceReport.progress("cluster: " + victim.tm() + "'s prepared branches gone " + String.format("%.1f s", afterExpiry)
                    + " after its lease expired");
            // the load goes on against the two survivors for a while
            ChaosHarness.sleep(30_000);
        } finally {
            load.stopAndJoin();
        }
        h.awaitNoPrepared(Duration.ofSeconds(60));
        s.preparedAfterRecovery = h.prepared();

        long epochAfter = epoch(victim.tm());
        List<String> takeover = audit(victim.tm());
        s.note("recovery_node." + victim.tm() + ": epoch " + epochBefore + " before the halt, " + epochAfter + " after");
        s.note("peer-takeover's audit entries: " + String.join("\n", takeover));
        s.note(String.format("measured: the dead name's last prepared branch was gone %.1f s after its lease expired", afterExpiry)
                + " (limit " + TAKEOVER_LIMIT.toSeconds() + " s; lease 10 s, takeover pass every 2 s)");
        s.note("HAProxy's counters: " + haproxy.retries());
        assertThat(epochAfter).as("a survivor took the name under a new epoch").isGreaterThan(epochBefore);
        assertThat(takeover).as("TM_NAME_TAKEN_OVER audited").anyMatch(l -> l.contains("TM_NAME_TAKEN_OVER"));
        assertThat(afterExpiry).as("seconds from the lease's expiry to no prepared branch of " + victim.tm())
                .isLessThanOrEqualTo(TAKEOVER_LIMIT.toSeconds());

        List<Request> requests = load.requests();
        allRequests.addAll(requests);
        noteNotAcknowledged(s, requests);
        // the requests the halt cut off: the intents journaled for the transactions the dead node held in doubt
        List<String> retries = new ArrayList<>();
        try (Connection b = h.business.connect()) {
            for (String gtrid : inDoubt.stream().map(p -> p.replaceAll(".*gtrid (\\S+),.*", "$1")).distinct().toList()) {
                String key = ChaosHarness.one(b, "select request_id from recovery_intent where gtrid = ?", gtrid);
                Request cut = requests.stream().filter(r -> r.key().equals(key)).findFirst()
                        .orElseThrow(() -> new AssertionError("no client request with the key " + key + " of " + gtrid));
                Answer retry = cut.sendAgain(client);
                String line = cut.kind() + " app " + cut.applicationId() + " (gtrid " + gtrid + ", "
                        + ChaosHarness.one(b, "select status from recovery_intent where gtrid = ?", gtrid) + "): the client's answer "
                        + cut.answer().status() + (cut.answer().replayed() ? " replayed" : "")
                        + (cut.earlier().isEmpty() ? "" : " after " + cut.earlier().stream().map(a -> String.valueOf(a.status()))
                                .collect(Collectors.joining(", ", "earlier answers [", "]")))
                        + "; retried through HAProxy: " + retry.status() + (retry.replayed() ? " replayed" : "")
                        + (retry.succeeded() ? "" : " " + retry.body()) + "; held " + LoadClients.held(b, cut);
                retries.add(line);
                s.note("cut off by the halt: " + line);
                assertThat(retry.answered()).as(line).isTrue();
                assertThat(retry.status()).as("never 5xx: " + line).isLessThan(500);
                if (retry.succeeded()) {
                    assertThat(cut.answer().succeeded()).as("a success only for what succeeded: " + line).isTrue();
                    assertThat(retry.replayed()).as("the original answer, replayed: " + line).isTrue();
                } else {
                    assertThat(retry.json().path("code").asString()).as("a clean problem+json: " + line).isNotBlank();
                }
                assertThat(LoadClients.held(b, cut)).as("all or nothing: " + line).isNotEqualTo(Held.PART);
            }
        }
        assertThat(retries).as("requests cut off by the halt, found through their journaled intent").isNotEmpty();
        Verdicts verdicts = verdicts();
        s.clientAnswer = load.summary();
        s.observedOutcome = requests.size() + " requests, " + load.succeeded() + " acknowledged; " + clientFailures(requests).size()
                + " saw a failure on the way (no answer or 5xx, then resent with the same key); " + inDoubt.size()
                + " branch(es) of " + victim.tm() + " in doubt at the halt, gone " + String.format("%.1f s", afterExpiry)
                + " after its lease expired (epoch " + epochBefore + " -> " + epochAfter + "); " + verdicts;
        s.rowsAfterRecovery.put("all databases", h.invariants(s, false).counts());
        ComplianceReport.progress("cluster: " + s.observedOutcome);
        assertThat(verdicts.missing()).as("acknowledged but not held in full").isEmpty();
        assertThat(verdicts.leaked()).as("refused but held").isEmpty();
        assertThat(verdicts.unasked()).as("changes no client was told of (duplicates or phantoms)").isEmpty();
        assertThat(s.preparedAfterRecovery).as("nothing prepared").isEmpty();
        assertThat(s.invariantViolations).as("whole-database invariants").isEmpty();
    }

    @Test
    @Order(2)
    @EnabledIfSystemProperty(named = "chaos.long", matches = "true",
            disabledReason = "long: runs with the opt-in profile, mvn -Pchaos,chaos-long verify -Dit.test=ClusterChaosIT")
    void frozenNodeIsFencedOnceItsNameWasTakenOver() throws Exception {
        ScenarioRecord s = REPORT.begin(151, "Cluster: a node frozen (SIGSTOP) with a submit's decision logged, its name taken"
                        + " over meanwhile, then thawed: the zombie is fenced",
                "A submit sent straight to cluster-3.tm (the cluster otherwise idle): both branches prepared, the COMMITTING"
                        + " record in tm_coordinator_log, the committing thread held; the JVM frozen there past its lease",
                "Byteman rule " + ChaosHarness.PAUSE_AFTER_DECISION_RULE + " for cluster-3.tm only (holds the thread 5 s), then"
                        + " kill -STOP <pid>; after the takeover kill -CONT <pid>",
                "While it is frozen a survivor takes the name over (epoch bumped) and commits both branches by the COMMITTING"
                        + " record. Thawed, the zombie writes no coordinator-log row under its old epoch after the takeover,"
                        + " resolves no branch (the taker committed both), and stops with exit code 3 and \"FENCED:\" in its"
                        + " output. The submit is committed in both databases; its retry through HAProxy is replayed.");
        s.haltPoint = HaltPoint.AFTER_DECISION_LOGGED.name();
        requireCluster();
        Node zombie = nodes.get("cluster-3.tm");
        String rule = ChaosHarness.PAUSE_AFTER_DECISION_RULE;
        LockstepClient direct = new LockstepClient(zombie.process().baseUrl());
        String createKey = LockstepClient.newKey();
        String createBody = "{\"title\":\"chaos s151\",\"assetId\":42,\"amount\":1200.50,\"riskLevel\":\"LOW\",\"sensitive\":false}";
        Answer created = direct.send("alice", "POST", "/api/applications", createBody, createKey);
        assertThat(created.status()).as("draft: " + created).isEqualTo(201);
        long app = created.json().get("id").asLong();
        allRequests.add(new Request(Kind.CREATE, app, createKey, created, List.of(), new Sent("alice", "/api/applications", createBody)));
        s.rowsBefore.putAll(h.rows(app));
        long epochBefore = epoch(zombie.tm());
        String key = LockstepClient.newKey();

        h.arm(zombie.armDir(), rule);
        CompletableFuture<Answer> submit = CompletableFuture.supplyAsync(() -> direct.submit(app, key));
        try {
            h.awaitReached(zombie.armDir(), rule, Duration.ofSeconds(60));
        } finally {
            h.disarm(zombie.armDir(), rule);
        }
        zombie.process().signal("STOP");
        long t0 = System.nanoTime();
        OffsetDateTime leaseExpiry = leaseExpiresAt(zombie.tm());
        s.preparedAfterFault = preparedOf(zombie.tm());
        s.coordinatorLogAfterFault = pendingLog(zombie.tm());
        s.rowsAfterFault.putAll(h.rows(app));
        s.faultFired = lastTrace(zombie) + "\nkill -STOP " + zombie.process().pid() + "; its lease (epoch " + epochBefore
                + ") expires at " + leaseExpiry + "\nprepared while frozen: " + String.join("; ", s.preparedAfterFault)
                + "\npending coordinator-log rows: " + String.join("; ", s.coordinatorLogAfterFault);
        assertThat(lastTrace(zombie)).as("the pause rule holds this node's commit").startsWith("CHAOS pausing after logging COMMITTING");
        assertThat(s.preparedAfterFault).as("both branches prepared while frozen").hasSize(2);
        String gtrid = s.preparedAfterFault.get(0).replaceAll(".*gtrid (\\S+),.*", "$1");
        assertThat(s.coordinatorLogAfterFault).as("the decision is logged").anyMatch(l -> l.contains(gtrid) && l.contains("COMMITTING"));

        double afterExpiry;
        try {
            afterExpiry = awaitNothingPreparedOf(zombie.tm(), leaseExpiry);
            s.timeToRecoveryMillis = Duration.ofNanos(System.nanoTime() - t0).toMillis();
        } finally {
            zombie.process().signal("CONT");
        }
        long epochAfter = epoch(zombie.tm());
        OffsetDateTime takenAt = takenOverAt(zombie.tm());
        s.note(String.format("measured: both branches were gone %.1f s after the frozen node's lease expired", afterExpiry));
        s.note("recovery_node." + zombie.tm() + ": epoch " + epochBefore + " when frozen, " + epochAfter + " after the takeover at "
                + takenAt + "; kill -CONT sent after it");
        assertThat(epochAfter).as("the name was taken over under a new epoch").isGreaterThan(epochBefore);

        int exit = zombie.process().awaitExit(Duration.ofSeconds(120));
        Answer zombieAnswer;
        try {
            zombieAnswer = submit.get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
        String output = zombie.process().output();
        s.clientAnswer = "the zombie's answer to the submit: " + zombieAnswer;
        List<String> fenced = output.lines().filter(l -> l.contains("FENCED:")).toList();
        s.note("the thawed node exited with code " + exit + "; its FENCED lines: " + String.join(" | ", fenced));
        s.note("what it logged after the thaw about the transaction: " + output.lines()
                .filter(l -> l.contains(gtrid) || l.contains("already committed") || l.contains("XAER_NOTA")
                        || l.contains("fenced"))
                .limit(16).collect(Collectors.joining(" | ")));
        List<String> takeover = audit(zombie.tm());
        s.note("peer-takeover's audit entries: " + String.join("\n", takeover));

        try (Connection b = h.business.connect(); PreparedStatement q = b.prepareStatement("select count(*),"
                + " coalesce(string_agg(coordinator_id || ' ' || state || ' updated ' || updated_at, '; '), 'none')"
                + " from tm_coordinator_log where tm_name = ? and epoch = ? and updated_at >= ?")) {
            q.setString(1, zombie.tm());
            q.setLong(2, epochBefore);
            q.setObject(3, takenAt);
            ResultSet r = q.executeQuery();
            r.next();
            s.note("tm_coordinator_log rows of " + zombie.tm() + " under the old epoch " + epochBefore + " written at or after the"
                    + " takeover: " + r.getInt(1) + " (" + r.getString(2) + ")");
            assertThat(r.getInt(1)).as("decisions written under the old epoch after the takeover").isZero();
        }
        assertThat(exit).as("a fenced node stops with FencedNode.EXIT_CODE").isEqualTo(3);
        assertThat(fenced).as("it says why").isNotEmpty();
        assertThat(takeover.stream().filter(l -> l.contains("TAKEOVER_COMMIT_COMMITTED") && l.contains(gtrid)).count())
                .as("the taker, not the zombie, committed both branches").isEqualTo(2);
        assertThat(takeover).as("no branch of it was gone when the taker came").noneMatch(l -> l.contains(gtrid) && l.contains("ALREADY_GONE"));

        h.expectCommitted(s, app);
        Answer retry = client.submit(app, key);
        s.note("the client's retry through HAProxy with the same Idempotency-Key: " + retry.status()
                + (retry.replayed() ? ", replayed" : ", not replayed"));
        allRequests.add(new Request(Kind.SUBMIT, app, key, retry, List.of(zombieAnswer),
                new Sent("alice", "/api/applications/" + app + "/submit", null)));
        s.observedOutcome = String.format("taken over %.1f s after the lease expired (epoch %d -> %d), both branches committed"
                + " by peer-takeover; thawed node exited %d with %d FENCED line(s), no row under the old epoch after the"
                + " takeover; retry %d%s", afterExpiry, epochBefore, epochAfter, exit, fenced.size(), retry.status(),
                retry.replayed() ? " replayed" : "");
        ComplianceReport.progress("cluster: " + s.observedOutcome);
        assertThat(retry.succeeded() && retry.replayed()).as("the retry replays the committed submit: " + retry).isTrue();
    }

    @Test
    @Order(3)
    @EnabledIfSystemProperty(named = "chaos.long", matches = "true",
            disabledReason = "long: runs with the opt-in profile, mvn -Pchaos,chaos-long verify -Dit.test=ClusterChaosIT")
    void rollingRestartUnderLoad() throws Exception {
        ScenarioRecord s = REPORT.begin(152, "Cluster: rolling restart of all three nodes under load through HAProxy",
                CLIENTS + " clients through HAProxy (create, submit, manager's and final approval); each node in turn stopped"
                        + " while requests are in flight on it",
                "kill -TERM <pid> of each node (the node drains: readiness 503, no new connection, requests in flight"
                        + " finish, transactions end, the lease is released), wait for its exit, start it again under the"
                        + " same name and home, wait for readiness and for HAProxy to have it UP, then the next",
                "No request fails as the clients see it: no connection error, no 5xx, only HAProxy's own resends (connection"
                        + " refused or closed unanswered) in between. Every acknowledged request is held in full, nothing"
                        + " twice; no node is fenced; nothing prepared at the end; invariants hold.");
        s.useCase = "cluster load";
        requireCluster();
        String before = haproxy.retries();
        LoadClients load = LoadClients.finalDecisions(client, CLIENTS);
        load.start();
        List<String> restarts = new ArrayList<>();
        try {
            load.awaitSucceeded(30, Duration.ofMinutes(4));
            for (Node node : nodes.values()) {
                long t0 = System.nanoTime();
                long acknowledged = load.succeeded();
                node.process().signal("TERM");
                int exit = node.process().awaitExit(Duration.ofSeconds(120));
                Duration stopped = Duration.ofNanos(System.nanoTime() - t0);
                Duration startup = start(node);
                haproxy.awaitStatus(node.tm(), true, Duration.ofSeconds(60));
                String line = node.tm() + ": SIGTERM, exited with code " + exit + " after " + ChaosHarness.seconds(stopped)
                        + ", ready again after " + ChaosHarness.seconds(startup) + "; " + (load.succeeded() - acknowledged)
                        + " requests acknowledged meanwhile";
                restarts.add(line);
                ComplianceReport.progress("cluster: " + line);
                assertThat(exit).as(node.tm() + " stopped cleanly, not fenced (3) nor failed").isIn(0, 143);
            }
            ChaosHarness.sleep(20_000);
        } finally {
            load.stopAndJoin();
        }
        h.awaitNoPrepared(Duration.ofSeconds(60));
        s.preparedAfterRecovery = h.prepared();
        List<Request> requests = load.requests();
        allRequests.addAll(requests);
        noteNotAcknowledged(s, requests);
        List<String> failures = clientFailures(requests);
        Verdicts verdicts = verdicts();
        s.faultFired = String.join("\n", restarts);
        s.clientAnswer = load.summary();
        s.note("HAProxy's counters before the restarts: " + before + "; after: " + haproxy.retries());
        failures.forEach(f -> s.note("failed as the client saw it: " + f));
        s.rowsAfterRecovery.put("all databases", h.invariants(s, false).counts());
        s.observedOutcome = requests.size() + " requests, " + load.succeeded() + " acknowledged, " + failures.size()
                + " failed as the client saw it; HAProxy " + haproxy.retries() + "; " + verdicts;
        ComplianceReport.progress("cluster: " + s.observedOutcome);
        assertThat(failures).as("requests that failed as the client saw them").isEmpty();
        assertThat(verdicts.missing()).as("acknowledged but not held in full").isEmpty();
        assertThat(verdicts.leaked()).as("refused but held").isEmpty();
        assertThat(verdicts.unasked()).as("changes no client was told of (duplicates or phantoms)").isEmpty();
        assertThat(s.preparedAfterRecovery).as("nothing prepared").isEmpty();
        assertThat(s.invariantViolations).as("whole-database invariants").isEmpty();
    }

    /** The requests whose final answer was not a success (a refusal the verdicts then check), in the report. */
    private static void noteNotAcknowledged(ScenarioRecord s, List<Request> requests) {
        requests.stream().filter(r -> !r.answer().succeeded()).forEach(r -> s.note("not acknowledged: " + r));
    }

    /** Requests that, as their client saw it, failed on some attempt: no answer, or a 5xx. */
    private static List<String> clientFailures(List<Request> requests) {
        return requests.stream().filter(r -> Stream.concat(r.earlier().stream(), Stream.of(r.answer()))
                .anyMatch(a -> !a.answered() || a.status() >= 500)).map(r -> r + "; earlier answers: " + r.earlier()).toList();
    }

    private static Verdicts verdicts() throws SQLException {
        try (Connection b = h.business.connect()) {
            return LoadClients.verdicts(b, List.copyOf(allRequests));
        }
    }

    /**
     * Polls until no branch of {@code tm} is prepared on either database; returns the seconds from the lease's expiry
     * to then, by the database's clock. Fails once that passes {@link #TAKEOVER_LIMIT}.
     */
    private static double awaitNothingPreparedOf(String tm, OffsetDateTime leaseExpiry) throws SQLException {
        while (true) {
            boolean none = preparedOf(tm).isEmpty();
            double since = secondsSince(leaseExpiry);
            if (none) {
                return since;
            }
            if (since > TAKEOVER_LIMIT.toSeconds()) {
                throw new AssertionError(tm + "'s branches still prepared " + String.format("%.1f s", since) + " after its lease"
                        + " expired: " + preparedOf(tm) + "; recovery_node epoch " + epoch(tm));
            }
            ChaosHarness.sleep(200);
        }
    }

    /** The prepared branches (decoded) on both databases of transactions {@code tm} began. */
    private static List<String> preparedOf(String tm) {
        return h.prepared().stream().filter(p -> p.contains("gtrid " + tm)).toList();
    }

    private static long epoch(String tm) throws SQLException {
        try (Connection b = h.business.connect()) {
            return Long.parseLong(ChaosHarness.one(b, "select epoch from recovery_node where tm_name = ?", tm));
        }
    }

    private static OffsetDateTime leaseExpiresAt(String tm) throws SQLException {
        return timestamp("select lease_expires_at from recovery_node where tm_name = ?", tm);
    }

    /** When a peer last took {@code tm} over: its TM_NAME_TAKEN_OVER audit entry. */
    private static OffsetDateTime takenOverAt(String tm) throws SQLException {
        return timestamp("select max(at) from (select at, detail from recovery_audit where action = 'TM_NAME_TAKEN_OVER'"
                + " union all select at, detail from recovery_audit_intake where action = 'TM_NAME_TAKEN_OVER') a"
                + " where detail like ? || ' taken over%'", tm);
    }

    private static OffsetDateTime timestamp(String sql, String parameter) throws SQLException {
        try (Connection b = h.business.connect(); PreparedStatement q = b.prepareStatement(sql)) {
            q.setString(1, parameter);
            ResultSet r = q.executeQuery();
            if (!r.next() || r.getObject(1) == null) {
                throw new AssertionError("no value of " + sql + " for " + parameter);
            }
            return r.getObject(1, OffsetDateTime.class);
        }
    }

    private static double secondsSince(OffsetDateTime t) throws SQLException {
        try (Connection b = h.business.connect(); PreparedStatement q = b.prepareStatement("select extract(epoch from now() - ?)")) {
            q.setObject(1, t);
            ResultSet r = q.executeQuery();
            r.next();
            return r.getDouble(1);
        }
    }

    /** This name's coordinator-log rows that are not TERMINATED, with the epoch that wrote them. */
    private static List<String> pendingLog(String tm) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection b = h.business.connect(); PreparedStatement q = b.prepareStatement("select 'epoch ' || epoch || ', updated '"
                + " || updated_at || ': ' || record_text from tm_coordinator_log where tm_name = ? and state <> 'TERMINATED'"
                + " order by created_at")) {
            q.setString(1, tm);
            ResultSet r = q.executeQuery();
            while (r.next()) {
                rows.add(r.getString(1).trim());
            }
        }
        return rows;
    }

    /**
     * peer-takeover's audit entries about {@code tm}: the take (its detail names the name) and each branch's intent and
     * outcome (by gtrid, which begins with the name), chained or still in the intake.
     */
    private static List<String> audit(String tm) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection b = h.business.connect(); PreparedStatement q = b.prepareStatement("select at || ' ' || action || ' '"
                + " || coalesce(gtrid, '') || ': ' || detail from (select at, action, gtrid, detail from recovery_audit"
                + " where actor = 'peer-takeover' union all select at, action, gtrid, detail from recovery_audit_intake"
                + " where actor = 'peer-takeover' and chained_seq is null) a where gtrid like ? || '%' or detail like ? || ' %'"
                + " order by at")) {
            q.setString(1, tm);
            q.setString(2, tm);
            ResultSet r = q.executeQuery();
            while (r.next()) {
                rows.add(r.getString(1));
            }
        }
        return rows;
    }

    /** The last line a Byteman rule printed in the node's current log. */
    private static String lastTrace(Node node) {
        try (Stream<String> lines = Files.lines(node.process().log(), StandardCharsets.UTF_8)) {
            return lines.filter(l -> l.startsWith("CHAOS ")).reduce((a, b) -> b).orElse("no CHAOS line in " + node.process().log());
        } catch (IOException | UncheckedIOException e) {
            return "cannot read " + node.process().log();
        }
    }
}
