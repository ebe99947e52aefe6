package dev.lockstep.approval.countersign;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.PropertyRunSettings;
import dev.lockstep.support.SecondNode;
import dev.lockstep.support.TestDatabases;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;
import org.springframework.context.ApplicationContext;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.test.context.TestContextManager;

/**
 * Issue 36, item 4: random countersigns through the real service — policy ALL, ONE_VETO or RATIO at any threshold
 * (boundaries such as 2 of 4 at 0.50 drawn often), one to seven signers, then votes, additions and an admin's removals
 * in any order — against a small model of the policies written here from their documented meaning
 * ({@code Countersign.Policy}). After every step the service must agree with the model on the answer (including
 * which refusal), the application's status (so the moment the step is decided), the open signer tasks in ACT_RU_TASK
 * and the decision records, all read with plain SQL. 100 countersigns by default, {@code -Dcountersign.tries=1000}
 * for the long run (docs/approvals.md).
 *
 * <p>The embedded default has four demo approvers, and embedded mode refuses configured users: so the requests go to a
 * second service process in external mode on the same two databases ({@link SecondNode}), with seven configured
 * approvers. The concurrent last votes are in {@code CountersignTest}.
 */
@LockstepIntegrationTest
class CountersignPropertyTest {

    private static final List<String> APPROVERS = List.of("bob", "carol", "dave", "frank", "heidi", "ivan", "judy");
    private static final String ADMIN = "erin";

    private static SecondNode node;
    private static Api api;
    private static TestDatabases db;

    @BeforeContainer
    static void service() {
        ApplicationContext context = new TestContextManager(CountersignPropertyTest.class).getTestContext().getApplicationContext();
        db = context.getBean(TestDatabases.class);
        List<String[]> users = new ArrayList<>(List.of(new String[] {"alice", "APPLICANT", null},
                new String[] {ADMIN, "ADMIN", null}));
        APPROVERS.forEach(approver -> users.add(new String[] {approver, "APPROVER", "managers"}));
        node = SecondNode.start(context.getBean(DatabaseEndpoints.class), "countersign-property.tm", List.of(),
                SecondNode.users(users.toArray(String[][]::new)));
        // up once it answers: health may report DOWN for what earlier tests left in the shared databases
        node.jvm().awaitHealth(Duration.ofMinutes(5), status -> true);
        api = new Api(new MockEnvironment().withProperty("local.server.port", node.baseUrl().replaceAll(".*:", "")));
    }

    @AfterContainer
    static void stopTheNode() {
        node.jvm().stop(Duration.ofMinutes(1));
    }

    @Property(shrinking = ShrinkingMode.OFF)
    @AddLifecycleHook(Settings.class)
    void everyCountersignEndsWhenAndHowItsPolicySays(@ForAll("countersigns") Model model, @ForAll("steps") List<Step> steps) {
        Statistics.label("signers named").collect(model.signers().size());
        // every count from one to seven is drawn (the fixed seed's 100 tries and more)
        Statistics.label("signers named").coverage(coverage -> APPROVERS.forEach(approver ->
                coverage.check(APPROVERS.indexOf(approver) + 1).count(times -> times > 0)));
        long id = create(model);
        String run = ApiFlows.submit(api, id);
        assertAgrees(model, id, run, "after the submit");
        for (Step step : steps) {
            if (model.decided()) {
                break;
            }
            Expected expected = step.expected(model);
            Api.Response response = step.send(model, id, run);
            Statistics.label("step").collect(step.kind() + " " + (expected.code() == null ? "done" : expected.code()));
            assertThat(response.status()).as("%s on %s answered %s", step, model, response).isEqualTo(expected.status());
            if (expected.code() != null) {
                assertThat(response.json().get("code").asString()).as("%s on %s", step, model).isEqualTo(expected.code());
            }
            assertAgrees(model, id, run, "after " + step);
        }
        Statistics.label("outcome").collect(model.policy() + " " + (model.decided() ? model.approved() ? "APPROVED" : "REJECTED" : "open"));
        if (model.decided()) {
            assertThat(db.workflow().queryForObject("select count(*) from act_ru_execution where proc_inst_id_ = ?", Integer.class, run))
                    .as("no execution left of a decided countersign").isZero();
        }
    }

    private static void assertAgrees(Model model, long id, String run, String when) {
        String status = model.decided() ? model.approved() ? "APPROVED" : "REJECTED" : "APPROVING";
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .as("status of %s %s", model, when).isEqualTo(status);
        assertThat(db.workflow().queryForList("select assignee_ from act_ru_task where proc_inst_id_ = ? and task_def_key_ = 'countersign'",
                String.class, run)).as("open signer tasks of %s %s", model, when)
                .containsExactlyInAnyOrderElementsOf(model.decided() ? List.of() : model.outstanding());
        assertThat(db.business().queryForList("select approver_id || ' ' || decision from approval_record where application_id = ?",
                String.class, id)).as("decision records of %s %s", model, when).containsExactlyInAnyOrderElementsOf(model.records());
    }

    private static long create(Model model) {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "Countersign property", "assetId": 7, "amount": 50000, "riskLevel": "LOW", "sensitive": false,
                 "countersign": {"signers": [%s], "policy": "%s", "ratio": %s}}
                """.formatted(String.join(",", model.signers().stream().map(signer -> "\"" + signer + "\"").toList()), model.policy(),
                model.policy().equals("RATIO") ? "%d.%02d".formatted(model.ratioHundredths() / 100, model.ratioHundredths() % 100) : "null"));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    @Provide
    Arbitrary<Model> countersigns() {
        Arbitrary<Integer> ratio = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.integers().between(1, 100)),
                Tuple.of(1, Arbitraries.of(25, 33, 34, 50, 66, 67, 75, 100)));
        Arbitrary<List<String>> signers = Arbitraries.shuffle(APPROVERS).flatMap(all -> Arbitraries.integers().between(1, all.size())
                .map(count -> List.copyOf(all.subList(0, count))));
        return Combinators.combine(Arbitraries.of("ALL", "ONE_VETO", "RATIO"), ratio, signers).as(Model::new);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Kind> kinds = Arbitraries.frequency(Tuple.of(5, Kind.APPROVE), Tuple.of(3, Kind.REJECT), Tuple.of(3, Kind.ADD),
                Tuple.of(3, Kind.REMOVE));
        return Combinators.combine(kinds, Arbitraries.integers().between(0, 11)).as(Step::new).list().ofMinSize(1).ofMaxSize(12);
    }

    enum Kind { APPROVE, REJECT, ADD, REMOVE }

    /** What the service must answer: the status and, for a refusal, its code. */
    record Expected(int status, String code) {

        static final Expected DONE = new Expected(200, null);
    }

    /**
     * One step: a vote by the outstanding signer numbered {@code pick} (modulo), the admin adding the approver numbered
     * {@code pick} (whether or not they sign already), or the admin removing the outstanding signer numbered {@code pick}.
     */
    record Step(Kind kind, int pick) {

        String user(Model model) {
            List<String> from = kind == Kind.ADD ? APPROVERS : model.outstanding();
            return from.get(pick % from.size());
        }

        /** The model's answer, before the model takes the step. */
        Expected expected(Model model) {
            String user = user(model);
            return switch (kind) {
                case APPROVE, REJECT -> Expected.DONE;
                case ADD -> model.signers().contains(user) ? new Expected(model.outstanding().contains(user) || model.voted(user) ? 422 : 409,
                        "ALREADY_A_SIGNER") : Expected.DONE;
                case REMOVE -> model.refusalOfRemoving().map(code -> new Expected(409, code)).orElse(Expected.DONE);
            };
        }

        /** Sends the step and lets the model take it when the service accepted it. */
        Api.Response send(Model model, long id, String run) {
            String user = user(model);
            String signers = "/api/applications/" + id + "/countersign/signers";
            Api.Response response = switch (kind) {
                case APPROVE, REJECT -> ApiFlows.complete(api, user, db.workflow().queryForObject(
                        "select id_ from act_ru_task where proc_inst_id_ = ? and task_def_key_ = 'countersign' and assignee_ = ?",
                        String.class, run, user), kind.name());
                case ADD -> api.post(ADMIN, signers, "{\"userId\":\"" + user + "\"}", ApiFlows.key());
                case REMOVE -> api.post(ADMIN, signers + "/remove", "{\"userId\":\"" + user + "\"}", ApiFlows.key());
            };
            if (response.status() == 200) {
                switch (kind) {
                    case APPROVE, REJECT -> model.vote(user, kind.name());
                    case ADD -> model.add(user);
                    case REMOVE -> model.remove(user);
                }
            }
            return response;
        }
    }

    /**
     * The countersign as its policies describe it: every signer decides once; ALL is decided when everyone has and
     * approves only without a rejection; ONE_VETO is decided by the first rejection or when everyone approved; RATIO
     * approves once the approvals reach the ratio of the current signers (the smallest whole number of them) and
     * rejects once the approvals still possible cannot. A removal never decides the step and never leaves fewer signers
     * than the policy needs of those the applicant named.
     */
    static final class Model {

        private final String policy;
        private final int ratioHundredths;
        private final int named;
        private final List<String> signers;
        private final Map<String, String> votes = new java.util.LinkedHashMap<>();

        Model(String policy, int ratioHundredths, List<String> signers) {
            this.policy = policy;
            this.ratioHundredths = ratioHundredths;
            this.named = signers.size();
            this.signers = new ArrayList<>(signers);
        }

        String policy() {
            return policy;
        }

        int ratioHundredths() {
            return ratioHundredths;
        }

        List<String> signers() {
            return signers;
        }

        List<String> outstanding() {
            return signers.stream().filter(signer -> !votes.containsKey(signer)).toList();
        }

        boolean voted(String user) {
            return votes.containsKey(user);
        }

        List<String> records() {
            return votes.entrySet().stream().map(vote -> vote.getKey() + " " + vote.getValue()).toList();
        }

        void vote(String signer, String decision) {
            votes.put(signer, decision);
        }

        void add(String signer) {
            signers.add(signer);
        }

        void remove(String signer) {
            signers.remove(signer);
        }

        boolean decided() {
            return decided(signers.size());
        }

        boolean approved() {
            return policy.equals("RATIO") ? approvals() >= needed(signers.size()) : rejections() == 0;
        }

        /** The code that refuses an admin's removal of an outstanding signer now, if one does. */
        Optional<String> refusalOfRemoving() {
            if (signers.size() <= 1) {
                return Optional.of("LAST_SIGNER");
            }
            if (outstanding().size() <= 1) {
                return Optional.of("LAST_OUTSTANDING_SIGNER");
            }
            if (signers.size() - 1 < (policy.equals("RATIO") ? needed(named) : named)) {
                return Optional.of("BELOW_MINIMUM_DECIDERS");
            }
            return decided(signers.size() - 1) ? Optional.of("REMOVAL_WOULD_DECIDE") : Optional.empty();
        }

        private boolean decided(int signerCount) {
            int approvals = approvals();
            int rejections = rejections();
            return switch (policy) {
                case "ALL" -> approvals + rejections == signerCount;
                case "ONE_VETO" -> rejections > 0 || approvals == signerCount;
                default -> approvals >= needed(signerCount) || signerCount - rejections < needed(signerCount);
            };
        }

        /** RATIO: the fewest approvals of {@code signerCount} signers that reach the ratio. */
        private int needed(int signerCount) {
            int approvals = 0;
            while (approvals * 100 < ratioHundredths * signerCount) {
                approvals++;
            }
            return approvals;
        }

        private int approvals() {
            return (int) votes.values().stream().filter("APPROVE"::equals).count();
        }

        private int rejections() {
            return votes.size() - approvals();
        }

        @Override
        public String toString() {
            return policy + (policy.equals("RATIO") ? " " + ratioHundredths + "%" : "") + " signers " + signers + " votes " + votes;
        }
    }

    public static class Settings extends PropertyRunSettings {

        public Settings() {
            super("Countersign property", "countersign", "3600000000000000004", 100);
        }
    }
}
