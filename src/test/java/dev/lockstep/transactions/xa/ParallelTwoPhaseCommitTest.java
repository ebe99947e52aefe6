package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.recovery.PreparedBranches;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.SecondNode;
import dev.lockstep.support.ServiceJvm;
import dev.lockstep.support.TestDatabases;
import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.mock.env.MockEnvironment;

/**
 * {@code lockstep.tm.parallel-commit}: with it on (the default) Atomikos prepares the two branches of a submit at
 * the same time, and commits them at the same time; with it off, one after the other. Each case runs a node of
 * its own (a JVM from the test class path, external mode on this context's two databases) with a Byteman rule
 * that holds the business branch's prepare and its commit {@value #HOLD_MILLIS} ms (the workflow branch's
 * {@value #WORKFLOW_HOLD_MILLIS} ms) and prints when every branch
 * call starts and returns. What the node did is read from those instants and, while the business commit is held,
 * from the databases themselves with plain SQL.
 */
@LockstepIntegrationTest
class ParallelTwoPhaseCommitTest {

    static final long HOLD_MILLIS = 1500;
    /** Long enough that the business call's thread starts within it on a loaded machine, short against the business hold. */
    static final long WORKFLOW_HOLD_MILLIS = 300;
    private static final String BUSINESS = "business";
    private static final String WORKFLOW = "workflow";

    @Autowired DatabaseEndpoints endpoints;
    @Autowired TestDatabases db;

    private SecondNode node;

    @AfterEach
    void stopTheNode() {
        if (node != null) {
            node.jvm().stop(Duration.ofSeconds(30));
        }
        PreparedBranches.rollBackAll(db.business(), db.workflow());
    }

    /**
     * Expected: the workflow branch's prepare starts and returns while the business branch's (held) prepare is
     * still running, each on a thread of Atomikos's pool; the same for the two commits, and while the business
     * commit is held the workflow database already shows the process while the business branch is still
     * prepared. The submit commits on both databases.
     */
    @Test
    void withParallelCommitTheBranchesArePreparedAtOnceAndCommittedAtOnce() throws Exception {
        Run run = submitOnNode("parallel-on.tm", List.of());

        for (String phase : List.of("prepare", "commit")) {
            Call business = run.timeline.call(phase, BUSINESS);
            Call workflow = run.timeline.call(phase, WORKFLOW);
            assertThat(business.millis()).as("the business " + phase + " is the slow one: " + run.timeline).isGreaterThanOrEqualTo(HOLD_MILLIS);
            assertThat(workflow.start).as("the workflow " + phase + " started before the slow business " + phase + " ended: "
                    + run.timeline).isLessThan(business.end);
            assertThat(business.start).as("and the business " + phase + " before the workflow one ended: " + run.timeline)
                    .isLessThan(workflow.end);
            assertThat(workflow.end).as("the workflow " + phase + " returned while the business one was held: " + run.timeline)
                    .isLessThan(business.end);
            assertThat(List.of(business.thread, workflow.thread)).as("on two threads of Atomikos's pool: " + run.timeline)
                    .allMatch(thread -> thread.startsWith("Atomikos:")).doesNotHaveDuplicates();
        }
        assertThat(run.whileBusinessCommitHeld.prepared).as("while the business commit was held, only its branch was prepared")
                .containsExactly(BUSINESS);
        assertThat(run.whileBusinessCommitHeld.processInstances).as("and the workflow database showed the process").isEqualTo(1);
        expectCommittedOnBoth(run);
    }

    /** Expected: with the setting off, every prepare and commit runs on the request's thread, each after the other ended. */
    @Test
    void withParallelCommitOffTheBranchesArePreparedAndCommittedOneAfterTheOther() throws Exception {
        Run run = submitOnNode("parallel-off.tm", List.of("--lockstep.tm.parallel-commit=false"));

        for (String phase : List.of("prepare", "commit")) {
            Call business = run.timeline.call(phase, BUSINESS);
            Call workflow = run.timeline.call(phase, WORKFLOW);
            assertThat(workflow.start >= business.end || business.start >= workflow.end)
                    .as("the two " + phase + "s did not overlap: " + run.timeline).isTrue();
            assertThat(business.thread).as("on the request's thread: " + run.timeline).startsWith("http-nio-")
                    .isEqualTo(workflow.thread);
        }
        assertThat(run.whileBusinessCommitHeld.prepared).as("while the business commit was held (it commits first), the"
                + " workflow branch was still prepared too").containsExactlyInAnyOrder(BUSINESS, WORKFLOW);
        assertThat(run.whileBusinessCommitHeld.processInstances).as("and its process not yet visible").isZero();
        expectCommittedOnBoth(run);
    }

    /**
     * Expected: a class path on which Atomikos's own assembler comes first (its jar before Lockstep's classes) stops
     * the startup with the setting named and the fix, instead of running with the branches committed one after the other.
     */
    @Test
    void aClassPathThatPutsAtomikossAssemblerFirstStopsTheStartup() {
        List<String> launch = new ArrayList<>(ServiceJvm.testClasspath());
        List<String> entries = new ArrayList<>(List.of(launch.get(1).split(File.pathSeparator)));
        String atomikos = entries.stream().filter(e -> e.replace('\\', '/').matches(".*/com/atomikos/transactions/[^/]+/transactions-[^/]+\\.jar"))
                .findFirst().orElseThrow(() -> new AssertionError("no Atomikos transactions jar on " + entries));
        entries.remove(atomikos);
        entries.add(0, atomikos);
        launch.set(1, String.join(File.pathSeparator, entries));

        node = SecondNode.start(endpoints, "assembler-order.tm", List.of(), List.of(), launch);

        assertThat(node.jvm().awaitExit(Duration.ofMinutes(3))).as("the startup stops: " + node.log()).isTrue();
        assertThat(node.jvm().exitValue()).isNotZero();
        assertThat(node.log()).contains("lockstep.tm.parallel-commit: is true, but Atomikos assembled its transaction service"
                + " with another assembler than dev.lockstep.transactions.xa.ParallelCommitAssembler")
                .contains("put Lockstep's classes before the Atomikos jars on the class path")
                .contains("set lockstep.tm.parallel-commit=false");
    }

    /** The submit of a new draft on a node of its own, with the timeline rule armed; the node is left running. */
    private Run submitOnNode(String tmName, List<String> settings) throws Exception {
        Path work = Files.createDirectories(Path.of("target/it-var/timeline-" + UUID.randomUUID()).toAbsolutePath());
        Path arm = work.resolve("armed");
        Path rules = work.resolve("two-phase-commit-timeline.btm");
        try (InputStream in = Objects.requireNonNull(getClass().getResourceAsStream("/xa/two-phase-commit-timeline.btm"))) {
            Files.writeString(rules, new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("@ARM@", arm.toString())
                    .replace("@BUSINESS_DB@", databaseName(endpoints.business().url())).replace("@HOLD@", Long.toString(HOLD_MILLIS))
                    .replace("@WORKFLOW_HOLD@", Long.toString(WORKFLOW_HOLD_MILLIS)));
        }
        List<String> all = new ArrayList<>(users());
        all.addAll(settings);
        node = SecondNode.start(endpoints, tmName, List.of(SecondNode.bytemanAgent(rules)), all);
        node.jvm().awaitHealth(Duration.ofMinutes(5), status -> status == 200);
        Api api = new Api(new MockEnvironment().withProperty("local.server.port", node.baseUrl().replaceAll(".*:", "")));

        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "parallel commit", "assetId": 42, "amount": 10, "riskLevel": "LOW", "sensitive": false}""");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        long application = created.json().get("id").asLong();

        Files.writeString(arm, "armed");
        Api.Response submitted;
        Observation whileHeld;
        try {
            CompletableFuture<Api.Response> submit = CompletableFuture.supplyAsync(
                    () -> api.post("alice", "/api/applications/" + application + "/submit", null, UUID.randomUUID().toString()));
            String gtrid = awaitLine(Pattern.compile("TIMELINE commit start " + databaseName(endpoints.business().url())
                    + " \\d+ \\S+ (\\S+)"), Duration.ofSeconds(60));
            whileHeld = observe(gtrid, application);
            submitted = submit.get(60, TimeUnit.SECONDS);
        } finally {
            Files.deleteIfExists(arm);
        }
        assertThat(submitted.status()).as(submitted.toString()).isEqualTo(200);
        Timeline timeline = Timeline.of(node.log(), databaseName(endpoints.business().url()));
        return new Run(application, timeline, whileHeld);
    }

    /**
     * The two databases while the business commit is held, read with plain SQL: which branches of the transaction are
     * still prepared, and whether the workflow database shows the process. With parallel commit the workflow branch
     * commits during the hold: waits up to half the hold for it to leave {@code pg_prepared_xacts}.
     */
    private Observation observe(String gtrid, long application) {
        String pattern = "%\\_" + Base64.getEncoder().encodeToString(gtrid.getBytes(StandardCharsets.US_ASCII)) + "\\_%";
        long deadline = System.nanoTime() + Duration.ofMillis(HOLD_MILLIS / 2).toNanos();
        List<String> prepared;
        do {
            prepared = new ArrayList<>();
            if (db.business().queryForObject("select count(*) from pg_prepared_xacts where gid like ?", Integer.class, pattern) > 0) {
                prepared.add(BUSINESS);
            }
            if (db.workflow().queryForObject("select count(*) from pg_prepared_xacts where gid like ?", Integer.class, pattern) > 0) {
                prepared.add(WORKFLOW);
            }
        } while (prepared.contains(WORKFLOW) && System.nanoTime() < deadline && pause());
        int processes = db.workflow().queryForObject("select count(*) from act_ru_execution where parent_id_ is null and business_key_ = ?",
                Integer.class, Long.toString(application));
        return new Observation(prepared, processes);
    }

    private void expectCommittedOnBoth(Run run) {
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, run.application))
                .isEqualTo("APPROVING");
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task t join act_ru_execution e on e.id_ = t.proc_inst_id_"
                + " where e.business_key_ = ?", Integer.class, Long.toString(run.application))).as("the process waits at its first task")
                .isEqualTo(1);
        assertThat(db.preparedTransactions()).as("nothing left prepared").isEmpty();
    }

    private String awaitLine(Pattern pattern, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher matcher = pattern.matcher(node.log());
            if (matcher.find()) {
                return matcher.group(1);
            }
            pause();
        }
        throw new AssertionError("no line matching " + pattern + " in the node's log within " + limit + ":\n" + node.log());
    }

    private static boolean pause() {
        try {
            Thread.sleep(20);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String databaseName(String jdbcUrl) {
        return jdbcUrl.replaceAll("^.*/([^/?]+)(\\?.*)?$", "$1");
    }

    /** External mode has no demo users: the applicant, with the demo password. */
    private static List<String> users() {
        return List.of("--lockstep.security.users[1].name=alice", "--lockstep.security.users[1].password={noop}" + Api.DEMO_PASSWORD,
                "--lockstep.security.users[1].roles[0]=APPLICANT");
    }

    private record Run(long application, Timeline timeline, Observation whileBusinessCommitHeld) {
    }

    private record Observation(List<String> prepared, int processInstances) {
    }

    /** One branch call: its start and return (System.nanoTime of the node) and the thread it ran on. */
    record Call(long start, long end, String thread) {

        long millis() {
            return TimeUnit.NANOSECONDS.toMillis(end - start);
        }
    }

    /** The calls of the one two-phase transaction the rule saw, by phase and database ("business", "workflow"). */
    record Timeline(Map<String, Call> calls, String gtrid) {

        private static final Pattern LINE = Pattern.compile("TIMELINE (prepare|commit) (start|end) (\\S+) (\\d+) (\\S+) (\\S+)");

        static Timeline of(String log, String businessDatabase) {
            Map<String, long[]> instants = new HashMap<>();
            Map<String, String> threads = new HashMap<>();
            String gtrid = null;
            Matcher line = LINE.matcher(log);
            while (line.find()) {
                if (gtrid != null && !gtrid.equals(line.group(6))) {
                    throw new AssertionError("the rule saw more than one two-phase transaction: " + gtrid + " and " + line.group(6));
                }
                gtrid = line.group(6);
                String key = line.group(1) + " " + (line.group(3).equals(businessDatabase) ? BUSINESS : WORKFLOW);
                long[] startEnd = instants.computeIfAbsent(key, k -> new long[2]);
                startEnd[line.group(2).equals("start") ? 0 : 1] = Long.parseLong(line.group(4));
                if (line.group(2).equals("start")) {
                    threads.put(key, line.group(5));
                }
            }
            Map<String, Call> calls = new HashMap<>();
            instants.forEach((key, startEnd) -> calls.put(key, new Call(startEnd[0], startEnd[1], threads.get(key))));
            return new Timeline(calls, gtrid);
        }

        Call call(String phase, String database) {
            Call call = calls.get(phase + " " + database);
            assertThat(call).as("the " + database + " branch's " + phase + " in " + this).isNotNull();
            assertThat(call.start() > 0 && call.end() > 0).as("its start and its return in " + this).isTrue();
            return call;
        }

        @Override
        public String toString() {
            long zero = calls.values().stream().mapToLong(Call::start).min().orElse(0);
            StringBuilder out = new StringBuilder("transaction " + gtrid + ":");
            calls.entrySet().stream().sorted(Map.Entry.comparingByValue((a, b) -> Long.compare(a.start(), b.start())))
                    .forEach(e -> out.append(String.format(" [%s %.1f..%.1f ms on %s]", e.getKey(),
                            (e.getValue().start() - zero) / 1e6, (e.getValue().end() - zero) / 1e6, e.getValue().thread())));
            return out.toString();
        }
    }
}
