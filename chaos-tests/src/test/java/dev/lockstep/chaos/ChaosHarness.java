package dev.lockstep.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.report.ComplianceReport;
import dev.lockstep.chaos.report.ScenarioRecord;
import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.LockstepClient;
import dev.lockstep.chaos.support.Pause;
import dev.lockstep.chaos.support.PostgresServer;
import dev.lockstep.chaos.support.ServiceProcess.Timeouts;
import dev.lockstep.chaos.support.ServiceProcess;
import dev.lockstep.chaos.support.TcpProxy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The moving parts of one chaos run: two PostgreSQL servers (separate processes, shared by all
 * scenarios), the service JVM (one home per scenario), Byteman rules armed by a file, and
 * plain-SQL views of both databases. Public for the long scenarios in {@code chaos.longrun}.
 */
public final class ChaosHarness implements AutoCloseable {

    static final String TM_NAME = "chaos-1.tm";
    /** The user with the DBA role (support/ServiceProcess): the recovery console's API. */
    static final String DBA = "dba1";

    final Path work = Path.of(System.getProperty("chaos.workDir", "target/chaos")).toAbsolutePath();
    final Path serviceJar = Path.of(System.getProperty("chaos.serviceJar", "target/lockstep-0.1.0-SNAPSHOT.jar")).toAbsolutePath();
    final Path bytemanJar = Path.of(System.getProperty("chaos.bytemanJar", "byteman.jar")).toAbsolutePath();
    /** The business database's primary: after a failover, the promoted standby. */
    public PostgresServer business;
    public final PostgresServer workflow;
    final InvariantChecker checker = new InvariantChecker();
    /** The service reaches each database through its proxy (null for an external database). */
    final TcpProxy businessProxy;
    final TcpProxy workflowProxy;
    public ServiceProcess service;
    public LockstepClient client;
    /** Standbys of the business database this harness started, stopped with it. */
    private final List<PostgresServer> standbys = new ArrayList<>();
    /** More service nodes on the same two databases ({@link #newNode}), stopped with the harness. */
    private final List<ServiceProcess> nodes = new ArrayList<>();

    public ChaosHarness() {
        deleteTree(work);
        // -Dchaos.db.business.url=... (and workflow) points the suite at databases someone else runs
        PostgresServer externalBusiness = PostgresServer.externalFrom("chaos.db.business");
        PostgresServer externalWorkflow = PostgresServer.externalFrom("chaos.db.workflow");
        business = externalBusiness != null ? externalBusiness
                : new PostgresServer("lockstep_business", work.resolve("pg-business"), freePort());
        workflow = externalWorkflow != null ? externalWorkflow
                : new PostgresServer("lockstep_workflow", work.resolve("pg-workflow"), freePort());
        business.start();
        workflow.start();
        try {
            businessProxy = business.isExternal() ? null : new TcpProxy("127.0.0.1", business.port());
            workflowProxy = workflow.isExternal() ? null : new TcpProxy("127.0.0.1", workflow.port());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every Byteman rule, each armed by its own file; loaded at every start so a restarted service serves the next scenario. */
    static final List<String> RULES = List.of("halt-before-first-prepare.btm", "halt-after-first-prepare.btm",
            "halt-before-commit-decision.btm", "halt-after-commit-decision.btm", "halt-after-first-commit.btm",
            "stall-past-timeout.btm", "pause-before-business-prepare.btm", "pause-before-workflow-commit.btm",
            "halt-before-outbox-write.btm", "halt-after-approval-commit.btm", "halt-after-catalog-answer.btm",
            "halt-between-background-prepares.btm", "archival-min-age-one-second.btm", "halt-between-rollbacks.btm",
            "halt-before-terminated-record.btm", "halt-between-local-commits.btm", "halt-repair-before-commit-decision.btm",
            "halt-repair-after-commit-decision.btm", "pause-after-commit-decision.btm");

    /** Hold the committing thread 5 s right after its commit decision is logged, both branches prepared (scenario 151). */
    public static final String PAUSE_AFTER_DECISION_RULE = "pause-after-commit-decision.btm";

    /** The rollback phase: workflow rollback held, halt at the business branch's rollback call (scenarios 45, 61-65). */
    static final String ROLLBACK_PHASE_RULE = "halt-between-rollbacks.btm";
    /** After both two-phase commits, halt before the coordinator logs TERMINATED (scenarios 46, 66-70). */
    static final String BEFORE_TERMINATED_RULE = "halt-before-terminated-record.btm";
    /** The report's names of the two second-phase halts ({@code ScenarioRecord.haltPoint}), beside the five {@link HaltPoint}s. */
    static final String IN_ROLLBACK_PHASE = "IN_ROLLBACK_PHASE";
    static final String BEFORE_TERMINATED_LOGGED = "BEFORE_TERMINATED_LOGGED";
    /** Hold the workflow branch's commit 4 s, both prepared and the decision logged (scenarios 7-9, 47, 71-75). */
    static final String VANISH_AT_COMMIT_RULE = "pause-before-workflow-commit.btm";

    /** Settings every service JVM of this harness gets on top of the suite's own (e.g. where to publish). */
    final List<String> serviceSettings = new ArrayList<>();

    /** Starts the service (all rules loaded, none armed) unless it already runs. */
    void ensureService() {
        ensureService(null);
    }

    /**
     * Starts the service unless it already runs with these timeouts ({@code null}: any; a new start then
     * takes LONG). The scenario order avoids restarts just to change them.
     */
    public void ensureService(Timeouts timeouts) {
        if (service != null && service.isAlive() && timeouts != null && timeouts != service.timeouts()) {
            service.stop();
        }
        if (service == null) {
            service = new ServiceProcess(serviceJar, work.resolve("service"), freePort(), business, workflow,
                    urlThrough(businessProxy, business), urlThrough(workflowProxy, workflow), serviceSettings);
            client = new LockstepClient(service.baseUrl());
        }
        if (!service.isAlive()) {
            service.start(TM_NAME, bytemanJar, rules(), timeouts == null ? Timeouts.LONG : timeouts);
        }
    }

    /**
     * Another service node on the same two databases (a cluster, {@code ClusterChaosIT}): its own home
     * {@code work/name}, HTTP port and {@code settings} on top of the harness's; started by the caller under its own
     * transaction-manager name, with {@link #rulesArmedIn} a script of its own. Stopped when the harness closes.
     */
    public ServiceProcess newNode(String name, List<String> settings) {
        List<String> all = new ArrayList<>(serviceSettings);
        all.addAll(settings);
        ServiceProcess node = new ServiceProcess(serviceJar, work.resolve(name), freePort(), business, workflow,
                urlThrough(businessProxy, business), urlThrough(workflowProxy, workflow), all);
        nodes.add(node);
        return node;
    }

    public Path bytemanJar() {
        return bytemanJar;
    }

    public Path work() {
        return work;
    }

    private static String urlThrough(TcpProxy proxy, PostgresServer server) {
        return proxy == null ? server.jdbcUrl() : "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + server.database();
    }

    /** One script with all rules, each rule's condition pointing at its own arm file. */
    Path rules() {
        return rulesArmedIn(work.resolve("armed"));
    }

    /**
     * The same script for a node of its own ({@link #newNode}): its rules are armed by files in {@code armDir}, so a
     * rule armed for one node of a cluster never fires on another.
     */
    public Path rulesArmedIn(Path armDir) {
        StringBuilder script = new StringBuilder();
        for (String name : RULES) {
            try (InputStream in = getClass().getResourceAsStream("/byteman/" + name)) {
                if (in == null) {
                    throw new IllegalArgumentException("no Byteman rule " + name);
                }
                script.append(new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("@ARM@", armDir.resolve(name).toString())
                        .replace("@BUSINESS_DB@", business.database()).replace("@WORKFLOW_DB@", workflow.database()))
                        .append('\n');
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        try {
            Path target = work.resolve(armDir.equals(work.resolve("armed")) ? "chaos-rules.btm" : armDir.getFileName() + "-rules.btm");
            Files.writeString(target, script);
            Files.createDirectories(armDir);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path armFile(String rule) {
        return work.resolve("armed").resolve(rule);
    }

    void arm(String rule) {
        arm(armFile(rule).getParent(), rule);
    }

    /** Arms {@code rule} for the node whose script {@link #rulesArmedIn} made with {@code armDir}. */
    public void arm(Path armDir, String rule) {
        try {
            Files.deleteIfExists(armDir.resolve(rule + ".reached"));
            Files.writeString(armDir.resolve(rule), "armed");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until a pausing rule reports that the service thread is held at its fault point. */
    void awaitReached(String rule, Duration timeout) {
        awaitReached(armFile(rule).getParent(), rule, timeout);
    }

    /** As {@link #awaitReached(String, Duration)}, for the node whose rules are armed in {@code armDir}. */
    public void awaitReached(Path armDir, String rule, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(armDir.resolve(rule + ".reached"))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the fault point of " + rule + " was not reached within " + timeout);
            }
            sleep(50);
        }
    }

    void disarm(String rule) {
        disarm(armFile(rule).getParent(), rule);
    }

    public void disarm(Path armDir, String rule) {
        try {
            Files.deleteIfExists(armDir.resolve(rule));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The scenario's application as each database holds it, read with plain SQL. */
    public Map<String, Object> rows(long applicationId) {
        Map<String, Object> rows = new LinkedHashMap<>();
        String id = Long.toString(applicationId);
        try (Connection b = business.connect(); Connection w = workflow.connect()) {
            rows.put("business: application " + id, one(b, "select 'approval_status=' || approval_status || ', process_instance_id='"
                    + " || coalesce(process_instance_id, 'null') || ', row_version=' || row_version from application where id = ?", applicationId));
            rows.put("business: business_process_binding rows", one(b, "select count(*) from business_process_binding where business_id = ?", id));
            rows.put("business: workflow_command rows", one(b, "select count(*) from workflow_command where business_id = ?", id));
            rows.put("business: approval_record rows", one(b, "select count(*) from approval_record where application_id = ?", applicationId));
            rows.put("workflow: act_hi_procinst rows (business key " + id + ")",
                    one(w, "select count(*) from act_hi_procinst where business_key_ = ?", id));
            rows.put("workflow: running process instances", one(w,
                    "select count(*) from act_ru_execution where parent_id_ is null and business_key_ = ?", id));
            rows.put("workflow: open tasks", one(w, "select coalesce(string_agg(t.task_def_key_, ', '), 'none') from act_ru_task t"
                    + " join act_ru_execution e on e.id_ = t.proc_inst_id_ where e.business_key_ = ?", id));
            rows.put("workflow: open tasks and holders", one(w, "select coalesce(string_agg(t.task_def_key_ || coalesce('=' || t.assignee_, '')"
                    + " || coalesce(' owner ' || t.owner_, '') || coalesce(' ' || t.delegation_, ''), ', '), 'none') from act_ru_task t"
                    + " join act_ru_execution e on e.id_ = t.proc_inst_id_ where e.business_key_ = ?", id));
            rows.put("business: task_handover rows", one(b, "select count(*) from task_handover where application_id = ?", applicationId));
        } catch (SQLException e) {
            rows.put("error", e.getMessage());
        }
        return rows;
    }

    public static String one(Connection c, String sql, Object parameter) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setObject(1, parameter);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? String.valueOf(r.getObject(1)) : "no row";
            }
        }
    }

    /** Prepared transactions on both servers, with the Atomikos XID decoded from pgjdbc's gid. */
    public List<String> prepared() {
        List<String> out = new ArrayList<>();
        out.addAll(prepared(business, "business-db"));
        out.addAll(prepared(workflow, "workflow-db"));
        return out;
    }

    public static List<String> prepared(PostgresServer server, String resource) {
        List<String> out = new ArrayList<>();
        try (Connection c = server.connect(); ResultSet r = c.createStatement()
                .executeQuery("select gid, prepared, database from pg_prepared_xacts order by prepared")) {
            while (r.next()) {
                out.add(resource + " (" + r.getString(3) + "): gid " + r.getString(1) + " = " + decodeGid(r.getString(1))
                        + ", prepared at " + r.getString(2));
            }
        } catch (SQLException e) {
            out.add(resource + ": cannot read pg_prepared_xacts (" + e.getMessage() + ")");
        }
        return out;
    }

    /** pgjdbc's gid is formatId_base64(gtrid)_base64(bqual). */
    public static String decodeGid(String gid) {
        String[] parts = gid.split("_");
        if (parts.length != 3) {
            return "not an XA gid";
        }
        Base64.Decoder d = Base64.getDecoder();
        return "formatId " + parts[0] + ", gtrid " + new String(d.decode(parts[1]), StandardCharsets.UTF_8)
                + ", bqual " + new String(d.decode(parts[2]), StandardCharsets.UTF_8);
    }

    /** The gids in {@code pg_prepared_xacts} on both servers, each with its server's name: what is in doubt right now. */
    public java.util.Set<String> preparedGids() {
        java.util.Set<String> gids = new java.util.TreeSet<>();
        for (PostgresServer server : List.of(business, workflow)) {
            try (Connection c = server.connect(); ResultSet r = c.createStatement().executeQuery("select gid from pg_prepared_xacts")) {
                while (r.next()) {
                    gids.add(server.database() + " " + r.getString(1));
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
        return gids;
    }

    int preparedCount(PostgresServer server) {
        try (Connection c = server.connect(); ResultSet r = c.createStatement().executeQuery("select count(*) from pg_prepared_xacts")) {
            r.next();
            return r.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Pending records of the coordinator log (the latest state per transaction id), as Atomikos wrote them: this name's
     * rows of the business database's tm_coordinator_log, or the lines of the log files.
     */
    public List<String> coordinatorLog() {
        return ServiceProcess.TM_LOG.equals("database") ? coordinatorLogTable() : coordinatorLogFiles();
    }

    private List<String> coordinatorLogTable() {
        List<String> pending = new ArrayList<>();
        try (Connection c = business.connect(); PreparedStatement read = c.prepareStatement(
                "select record_text from tm_coordinator_log where tm_name = ? and state <> 'TERMINATED' order by created_at")) {
            read.setString(1, TM_NAME);
            try (ResultSet rows = read.executeQuery()) {
                while (rows.next()) {
                    pending.add(rows.getString(1).trim());
                }
            }
        } catch (SQLException e) {
            return List.of("cannot read tm_coordinator_log: " + e.getMessage());
        }
        return pending;
    }

    private List<String> coordinatorLogFiles() {
        Path dir = service.home().resolve("atomikos");
        Map<String, String> latest = new LinkedHashMap<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList()) {
                    for (String line : Files.readAllLines(f, StandardCharsets.ISO_8859_1)) {
                        String[] cols = line.split("\\|");
                        if (cols.length >= 2) {
                            latest.put(cols[0], line.trim());
                        }
                    }
                }
            } catch (IOException e) {
                return List.of("cannot read " + dir + ": " + e.getMessage());
            }
        }
        return latest.values().stream().filter(l -> !l.contains("|TERMINATED|")).toList();
    }


    /** The application whose submit a halt cut off, and the Idempotency-Key the client used for it. */
    public record Crashed(long app, String key) {
    }

    /**
     * Creates a draft titled {@code "chaos " + name}, arms {@code rule}, submits the draft and waits for the service
     * JVM to halt at the rule's point; records the client's (missing) answer and both databases at the halt.
     */
    public Crashed haltDuringSubmit(ScenarioRecord s, String rule, String name, Timeouts timeouts) {
        ensureService(timeouts);
        long app = client.createDraft("chaos " + name);
        s.rowsBefore.putAll(rows(app));
        String key = LockstepClient.newKey();
        arm(rule);
        Answer answer;
        int exit;
        try {
            answer = client.submit(app, key);
            exit = service.awaitExit(Duration.ofSeconds(30));
        } finally {
            disarm(rule);
        }
        s.clientAnswer = answer.toString();
        s.note("crashed JVM's transaction-manager timeouts: " + service.timeouts());
        s.note("service JVM exited with code " + exit + "; fault trace: " + faultTrace());
        s.rowsAfterFault.putAll(rows(app));
        s.preparedAfterFault = prepared();
        s.coordinatorLogAfterFault = coordinatorLog();
        assertThat(answer.answered()).as("the halted JVM never answered the submit").isFalse();
        return new Crashed(app, key);
    }

    /**
     * Arms {@code rule}, sends the request and waits for the service JVM to halt at the rule's point; records the
     * client's (missing) answer, the application's rows in both databases, what is prepared and the coordinator log.
     */
    void haltDuring(ScenarioRecord s, long app, String rule, Supplier<Answer> request) {
        Answer answer = haltAfter(s, app, rule, request);
        assertThat(answer.answered()).as("the halted JVM never answered").isFalse();
    }

    /**
     * As {@link #haltDuring}, for work the request only starts (a reconciliation run): the request is answered, and the
     * halt comes from the work that follows it on the service's own thread.
     */
    void haltDuringBackgroundWork(ScenarioRecord s, long app, String rule, Supplier<Answer> start) {
        haltAfter(s, app, rule, start);
    }

    private Answer haltAfter(ScenarioRecord s, long app, String rule, Supplier<Answer> request) {
        arm(rule);
        Answer answer;
        try {
            answer = request.get();
            service.awaitExit(Duration.ofSeconds(30));
        } finally {
            disarm(rule);
        }
        s.clientAnswer = answer.toString();
        s.rowsAfterFault.putAll(rows(app));
        s.preparedAfterFault = prepared();
        s.coordinatorLogAfterFault = coordinatorLog();
        return answer;
    }

    /**
     * The rollback phase, halted (scenarios 45, 61-65): the business database refuses to prepare the request's
     * change of the application titled {@code titlePrefix...} (install it only once the application is at its
     * step), Atomikos rolls both branches back, the rule holds the workflow branch's rollback and the JVM halts at
     * Atomikos's rollback call on the business branch (whose transaction PostgreSQL discarded when its PREPARE failed).
     * Requires the halt's evidence with one branch left prepared, and no commit decision in the coordinator log.
     */
    void haltInRollbackPhase(ScenarioRecord s, long app, String titlePrefix, Supplier<Answer> request) throws SQLException {
        String rule = ROLLBACK_PHASE_RULE;
        rejectAtPrepare(titlePrefix);
        try {
            haltDuring(s, app, rule, request);
        } finally {
            stopRejectingAtPrepare();
        }
        requireHaltEvidence(s, rule, IN_ROLLBACK_PHASE, "in the rollback phase, one branch still prepared", 1);
        assertThat(recordsOfHaltedTransaction(s)).as("no commit decision in the coordinator log").noneMatch(l -> l.contains("|COMMITTING|"));
        s.note("the business branch's refusal and its rollback, as the service logged them: "
                + serviceLogLines("chaos: deferred check rejects") + " " + serviceLogLines("XA resource 'business-db': rollback"));
    }

    /**
     * After both commits, before TERMINATED (scenarios 46, 66-70): halts the JVM there, requires the halt's evidence
     * (nothing prepared, the transaction's last record COMMITTING) and returns the halted transaction's id.
     */
    String haltBeforeTerminatedRecord(ScenarioRecord s, long app, Supplier<Answer> request) {
        String rule = BEFORE_TERMINATED_RULE;
        haltDuring(s, app, rule, request);
        requireHaltEvidence(s, rule, BEFORE_TERMINATED_LOGGED, "after both commits, before TERMINATED is logged", 0);
        String transaction = s.faultFired.replaceAll("(?s).*TERMINATED for (\\S+), both.*", "$1");
        assertThat(s.coordinatorLogAfterFault).as("the transaction's last record is COMMITTING")
                .anyMatch(l -> l.startsWith(transaction) && l.contains("|COMMITTING|"));
        return transaction;
    }

    /**
     * After the halt of {@link #haltBeforeTerminatedRecord}: restarts the service, waits until the coordinator log
     * has closed the transaction, and requires that nothing is in doubt and the product flags nothing about the
     * application (no incident, no mismatch, no heuristic outcome).
     */
    void expectClosedWithoutAlarm(ScenarioRecord s, long app, String transaction, Duration window) {
        long t0 = System.nanoTime();
        Duration startup = service.start(TM_NAME, bytemanJar, rules(), Timeouts.SHORT);
        s.note("restarted service answered HTTP after " + seconds(startup));
        awaitClosed(transaction, window);
        s.timeToRecoveryMillis = Duration.ofNanos(System.nanoTime() - t0).toMillis();
        s.note("the coordinator log holds no pending record of " + transaction + " any more");
        s.rowsAfterRecovery.putAll(rows(app));
        s.preparedAfterRecovery = prepared();
        assertThat(s.preparedAfterRecovery).as("nothing prepared").isEmpty();

        Answer inDoubt = client.send(DBA, "GET", "/api/recovery/in-doubt?refresh=true", null, null);
        s.note("in-doubt view after the restart: " + inDoubt);
        assertThat(inDoubt.status()).isEqualTo(200);
        assertThat(inDoubt.json().path("transactions").size()).as("nothing in doubt").isZero();
        SplitSignals signals = splitSignals(s, app);
        assertThat(signals.incidents()).as("reconciliation incidents").isEmpty();
        assertThat(signals.mismatches()).as("mismatches").isEmpty();
        assertThat(signals.heuristics()).as("heuristic outcomes").isEmpty();
    }

    /** Waits until the coordinator log has closed the transaction's record (recovery replays an expired COMMITTING record). */
    void awaitClosed(String transaction, Duration window) {
        long deadline = System.nanoTime() + window.toNanos();
        while (coordinatorLog().stream().anyMatch(l -> l.startsWith(transaction))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the coordinator log still holds " + coordinatorLog() + " after " + window);
            }
            sleep(250);
        }
    }

    /**
     * A branch vanished at commit (scenarios 47, 71-75): holds the workflow branch's commit with both prepared and
     * the decision logged, rolls that branch back by hand as a DBA would, lets the commit go on, and returns the
     * client's answer. Records as evidence the pause's trace line, what was prepared while held, and the gid.
     */
    Answer vanishAtCommit(ScenarioRecord s, Supplier<Answer> request) throws Exception {
        String rule = VANISH_AT_COMMIT_RULE;
        arm(rule);
        Answer answer;
        try {
            CompletableFuture<Answer> sent = CompletableFuture.supplyAsync(request);
            awaitReached(rule, Duration.ofSeconds(60));
            // the business commit, sent together with the held workflow one, commits by itself
            awaitPreparedCounts(0, 1, OTHER_BRANCH_WAIT);
            s.preparedAfterFault = prepared();
            s.coordinatorLogAfterFault = coordinatorLog();
            String gid = rollBackWorkflowBranchByHand();
            s.faultFired = requireTraceOfThisNode("CHAOS pausing", rule) + "\npg_prepared_xacts while the commit was held: "
                    + String.join("; ", s.preparedAfterFault) + "\nROLLBACK PREPARED '" + gid + "' on " + workflow.database()
                    + " = " + decodeGid(gid);
            assertThat(recordsOfHaltedTransaction(s)).as("the commit decision is logged").anyMatch(l -> l.contains("|COMMITTING|"));
            answer = sent.get(120, TimeUnit.SECONDS);
        } finally {
            disarm(rule);
        }
        s.clientAnswer = answer.toString();
        s.note("Atomikos on the vanished branch: " + serviceLogLines("already committed in resource"));
        return answer;
    }

    /** As a DBA would: ROLLBACK PREPARED of the one prepared branch on the workflow database; returns its gid. */
    private String rollBackWorkflowBranchByHand() throws SQLException {
        try (Connection c = workflow.connect(); Statement st = c.createStatement()) {
            List<String> gids = new ArrayList<>();
            try (ResultSet r = st.executeQuery("select gid from pg_prepared_xacts where database = current_database()")) {
                while (r.next()) {
                    gids.add(r.getString(1));
                }
            }
            assertThat(gids).as("the workflow branch is prepared while its commit is held").hasSize(1);
            st.execute("rollback prepared '" + gids.get(0) + "'");
            return gids.get(0);
        }
    }

    /**
     * Gives the business database a synchronous streaming standby named {@code name}: stops the service (its
     * connections would break) and the business server cleanly, makes the standby from a cold copy of the data
     * directory, starts both and waits until the standby streams as the synchronous one, so that every PREPARE
     * TRANSACTION the primary acknowledges is on the standby too.
     */
    public PostgresServer addSynchronousBusinessStandby(String name) {
        if (business.isExternal()) {
            throw new UnsupportedOperationException("the test cannot give an external database a standby");
        }
        if (service != null) {
            service.stop();
        }
        business.stop();
        PostgresServer standby = business.coldCopyAsSynchronousStandby(name, work.resolve("pg-" + name), freePort());
        standbys.add(standby);
        business.start();
        standby.start();
        business.awaitSynchronousStandby(name, Duration.ofSeconds(60));
        return standby;
    }

    /** The business primary was lost and {@code promoted} took over: the harness reads it, the service's next start uses it. */
    public void failOverBusinessTo(PostgresServer promoted) {
        business = promoted;
        service.pointBusinessAt(promoted.jdbcUrl());
    }

    /** The versions under test in the report's header: the jar's libraries and the business server's PostgreSQL. */
    public void describe(ComplianceReport report) {
        try (Connection c = business.connect(); ResultSet r = c.createStatement().executeQuery("select version()")) {
            r.next();
            report.describe(serviceJar, r.getString(1));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Restarts the service (rules loaded, none armed) and waits until no prepared transaction is left.
     * SHORT timeouts where recovery has to presume abort, LONG where the JVM's decisions must outlive a crash.
     */
    public Duration restartAndAwaitNoPrepared(ScenarioRecord s, Timeouts timeouts, Duration window) {
        long t0 = System.nanoTime();
        restartAs(s, TM_NAME, timeouts);
        awaitNoPrepared(window);
        Duration recovery = Duration.ofNanos(System.nanoTime() - t0);
        s.timeToRecoveryMillis = recovery.toMillis();
        return recovery;
    }

    /** Starts the service again (rules loaded, none armed) under {@code tmName}, without waiting for recovery. */
    public void restartAs(ScenarioRecord s, String tmName, Timeouts timeouts) {
        Duration startup = service.start(tmName, bytemanJar, rules(), timeouts);
        s.note("restarted service (" + tmName + ") answered HTTP after " + seconds(startup));
    }

    public void awaitNoPrepared(Duration window) {
        long deadline = System.nanoTime() + window.toNanos();
        while (preparedCount(business) + preparedCount(workflow) > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("prepared transactions still there after " + window + ": " + prepared());
            }
            sleep(250);
        }
    }

    public InvariantChecker.Result invariants(ScenarioRecord s, boolean preparedAllowed) {
        try (Connection b = business.connect(); Connection w = workflow.connect()) {
            InvariantChecker.Result result = checker.check(b, w, preparedAllowed);
            s.invariantViolations = result.violations();
            s.diverged = !result.violations().isEmpty();
            s.note("whole-database invariant check: " + result.counts());
            return result;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The line the Byteman rule printed when it fired, from the service's log. */
    String faultTrace() {
        try (Stream<String> lines = Files.lines(service.log(), StandardCharsets.UTF_8)) {
            return lines.filter(l -> l.startsWith("CHAOS ")).reduce((a, b) -> b).orElse("no CHAOS line in " + service.log());
        } catch (IOException | UncheckedIOException e) {
            return "cannot read " + service.log();
        }
    }

    /** Lines of the current service log that contain {@code fragment}. */
    List<String> serviceLogLines(String fragment) {
        try (Stream<String> lines = Files.lines(service.log(), StandardCharsets.UTF_8)) {
            return lines.filter(l -> l.contains(fragment)).toList();
        } catch (IOException | UncheckedIOException e) {
            return List.of("cannot read " + service.log());
        }
    }

    /**
     * Proof that a halt rule fired where it claims: the rule's trace line (with the XID or transaction
     * id, which carries this node's name) in the halted JVM's log, and exactly the expected number of
     * branches in {@code pg_prepared_xacts}, all of one global transaction. Recorded in the report;
     * the scenario fails without it.
     */
    public void requireHaltEvidence(ScenarioRecord s, HaltPoint point) {
        requireHaltEvidence(s, point.rule, point.name(), point.moment, point.preparedAtHalt);
    }

    /**
     * The same proof for another rule: {@code preparedAtHalt} branches of one transaction. {@code haltPoint} is what
     * the report calls the point (a {@link HaltPoint} name, or {@link #IN_ROLLBACK_PHASE} / {@link #BEFORE_TERMINATED_LOGGED}).
     */
    void requireHaltEvidence(ScenarioRecord s, String rule, String haltPoint, String moment, int preparedAtHalt) {
        s.haltPoint = haltPoint;
        String trace = requireTraceOfThisNode("CHAOS halt", rule);
        List<String> prepared = prepared();
        s.faultFired = trace + "\npg_prepared_xacts at the halt: " + (prepared.isEmpty() ? "none" : String.join("; ", prepared));
        if (prepared.size() != preparedAtHalt) {
            throw new AssertionError(moment + ": expected " + preparedAtHalt + " prepared branch(es), found " + prepared);
        }
        long transactions = prepared.stream().map(p -> p.replaceAll(".*gtrid (\\S+),.*", "$1")).distinct().count();
        if (transactions > 1) {
            throw new AssertionError("prepared branches of more than one global transaction: " + prepared);
        }
    }

    /**
     * How long a pause scenario waits for the branch the rule does not hold: Atomikos sends a transaction's
     * prepares, and then its commits, at the same time (lockstep.tm.parallel-commit), so while the rule holds one
     * branch the other one's call may still be on its way. Well inside the rules' 4 s hold.
     */
    static final Duration OTHER_BRANCH_WAIT = Duration.ofSeconds(2);

    /**
     * Waits until {@code pg_prepared_xacts} holds {@code businessPrepared} branches on the business server and
     * {@code workflowPrepared} on the workflow server, at most {@code limit}; the caller then asserts the counts.
     */
    void awaitPreparedCounts(int businessPrepared, int workflowPrepared, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while ((preparedCount(business) != businessPrepared || preparedCount(workflow) != workflowPrepared)
                && System.nanoTime() < deadline) {
            sleep(20);
        }
    }

    /**
     * Proof that a pause rule holds the transaction where the scenario claims, taken while it holds and
     * before the fault: the rule's trace line with this node's XID, and per database the branches in
     * {@code pg_prepared_xacts} once the branch the rule does not hold has got where it goes by itself
     * ({@link #awaitPreparedCounts}, at most {@link #OTHER_BRANCH_WAIT}). Recorded as the scenario's {@code faultFired}, completed by
     * the fault's own evidence ({@link ScenarioRecord#faultFired} is appended to); fails without it.
     */
    void requirePauseEvidence(ScenarioRecord s, String rule, int businessPrepared, int workflowPrepared) {
        String trace = requireTraceOfThisNode("CHAOS pausing", rule);
        awaitPreparedCounts(businessPrepared, workflowPrepared, OTHER_BRANCH_WAIT);
        List<String> prepared = prepared();
        s.faultFired = trace + "\npg_prepared_xacts while the rule held, before the fault: "
                + (prepared.isEmpty() ? "none" : String.join("; ", prepared));
        assertThat(preparedCount(business)).as("business branches prepared while " + rule + " held: " + prepared)
                .isEqualTo(businessPrepared);
        assertThat(preparedCount(workflow)).as("workflow branches prepared while " + rule + " held: " + prepared)
                .isEqualTo(workflowPrepared);
    }

    /**
     * The pending coordinator records of the transaction the fault hit (the one gtrid of its prepared branches).
     * Other transactions' records may still be pending in the same log: a logged commit replayed at startup
     * keeps its COMMITTING record until the record expires and Atomikos closes it.
     */
    public static List<String> recordsOfHaltedTransaction(ScenarioRecord s) {
        List<String> gtrids = s.preparedAfterFault.stream().map(p -> p.replaceAll(".*gtrid (\\S+),.*", "$1")).distinct().toList();
        assertThat(gtrids).as("the prepared branches at the fault are of one transaction").hasSize(1);
        return s.coordinatorLogAfterFault.stream().filter(line -> line.startsWith(gtrids.get(0) + "|")).toList();
    }

    /** Proof that a crashed server is down: a new connection to it fails. Returns the evidence line. */
    String requireDown(PostgresServer server, String which) {
        try (Connection c = server.connect()) {
            throw new AssertionError("the " + which + " PostgreSQL server still accepts connections after its crash");
        } catch (SQLException refused) {
            return which + " PostgreSQL stopped in immediate mode while the rule held; a new connection fails: " + refused.getMessage();
        }
    }

    /** The latest trace line of the service's Byteman rules, required to start with {@code prefix} and to carry this node's XID. */
    private String requireTraceOfThisNode(String prefix, String rule) {
        String trace = faultTrace();
        // pgjdbc's rules print the XID as hex bytes, Atomikos's log rules the transaction id as text
        String tmNameInHex = java.util.HexFormat.of().withUpperCase().formatHex(TM_NAME.getBytes(StandardCharsets.UTF_8));
        if (!trace.startsWith(prefix) || !(trace.contains(TM_NAME) || trace.toUpperCase().contains(tmNameInHex))) {
            throw new AssertionError("no trace of " + rule + " firing for this node in " + service.log() + ": " + trace);
        }
        return trace;
    }

    /**
     * Makes the business database refuse to prepare a transaction that moves an application titled
     * {@code titlePrefix...} out of DRAFT: a deferred constraint trigger, installed with plain SQL as a DBA
     * could, fires at PREPARE TRANSACTION. The global transaction's prepare is then voted down.
     */
    void rejectAtPrepare(String titlePrefix) throws SQLException {
        try (Connection c = business.connect(); Statement st = c.createStatement()) {
            // a sequence is not transactional: its count of firings survives the rollback the trigger causes
            st.execute("create sequence if not exists chaos_rejected_at_prepare");
            st.execute("""
                    create or replace function chaos_reject_at_prepare() returns trigger language plpgsql as $$
                    begin
                      if new.approval_status <> 'DRAFT' and new.title like '%s%%' then
                        perform nextval('chaos_rejected_at_prepare');
                        raise exception 'chaos: deferred check rejects application %%', new.id using errcode = '23514';
                      end if;
                      return new;
                    end $$""".formatted(titlePrefix));
            st.execute("create constraint trigger chaos_reject_at_prepare after update on application"
                    + " deferrable initially deferred for each row execute function chaos_reject_at_prepare()");
        }
    }

    /** How often the deferred trigger of {@link #rejectAtPrepare} has refused a prepare since it was installed. */
    long rejectionsAtPrepare() throws SQLException {
        try (Connection c = business.connect(); ResultSet r = c.createStatement()
                .executeQuery("select case when is_called then last_value else 0 end from chaos_rejected_at_prepare")) {
            r.next();
            return r.getLong(1);
        }
    }

    void stopRejectingAtPrepare() throws SQLException {
        try (Connection c = business.connect(); Statement st = c.createStatement()) {
            st.execute("drop trigger if exists chaos_reject_at_prepare on application");
            st.execute("drop function if exists chaos_reject_at_prepare()");
            st.execute("drop sequence if exists chaos_rejected_at_prepare");
        }
    }

    /** Nothing of the submit in either database: DRAFT, no binding, no command record, no process instance, nothing prepared. */
    void expectNothingOfSubmit(ScenarioRecord s, long app) {
        assertThat(s.rowsAfterRecovery.get("business: application " + app).toString()).contains("approval_status=DRAFT");
        assertThat(s.rowsAfterRecovery.get("business: business_process_binding rows")).isEqualTo("0");
        assertThat(s.rowsAfterRecovery.get("business: workflow_command rows")).isEqualTo("0");
        assertThat(s.rowsAfterRecovery.get("workflow: act_hi_procinst rows (business key " + app + ")")).isEqualTo("0");
        assertThat(s.preparedAfterRecovery).isEmpty();
        assertThat(invariants(s, false).violations()).isEmpty();
    }

    /** The submit in both databases: APPROVING, one binding, its process waiting at the manager's approval, nothing prepared. */
    void expectSubmitCommitted(ScenarioRecord s, long app) {
        assertThat(s.rowsAfterRecovery.get("business: application " + app).toString()).contains("approval_status=APPROVING");
        assertThat(s.rowsAfterRecovery.get("business: business_process_binding rows")).isEqualTo("1");
        assertThat(s.rowsAfterRecovery.get("workflow: running process instances")).isEqualTo("1");
        assertThat(s.rowsAfterRecovery.get("workflow: open tasks")).isEqualTo("managerApproval");
        assertThat(s.preparedAfterRecovery).isEmpty();
        assertThat(invariants(s, false).violations()).isEmpty();
    }

    /**
     * What the product flags about one application whose databases may disagree: open reconciliation
     * incidents, entries of the DBA's mismatch check, heuristic outcomes recorded for its transactions.
     */
    record SplitSignals(List<String> incidents, List<String> mismatches, List<String> heuristics) {

        boolean flagged() {
            return !incidents.isEmpty() || !mismatches.isEmpty();
        }
    }

    /**
     * Asks the product, as its operators would, whether the two databases disagree about the application:
     * waits until the application is older than both checks' settle time (30 s: a younger one is skipped, so
     * an absence would prove nothing), lists {@code GET /api/recovery/mismatches} as the DBA, runs a full
     * reconciliation ({@code POST /api/admin/reconciliation/runs} as the admin) and reads its incidents and
     * the recorded heuristic outcomes with plain SQL.
     */
    SplitSignals splitSignals(ScenarioRecord s, long app) {
        try (Connection b = business.connect()) {
            double wait = Double.parseDouble(one(b, "select greatest(0, extract(epoch from updated_at + interval '31 seconds'"
                    + " - current_timestamp)) from application where id = ?", app));
            s.note("waited " + String.format("%.1f s", wait) + " until application " + app + " was past the checks' 30 s settle time");
            sleep((long) (wait * 1000));

            Answer listed = retriedWhileUnavailable(s, DBA, "GET", "/api/recovery/mismatches", null);
            assertThat(listed.status()).as("mismatch check: " + listed).isEqualTo(200);
            List<String> mismatches = new ArrayList<>();
            listed.json().forEach(m -> {
                if (m.path("applicationId").asLong() == app) {
                    mismatches.add(m.toString());
                }
            });
            reconcileAll(s, b);
            List<String> incidents = strings(b, "select rule_id || ' (' || state || '): ' || difference from reconciliation_incident"
                    + " where application_id = ? order by id", app);
            List<String> heuristics = strings(b, "select state || ' ' || coalesce(participant, '') || ' gtrid ' || gtrid"
                    + " from recovery_heuristic_event where gtrid in (select gtrid from recovery_intent where business_key = ?)"
                    + " order by id", Long.toString(app));
            SplitSignals signals = new SplitSignals(incidents, mismatches, heuristics);
            s.note("what the product flags about application " + app + ": " + signals);
            return signals;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A full reconciliation run started as the admin, awaited in {@code reconciliation_run}. A run that failed
     * (e.g. on a pooled workflow connection a network cut left dead) is started again, at most three times.
     */
    private void reconcileAll(ScenarioRecord s, Connection b) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            Answer started = client.send("erin", "POST", "/api/admin/reconciliation/runs", "{\"kind\":\"FULL\"}", null);
            assertThat(started.status()).as("reconciliation run: " + started).isEqualTo(202);
            long run = started.json().path("id").asLong();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            String state;
            while (!(state = one(b, "select state from reconciliation_run where id = ?", run)).equals("SUCCEEDED")
                    && !state.equals("FAILED")) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("reconciliation run " + run + " still " + state + " after 60 s");
                }
                sleep(200);
            }
            if (state.equals("SUCCEEDED")) {
                s.note("reconciliation run " + run + ": " + one(b, "select 'applications ' || from_application_id || '..'"
                        + " || to_application_id || ', ' || applications_scanned || ' scanned' from reconciliation_run where id = ?", run));
                return;
            }
            String error = one(b, "select coalesce(error, '') from reconciliation_run where id = ?", run);
            s.note("reconciliation run " + run + " FAILED: " + error);
            if (attempt == 3) {
                throw new AssertionError("three reconciliation runs failed, the last: " + error);
            }
        }
    }

    /** A 503 answer (the product could not read a database just now and says to retry) is retried for up to 10 s. */
    private Answer retriedWhileUnavailable(ScenarioRecord s, String user, String method, String path, String body) {
        for (int attempt = 1; ; attempt++) {
            Answer answer = client.send(user, method, path, body, null);
            if (answer.status() != 503 || attempt == 10) {
                return answer;
            }
            s.note(method + " " + path + " answered 503 " + answer.json().path("code").asString() + " (attempt " + attempt
                    + "), retried after 1 s");
            sleep(1000);
        }
    }

    static List<String> strings(Connection c, String sql, Object parameter) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            s.setObject(1, parameter);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(r.getString(1));
                }
            }
        }
        return out;
    }

    public static String seconds(Duration d) {
        return String.format("%.1f s", d.toMillis() / 1000.0);
    }

    public static void sleep(long millis) {
        Pause.sleep(millis);
    }

    /** Polls {@code condition} every 100 ms; fails with {@code failure} once {@code timeout} has passed. */
    static void awaitTrue(BooleanSupplier condition, Duration timeout, String failure) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(failure + " (waited " + timeout + ")");
            }
            sleep(100);
        }
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The submit of {@code app} rolled back everywhere: read after recovery. */
    public void expectRolledBack(ScenarioRecord s, long app) {
        s.rowsAfterRecovery.putAll(rows(app));
        s.preparedAfterRecovery = prepared();
        s.observedOutcome = "rolled back: " + s.rowsAfterRecovery.get("business: application " + app);
        expectNothingOfSubmit(s, app);
    }

    /** The submit of {@code app} committed on both databases: read after recovery. */
    public void expectCommitted(ScenarioRecord s, long app) {
        s.rowsAfterRecovery.putAll(rows(app));
        s.preparedAfterRecovery = prepared();
        s.observedOutcome = "committed: " + s.rowsAfterRecovery.get("business: application " + app)
                + "; running instances " + s.rowsAfterRecovery.get("workflow: running process instances");
        expectSubmitCommitted(s, app);
    }

    /**
     * The client's retry, after recovery, with the Idempotency-Key of the submit the fault cut off: a stored
     * success is replayed only for a submit that committed, a rolled-back one runs afresh, and either way the
     * application ends with exactly one process.
     */
    public void expectRetryMatchesTruth(ScenarioRecord s, long app, String key, boolean committed) {
        Answer retry = submitFollowingRetryAfter(s, app, key);
        s.note("retry with the same Idempotency-Key after recovery: HTTP " + retry.status() + (retry.replayed() ? ", replayed" : ", run afresh"));
        assertThat(retry.succeeded()).as("the retry succeeds: " + retry).isTrue();
        assertThat(retry.replayed()).as("a replay only of a submit that committed: " + retry).isEqualTo(committed);
        Map<String, Object> after = rows(app);
        assertThat(after.get("business: business_process_binding rows")).as("one binding after the retry").isEqualTo("1");
        assertThat(after.get("workflow: running process instances")).as("one process after the retry").isEqualTo("1");
    }

    /** Submits with {@code key}, following a 503's Retry-After: right after a fault a pool may still be replacing a connection. */
    Answer submitFollowingRetryAfter(ScenarioRecord s, long app, String key) {
        return followingRetryAfter(s, () -> client.submit(app, key));
    }

    /** Sends a request (with its Idempotency-Key) until it is answered other than 503, at most 10 times a second apart. */
    Answer followingRetryAfter(ScenarioRecord s, Supplier<Answer> send) {
        Answer answer = send.get();
        for (int attempt = 1; answer.status() == 503 && attempt <= 10; attempt++) {
            s.note("answered 503 " + answer.json().path("code").asString() + "; retrying after its Retry-After");
            sleep(1000);
            answer = send.get();
        }
        return answer;
    }

    /** An error status with a problem+json body carrying a stable code, not a bare 500. */
    static void expectClearError(LockstepClient.Answer answer) {
        assertThat(answer.status()).as("the client gets an error answer").isGreaterThanOrEqualTo(400);
        assertThat(answer.json().path("code").asString()).as("the error names what happened").isNotBlank();
    }

    @Override
    public void close() {
        if (service != null) {
            service.stop();
        }
        nodes.forEach(ServiceProcess::stop);
        if (businessProxy != null) {
            businessProxy.close();
        }
        if (workflowProxy != null) {
            workflowProxy.close();
        }
        workflow.stop();
        business.stop();
        standbys.forEach(PostgresServer::stop);
    }
}
