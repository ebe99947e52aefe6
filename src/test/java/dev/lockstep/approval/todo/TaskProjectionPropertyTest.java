package dev.lockstep.approval.todo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.PropertyRunSettings;
import dev.lockstep.support.TestDatabases;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.statistics.Statistics;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestContextManager;

/**
 * Issue 38: whatever sequence of task commands approvers send — claim, unclaim, delegate, resolve, transfer, decide,
 * return, add or remove a signer (the admin's removals included), withdraw, terminate; by several users, on one or two
 * applications of every process shape — after <em>every</em> step each task of those runs has the projection row the
 * engine's own tables (read with plain SQL) call for, and no answer is a 5xx. Every 25th sequence also ends with the
 * whole table compared with a rebuild. 200 sequences by default, {@code -Dprojection.tries=2000} for the long run
 * (docs/approvals.md); the seed is fixed unless {@code -Dprojection.seed} names another (or {@code random}). From the
 * default size on, a run in which no unclaim or no signer removal succeeded fails: it would not have tested them.
 *
 * <p>Like the API fuzz run, jqwik drives the cached context of {@link LockstepIntegrationTest} through Spring's
 * {@link TestContextManager}.
 */
@LockstepIntegrationTest
class TaskProjectionPropertyTest {

    /** Approvers (groups managers, legal, finance, directors), the admin and the applicant. */
    private static final List<String> USERS = List.of("bob", "carol", "dave", "frank", "erin", "alice");
    private static final List<String> SIGNERS = List.of("bob", "carol", "dave", "frank");
    /** The demo member of each candidate group, who may take an unclaimed task of it. */
    private static final Map<String, String> MEMBERS = Map.of("managers", "bob", "legal", "carol", "finance", "dave",
            "directors", "frank");
    private static final int STEPS = 5;

    private static Api api;
    private static TestDatabases db;
    private static int sequences;
    private static int unclaims;
    private static int removals;

    @BeforeContainer
    static void service() {
        ApplicationContext context = new TestContextManager(TaskProjectionPropertyTest.class).getTestContext().getApplicationContext();
        api = context.getBean(Api.class);
        db = context.getBean(TestDatabases.class);
    }

    @Property(shrinking = ShrinkingMode.OFF)
    @AddLifecycleHook(Settings.class)
    void theProjectionFollowsTheEngineAfterEveryTaskCommand(@ForAll("applications") List<Shape> shapes,
            @ForAll("commands") List<Command> commands) {
        List<Long> applications = new ArrayList<>();
        List<String> runs = new ArrayList<>();
        for (Shape shape : shapes) {
            long id = shape.create();
            applications.add(id);
            runs.add(ApiFlows.submit(api, id));
        }
        assertProjectionFollowsEngine(runs, "after the submits");
        for (Command command : commands) {
            Api.Response response = command.send(applications.get(command.application() % applications.size()),
                    runs.get(command.application() % runs.size()));
            if (response != null) {
                Statistics.label("command").collect(command.kind() + " " + response.status());
                assertThat(response.status()).as("%s answered %s", command, response).isLessThan(500);
                if (response.status() == 200) {
                    unclaims += command.kind() == Kind.UNCLAIM ? 1 : 0;
                    removals += command.kind() == Kind.REMOVE_SIGNER ? 1 : 0;
                }
            }
            assertProjectionFollowsEngine(runs, "after " + command);
        }
        if (++sequences % 25 == 0) {
            ProjectionAssertions.assertProjectionEqualsRebuild(api, db);
        }
    }

    /**
     * Open tasks: the projection's open rows of the runs are exactly the engine's ACT_RU_TASK rows, with the same
     * assignee, owner, delegation state and candidate groups. Ended tasks: closed in the projection as history ended them.
     */
    private static void assertProjectionFollowsEngine(List<String> runs, String when) {
        String in = String.join(",", runs.stream().map(run -> "'" + run + "'").toList());
        List<Map<String, Object>> engine = db.workflow().queryForList("""
                select t.id_ as task_id, t.assignee_ as assignee, t.owner_ as owner, t.delegation_ as delegation_state,
                       coalesce((select string_agg(distinct l.group_id_, ',' order by l.group_id_) from act_ru_identitylink l
                                  where l.task_id_ = t.id_ and l.type_ = 'candidate' and l.group_id_ is not null), '') as candidate_groups
                  from act_ru_task t where t.proc_inst_id_ in (%s)
                """.formatted(in));
        List<Map<String, Object>> projected = db.business().queryForList("""
                select task_id, assignee, owner, delegation_state, array_to_string(candidate_groups, ',') as candidate_groups
                  from task_projection where process_instance_id in (%s) and state = 'OPEN'
                """.formatted(in));
        assertThat(projected).as("open projection rows against ACT_RU_TASK %s", when).containsExactlyInAnyOrderElementsOf(engine);
        List<Map<String, Object>> ended = db.workflow().queryForList("""
                select id_ as task_id, case when delete_reason_ is null then 'COMPLETED' else 'CANCELED' end as state,
                       assignee_ as assignee from act_hi_taskinst where proc_inst_id_ in (%s) and end_time_ is not null
                """.formatted(in));
        assertThat(db.business().queryForList("""
                select task_id, state, assignee from task_projection where process_instance_id in (%s) and state <> 'OPEN'
                """.formatted(in))).as("ended projection rows against ACT_HI_TASKINST %s", when).containsExactlyInAnyOrderElementsOf(ended);
    }

    @Provide
    Arbitrary<List<Shape>> applications() {
        Arbitrary<Shape> standard = Combinators.combine(Arbitraries.of("LOW", "HIGH"), Arbitraries.of(true, false))
                .as(Standard::new);
        Arbitrary<Shape> countersign = Combinators.combine(Arbitraries.of("ALL", "ONE_VETO", "RATIO"),
                Arbitraries.subsetOf(SIGNERS).ofMinSize(2).ofMaxSize(3).map(List::copyOf), Arbitraries.of(true, false))
                .as(Countersigned::new);
        return Arbitraries.oneOf(standard, countersign).list().ofMinSize(1).ofMaxSize(2);
    }

    @Provide
    Arbitrary<List<Command>> commands() {
        // hand-overs and decisions often, the commands that end a run seldom, so that most sequences keep going
        // unclaim and removal weigh more: each succeeds only after an earlier command (a claim; an addition or a RATIO step)
        Arbitrary<Kind> kinds = Arbitraries.frequency(Tuple.of(7, Kind.CLAIM), Tuple.of(8, Kind.UNCLAIM), Tuple.of(5, Kind.DELEGATE),
                Tuple.of(5, Kind.RESOLVE), Tuple.of(6, Kind.TRANSFER), Tuple.of(6, Kind.APPROVE), Tuple.of(2, Kind.REJECT),
                Tuple.of(4, Kind.RETURN), Tuple.of(6, Kind.ADD_SIGNER), Tuple.of(8, Kind.REMOVE_SIGNER), Tuple.of(1, Kind.WITHDRAW),
                Tuple.of(1, Kind.TERMINATE));
        return Combinators.combine(kinds, Arbitraries.integers().between(0, 2), Arbitraries.integers().between(0, 9),
                Arbitraries.of(USERS), Arbitraries.of(USERS), Arbitraries.frequency(Tuple.of(3, true), Tuple.of(1, false)))
                .as(Command::new).list().ofMinSize(1).ofMaxSize(STEPS);
    }

    /** How an application of the sequence is created. */
    interface Shape {
        long create();
    }

    record Standard(String riskLevel, boolean sensitive) implements Shape {
        @Override
        public long create() {
            return ApiFlows.createDraft(api, riskLevel, sensitive);
        }
    }

    record Countersigned(String policy, List<String> signers, boolean managerReview) implements Shape {
        @Override
        public long create() {
            Api.Response created = api.post("alice", "/api/applications", """
                    {"title": "Countersigned", "assetId": 7, "amount": 50000, "riskLevel": "LOW", "sensitive": false,
                     "countersign": {"signers": [%s], "policy": "%s", "ratio": %s, "managerReview": %s}}
                    """.formatted(String.join(",", signers.stream().map(signer -> "\"" + signer + "\"").toList()), policy,
                    policy.equals("RATIO") ? "0.5" : "null", managerReview));
            assertThat(created.status()).as(created.toString()).isEqualTo(201);
            return created.json().get("id").asLong();
        }
    }

    enum Kind { CLAIM, UNCLAIM, DELEGATE, RESOLVE, TRANSFER, APPROVE, REJECT, RETURN, ADD_SIGNER, REMOVE_SIGNER, WITHDRAW, TERMINATE }

    /**
     * One step: {@code kind} on the application numbered {@code application} (modulo how many there are) and, for a task
     * command, on its open task numbered {@code task} (modulo). {@code byHolder} sends it as the task's current assignee,
     * or for an unclaimed task as a member of its first candidate group, so that sequences get past the refusals into
     * real hand-overs; else as {@code actor}. Signer changes with {@code byHolder}: the signer who holds the run's open
     * countersign task numbered {@code task} adds {@code target}, and the admin (erin) removes that signer, the only
     * removal that can succeed; else {@code actor} adds or removes {@code target}.
     */
    record Command(Kind kind, int application, int task, String actor, String target, boolean byHolder) {

        /** The answer, or null when the run has no open task left to act on. */
        Api.Response send(long applicationId, String run) {
            String path = "/api/applications/" + applicationId;
            switch (kind) {
                case ADD_SIGNER:
                    return api.post(byHolder ? outstandingSigner(run, actor) : actor, path + "/countersign/signers", userId(target),
                            ApiFlows.key());
                case REMOVE_SIGNER:
                    return api.post(byHolder ? "erin" : actor, path + "/countersign/signers/remove",
                            userId(byHolder ? outstandingSigner(run, target) : target), ApiFlows.key());
                case WITHDRAW:
                    return api.post("alice", path + "/withdraw", "{\"reason\":\"changed my mind\"}", ApiFlows.key());
                case TERMINATE:
                    return api.post("erin", "/api/admin" + path.substring("/api".length()) + "/terminate",
                            "{\"reason\":\"stopped\"}", ApiFlows.key());
                default:
                    return onTask(run);
            }
        }

        private Api.Response onTask(String run) {
            List<Map<String, Object>> open = db.workflow().queryForList("""
                    select t.id_, t.task_def_key_, t.assignee_, coalesce(t.assignee_, (select min(l.group_id_) from act_ru_identitylink l
                                                           where l.task_id_ = t.id_ and l.type_ = 'candidate')) as holder
                      from act_ru_task t where t.proc_inst_id_ = ? order by t.create_time_, t.id_""", run);
            if (open.isEmpty()) {
                return null;
            }
            // the assignee gives back a task claimed from a group; an unclaimed task or a countersign vote is only refused
            List<Map<String, Object>> claimed = open.stream()
                    .filter(row -> row.get("assignee_") != null && !"countersign".equals(row.get("task_def_key_"))).toList();
            if (kind == Kind.UNCLAIM && byHolder && !claimed.isEmpty()) {
                open = claimed;
            }
            Map<String, Object> chosen = open.get(task % open.size());
            String taskPath = "/api/tasks/" + chosen.get("id_");
            String holder = (String) chosen.get("holder");
            String user = byHolder && holder != null ? MEMBERS.getOrDefault(holder, holder) : actor;
            return switch (kind) {
                case CLAIM -> api.post(user, taskPath + "/claim", null);
                case UNCLAIM -> api.post(user, taskPath + "/unclaim", null);
                case DELEGATE -> api.post(user, taskPath + "/delegate", userId(target), ApiFlows.key());
                case RESOLVE -> api.post(user, taskPath + "/resolve", "{}", ApiFlows.key());
                case TRANSFER -> api.post(user, taskPath + "/transfer", userId(target), ApiFlows.key());
                case APPROVE, REJECT -> ApiFlows.complete(api, user, (String) chosen.get("id_"), kind.name());
                case RETURN -> returnToFirstTarget(user, taskPath);
                default -> throw new IllegalStateException(kind + " is no task command");
            };
        }

        /** Who holds the run's open countersign task numbered {@code task} (its owner while delegated), else {@code otherwise}. */
        private String outstandingSigner(String run, String otherwise) {
            List<String> holders = db.workflow().queryForList("""
                    select case when t.delegation_ = 'PENDING' then t.owner_ else t.assignee_ end from act_ru_task t
                     where t.proc_inst_id_ = ? and t.task_def_key_ = 'countersign' order by t.create_time_, t.id_""", String.class, run);
            return holders.isEmpty() ? otherwise : holders.get(task % holders.size());
        }

        private Api.Response returnToFirstTarget(String user, String taskPath) {
            Api.Response targets = api.get(user, taskPath + "/return-targets");
            if (targets.status() != 200 || targets.json().get("targets").isEmpty()) {
                return targets;
            }
            return api.post(user, taskPath + "/return", """
                    {"targetActivityId": "%s", "mode": "%s", "reason": "once more"}
                    """.formatted(targets.json().get("targets").get(0).get("id").asString(), byHolder ? "RERUN" : "JUMP_BACK"),
                    ApiFlows.key());
        }

        private static String userId(String user) {
            return "{\"userId\":\"" + user + "\"}";
        }
    }

    /**
     * Tries and seed: {@code -Dprojection.tries} (default 200) and {@code -Dprojection.seed}. From the default size on, a
     * run in which no unclaim or no signer removal succeeded fails: it would not have tested them.
     */
    public static class Settings extends PropertyRunSettings {

        private static final int DEFAULT_TRIES = 200;

        public Settings() {
            super("Projection property", "projection", "3800000000000000038", DEFAULT_TRIES);
        }

        @Override
        protected void beforeRun() {
            unclaims = 0;
            removals = 0;
        }

        @Override
        protected PropertyExecutionResult afterRun(PropertyExecutionResult result, int tries) {
            System.out.printf("Projection property: %d unclaims and %d signer removals succeeded%n", unclaims, removals);
            if (result.status() == PropertyExecutionResult.Status.SUCCESSFUL && tries >= DEFAULT_TRIES && (unclaims == 0 || removals == 0)) {
                return result.mapToFailed("%d sequences unclaimed %d tasks and removed %d signers: the property did not exercise both"
                        .formatted(tries, unclaims, removals));
            }
            return result;
        }
    }
}
