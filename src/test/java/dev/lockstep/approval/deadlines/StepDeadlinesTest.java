package dev.lockstep.approval.deadlines;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.createDraft;
import static dev.lockstep.approval.ApiFlows.draftOnAFlowWithADeadline;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.chaos.InvariantChecker;
import dev.lockstep.support.Api;
import dev.lockstep.support.AuditEntries;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.sql.Connection;
import java.sql.Timestamp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.activiti.engine.ManagementService;
import org.activiti.engine.RuntimeService;
import org.activiti.spring.SpringProcessEngineConfiguration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Step deadlines with the shipped default policies (application.yml), fired after the engine's clock is moved
 * forward: those of the built-in flows by the cluster scheduler's deadline scan, those of deployed definitions by the
 * engine's own async executor (their timers). Each firing is one XA transaction, so the engine, the todo projection, the trail, the outbox and,
 * for a final action, the application move together. Everything is read back with plain SQL.
 */
@LockstepIntegrationTest
@TestPropertySource(properties = {"lockstep.engine.jobs.acquire-wait=1s", "lockstep.scheduler.polling-interval=1s",
        "lockstep.deadlines.scan-interval=1s"})
class StepDeadlinesTest {

    /**
     * A due step fires within a scan interval here (1s), a due timer within a second (acquire-wait 1s). A timer firing
     * whose executor thread died after it took the job (Activiti's own failure handling can throw when a decision won
     * the race and deleted the job's execution) waits for its lock to expire and be reset: at most lock-time +
     * reset-expired-interval + acquire-wait = 30 + 10 + 1 s.
     */
    private static final Duration FIRES_WITHIN = Duration.ofSeconds(75);

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;
    @Autowired
    SpringProcessEngineConfiguration engine;
    @Autowired
    ManagementService management;
    @Autowired
    RuntimeService runtime;
    @Autowired
    DeadlineScan scan;

    /** Keeps the engine's clock running ahead of the wall clock (a set engine clock stands still otherwise). */
    private final ScheduledExecutorService ticking = Executors.newSingleThreadScheduledExecutor();
    private volatile Duration ahead = Duration.ZERO;

    @BeforeEach
    void engineClockTicks() {
        ticking.scheduleAtFixedRate(() -> engine.getClock().setCurrentTime(Date.from(Instant.now().plus(ahead))), 0, 100,
                TimeUnit.MILLISECONDS);
    }

    @AfterEach
    void engineClockBack() throws InterruptedException {
        ticking.shutdownNow();
        ticking.awaitTermination(5, TimeUnit.SECONDS);
        engine.getClock().reset();
    }

    @Test
    void aReminderMarksTheStepOverdueOnTheTodoListTrailAndOutbox() throws Exception {
        WaitingStep step = lowRiskAtManagerApproval();
        long id = step.applicationId();
        String task = step.task();
        Instant created = instant("select created_at from task_projection where task_id = ?", task);
        assertThat(instant("select due_at from task_projection where task_id = ?", task))
                .isCloseTo(created.plus(Duration.ofDays(2)), within(Duration.ofSeconds(5)));
        long actionsBefore = actionSeq(id);

        advanceEngineClock(Duration.ofDays(2).plusMinutes(1));

        awaitEvent(id, "REMINDED");
        assertThat(db.business().queryForMap("""
                select kind, actor_id, open_task_ids, open_task_names, reason from application_event where application_id = ?""", id))
                .containsEntry("actor_id", "deadline").containsEntry("open_task_ids", task)
                .containsEntry("open_task_names", "Manager approval");
        assertThat(db.business().queryForObject("select overdue_since is not null from task_projection where task_id = ?",
                Boolean.class, task)).isTrue();
        assertThat(notifications(id)).singleElement().satisfies(payload -> assertThat(payload)
                .contains("\"kind\":\"REMINDED\"").contains("\"step\":\"managerApproval\"").contains("\"recipientGroups\":[\"managers\"]"));
        assertThat(status(id)).isEqualTo("APPROVING");
        // the firing went through the action fence like a person's action
        assertThat(actionSeq(id)).isEqualTo(actionsBefore + 1);
        JsonNode todo = todoItem("bob", task);
        assertThat(todo.get("overdue").asBoolean()).isTrue();
        assertThat(todo.get("dueAt").isNull()).isFalse();
        assertConsistent();
    }

    @Test
    void anEscalationOffersTheStepToTheEscalationGroupInTheSameTransaction() throws Exception {
        WaitingStep step = lowRiskAtManagerApproval();
        long id = step.applicationId();
        String task = step.task();

        advanceEngineClock(Duration.ofDays(5).plusMinutes(1));

        awaitEvent(id, "ESCALATED");
        assertThat(db.business().queryForList("select group_id from task_offer where task_id = ? order by group_id", String.class, task))
                .containsExactly("managers", "senior-managers");
        assertThat(db.business().queryForObject("select array_to_string(candidate_groups, ',') from task_projection where task_id = ?",
                String.class, task)).isEqualTo("managers,senior-managers");
        assertThat(notifications(id)).anySatisfy(payload -> assertThat(payload)
                .contains("\"kind\":\"ESCALATED\"").contains("\"recipientGroups\":[\"senior-managers\"]"));
        // the engine offers it too: the candidate link is there
        assertThat(engine.getTaskService().getIdentityLinksForTask(task)).anySatisfy(link ->
                assertThat(link.getGroupId()).isEqualTo("senior-managers"));
        assertThat(status(id)).isEqualTo("APPROVING");
        assertConsistent();
    }

    @Test
    void theFinalDeadlineOfALowRiskApplicationReturnsItToTheApplicantWhoMayResubmit() throws Exception {
        WaitingStep step = lowRiskAtManagerApproval();
        long id = step.applicationId();
        String processInstanceId = step.processInstanceId();
        String task = step.task();

        advanceEngineClock(Duration.ofDays(15).plusMinutes(1));

        awaitEvent(id, "OVERDUE_RETURNED");
        assertThat(status(id)).isEqualTo("DRAFT");
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, processInstanceId)).isEqualTo("RETURNED");
        assertThat(db.business().queryForObject("select state from task_projection where task_id = ?", String.class, task))
                .isEqualTo("CANCELED");
        assertThat(runtime.createProcessInstanceQuery().processInstanceId(processInstanceId).count()).isZero();
        assertThat(engine.getHistoryService().createHistoricVariableInstanceQuery().processInstanceId(processInstanceId)
                .variableName("outcome").singleResult().getValue()).isEqualTo("RETURNED");
        assertThat(notifications(id)).anySatisfy(payload -> assertThat(payload)
                .contains("\"kind\":\"OVERDUE_RETURNED\"").contains("\"recipientUsers\":[\"alice\"]"));
        assertConsistent();

        ahead = Duration.ZERO;
        String secondRun = submit(api, id);
        assertThat(db.business().queryForMap("select approval_status, lifecycle_no from application where id = ?", id))
                .containsEntry("approval_status", "APPROVING").containsEntry("lifecycle_no", 2);
        assertThat(secondRun).isNotEqualTo(processInstanceId);
    }

    @Test
    void theFinalDeadlineOfAHighRiskApplicationRejectsIt() throws Exception {
        long id = createDraft(api, "HIGH", false);
        String processInstanceId = submit(api, id);

        advanceEngineClock(Duration.ofDays(10).plusMinutes(1));

        awaitEvent(id, "OVERDUE_REJECTED");
        assertThat(status(id)).isEqualTo("REJECTED");
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, processInstanceId)).isEqualTo("REJECTED");
        assertThat(db.business().queryForObject(
                "select count(*) from application_event where application_id = ? and kind = 'OVERDUE_REJECTED'", Integer.class, id))
                .isEqualTo(1);
        // never an approval, never a publication
        assertThat(db.business().queryForObject("select count(*) from outbox_event where aggregate_type = 'APPLICATION' and aggregate_id = ? and event_type = ?",
                Integer.class, Long.toString(id), "ASSET_PUBLISH_REQUESTED")).isZero();
        assertThat(runtime.createProcessInstanceQuery().processInstanceId(processInstanceId).count()).isZero();
        assertConsistent();
    }

    @Test
    void aHighRiskApplicationIsRemindedSoonerThanALowRiskOne() throws Exception {
        long low = createDraft(api, "LOW", false);
        long high = createDraft(api, "HIGH", false);
        String lowRun = submit(api, low);
        String highRun = submit(api, high);
        assertThat(remindDue(highRun)).isCloseTo(remindDue(lowRun).minus(Duration.ofDays(1)), within(Duration.ofSeconds(10)));

        advanceEngineClock(Duration.ofDays(1).plusMinutes(1));

        awaitEvent(high, "REMINDED");
        assertThat(events(low)).isEmpty();
        assertThat(db.business().queryForObject("select count(*) from task_projection where process_instance_id = ?"
                + " and state = 'OPEN' and overdue_since is null and due_at is not null", Integer.class, lowRun))
                .as("the low-risk step's reminder is still to come").isOne();
    }

    /**
     * No deadline is a timer: the step has its own execution alone, the engine no timer job, and the projection row holds
     * when it reminds, escalates and meets its final deadline.
     */
    @Test
    void aStepCarriesNoTimerAndItsProjectionRowItsThreeDeadlines() throws Exception {
        WaitingStep step = lowRiskAtManagerApproval();
        assertThat(db.workflow().queryForList("select act_id_ from act_ru_execution where proc_inst_id_ = ? and parent_id_ is not null",
                String.class, step.processInstanceId())).containsExactly("managerApproval");
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_timer_job where process_instance_id_ = ?", Integer.class,
                step.processInstanceId())).isZero();
        Instant created = instant("select created_at from task_projection where task_id = ?", step.task());
        assertThat(instant("select due_at from task_projection where task_id = ?", step.task()))
                .isCloseTo(created.plus(Duration.ofDays(2)), within(Duration.ofSeconds(5)));
        assertThat(instant("select escalate_at from task_projection where task_id = ?", step.task()))
                .isCloseTo(created.plus(Duration.ofDays(5)), within(Duration.ofSeconds(5)));
        assertThat(instant("select final_at from task_projection where task_id = ?", step.task()))
                .isCloseTo(created.plus(Duration.ofDays(15)), within(Duration.ofSeconds(5)));
    }

    /**
     * Scans on several nodes at once (here: threads beside the scheduler's own) claim a due step by a compare-and-set on
     * its projection rows: the reminder is fired once, with one trail entry, one notification and one pass through
     * the action fence.
     */
    @Test
    void concurrentScansRemindADueStepOnce() throws Exception {
        WaitingStep step = lowRiskAtManagerApproval();
        long id = step.applicationId();
        long actionsBefore = actionSeq(id);
        ExecutorService nodes = Executors.newFixedThreadPool(4);
        try {
            advanceEngineClock(Duration.ofDays(2).plusMinutes(1));
            List<Future<?>> scans = new ArrayList<>();
            for (int node = 0; node < 4; node++) {
                scans.add(nodes.submit(scan::run));
            }
            for (Future<?> done : scans) {
                done.get(60, TimeUnit.SECONDS);
            }
            awaitEvent(id, "REMINDED");
        } finally {
            nodes.shutdownNow();
        }
        assertThat(events(id)).containsExactly("REMINDED");
        assertThat(notifications(id)).hasSize(1);
        assertThat(actionSeq(id)).isEqualTo(actionsBefore + 1);
        assertConsistent();
    }

    /**
     * The countersign step's shipped policy (remind 3d, escalate 7d to managers, reject at 20d) on a countersign whose
     * first signer has voted: the reminder goes once to the two outstanding signers alone, the escalation offers their
     * tasks to managers too, and the final deadline rejects the application; each firing passes the action fence once
     * and moves the engine, the projection, the trail and the outbox together (issue 36 item 4).
     */
    @Test
    void aCountersignStepRemindsEachOutstandingSignerOnceThenEscalatesThenRejects() throws Exception {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "Data-sharing agreement", "assetId": 7, "amount": 50000, "riskLevel": "LOW", "sensitive": false,
                 "countersign": {"signers": ["bob", "carol", "dave"], "policy": "ALL"}}""");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        long id = created.json().get("id").asLong();
        String processInstanceId = submit(api, id);
        assertThat(complete(api, "bob", signersTask(processInstanceId, "bob"), "APPROVE").status()).isEqualTo(200);
        List<String> outstanding = List.of(signersTask(processInstanceId, "carol"), signersTask(processInstanceId, "dave"));
        long actions = actionSeq(id);

        advanceEngineClock(Duration.ofDays(3).plusMinutes(1));
        awaitEvent(id, "REMINDED");
        assertThat(db.business().queryForObject("select open_task_ids from application_event where application_id = ?"
                + " and kind = 'REMINDED'", String.class, id).split(",")).containsExactlyInAnyOrderElementsOf(outstanding);
        assertThat(notifications(id)).singleElement().satisfies(payload -> assertThat(payload).contains("\"kind\":\"REMINDED\"")
                .contains("\"step\":\"countersign\"").contains("\"recipientUsers\":[\"carol\",\"dave\"]"));
        assertThat(db.business().queryForList("select task_id from task_projection where application_id = ?"
                + " and overdue_since is not null", String.class, id)).containsExactlyInAnyOrderElementsOf(outstanding);
        assertThat(actionSeq(id)).as("one firing, one pass through the fence").isEqualTo(actions + 1);

        advanceEngineClock(Duration.ofDays(7).plusMinutes(1));
        awaitEvent(id, "ESCALATED");
        for (String task : outstanding) {
            assertThat(engine.getTaskService().getIdentityLinksForTask(task)).anySatisfy(link ->
                    assertThat(link.getGroupId()).isEqualTo("managers"));
            assertThat(db.business().queryForObject("select array_to_string(candidate_groups, ',') from task_projection"
                    + " where task_id = ?", String.class, task)).isEqualTo("managers");
        }
        assertThat(notifications(id)).last().satisfies(payload -> assertThat(payload).contains("\"kind\":\"ESCALATED\"")
                .contains("\"recipientGroups\":[\"managers\"]"));
        assertThat(events(id)).as("reminded once, four days after the reminder").containsExactly("REMINDED", "ESCALATED");
        assertThat(actionSeq(id)).isEqualTo(actions + 2);
        assertThat(status(id)).isEqualTo("APPROVING");

        advanceEngineClock(Duration.ofDays(20).plusMinutes(1));
        awaitEvent(id, "OVERDUE_REJECTED");
        assertThat(status(id)).isEqualTo("REJECTED");
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, processInstanceId)).isEqualTo("REJECTED");
        assertThat(events(id)).containsExactly("REMINDED", "ESCALATED", "OVERDUE_REJECTED");
        assertThat(AuditEntries.of(db, id)).as("each firing one audit entry, in its XA transaction")
                .filteredOn(entry -> ((String) entry.get("action")).startsWith("DEADLINE_"))
                .allSatisfy(entry -> assertThat(entry).containsEntry("actor", "deadline")
                        .hasEntrySatisfying("gtrid", gtrid -> assertThat(gtrid).isNotNull()))
                .extracting(entry -> entry.get("action"))
                .containsExactlyInAnyOrder("DEADLINE_REMINDED", "DEADLINE_ESCALATED", "DEADLINE_OVERDUE_REJECTED");
        assertThat(db.business().queryForList("select state from task_projection where application_id = ? order by state",
                String.class, id)).containsExactly("CANCELED", "CANCELED", "COMPLETED");
        assertThat(notifications(id)).last().satisfies(payload -> assertThat(payload)
                .contains("\"kind\":\"OVERDUE_REJECTED\"").contains("\"recipientUsers\":[\"alice\"]"));
        assertThat(runtime.createProcessInstanceQuery().processInstanceId(processInstanceId).count()).isZero();
        assertThat(db.business().queryForObject("select count(*) from outbox_event where aggregate_type = 'APPLICATION' and aggregate_id = ? and event_type = ?",
                Integer.class, Long.toString(id), "ASSET_PUBLISH_REQUESTED")).isZero();
        assertConsistent();
    }

    /**
     * A declarative flow's {@code deadline} (issue 30) is the built-in final deadline's action on the compiled timer's
     * flow: its firing rejects the application in the timer job's XA transaction, as the built-in one does.
     */
    @Test
    void theDeadlineOfADeclarativeFlowRejectsTheApplicationInTheFiringsTransaction() throws Exception {
        long id = draftOnAFlowWithADeadline(api, "P1D");
        String processInstanceId = submit(api, id);
        String task = openTaskId(db, processInstanceId, "release");

        advanceEngineClock(Duration.ofDays(1).plusMinutes(1));

        awaitEvent(id, "OVERDUE_REJECTED");
        assertThat(status(id)).isEqualTo("REJECTED");
        assertThat(db.business().queryForMap("select binding_status, ended_at is not null as ended from business_process_binding"
                + " where process_instance_id = ?", processInstanceId)).containsEntry("binding_status", "REJECTED").containsEntry("ended", true);
        assertThat(db.business().queryForMap("select actor_id, reason from application_event where application_id = ? and kind = ?",
                id, "OVERDUE_REJECTED")).containsEntry("actor_id", "deadline")
                .containsEntry("reason", "Release passed its final deadline: the application was rejected");
        assertThat(db.business().queryForObject("select state from task_projection where task_id = ?", String.class, task))
                .isEqualTo("CANCELED");
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_execution where proc_inst_id_ = ?", Integer.class,
                processInstanceId)).isZero();
        assertThat(db.workflow().queryForObject("select end_act_id_ from act_hi_procinst where proc_inst_id_ = ?", String.class,
                processInstanceId)).isEqualTo("flow-rejected");
        assertThat(notifications(id)).singleElement().satisfies(payload -> assertThat(payload)
                .contains("\"kind\":\"OVERDUE_REJECTED\"").contains("\"step\":\"release\""));
        assertConsistent();
        assertThat(db.business().queryForObject("select count(*) from pg_prepared_xacts", Integer.class)).isZero();
        assertThat(db.workflow().queryForObject("select count(*) from pg_prepared_xacts", Integer.class)).isZero();
    }

    /**
     * An uploaded BPMN whose step's deadline leads to a RETURNED end: when it fires, the application goes back to its
     * applicant in the firing's transaction, as a built-in final deadline with RETURN does.
     */
    @Test
    void theDeadlineOfAnUploadedBpmnReturnsTheApplicationToItsApplicantInTheFiringsTransaction() throws Exception {
        String type = "RETURNING_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8).toUpperCase(Locale.ROOT);
        assertThat(api.post("erin", "/api/business-types", """
                {"key": "%s", "name": "Returning", "schema": {"type": "object"}, "publishes": false}""".formatted(type)).status())
                .isEqualTo(201);
        String bpmn = """
                <?xml version="1.0" encoding="UTF-8"?>
                <definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:activiti="http://activiti.org/bpmn"
                             xmlns:lockstep="https://lockstep.dev/bpmn" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                             targetNamespace="https://example.org/returning">
                  <process id="returning" name="Returning" isExecutable="true">
                    <startEvent id="start"/>
                    <sequenceFlow id="toRelease" sourceRef="start" targetRef="release"/>
                    <userTask id="release" name="Release" activiti:candidateGroups="managers"/>
                    <boundaryEvent id="releaseDue" attachedToRef="release" cancelActivity="true">
                      <timerEventDefinition><timeDuration xsi:type="tFormalExpression">P1D</timeDuration></timerEventDefinition>
                    </boundaryEvent>
                    <sequenceFlow id="overdue" sourceRef="releaseDue" targetRef="backToApplicant"/>
                    <sequenceFlow id="released" sourceRef="release" targetRef="approved"/>
                    <endEvent id="approved" lockstep:outcome="APPROVED"/>
                    <endEvent id="backToApplicant" lockstep:outcome="RETURNED"/>
                  </process>
                </definitions>
                """;
        Api.Response proposed = api.postDocument("erin", "/api/business-types/" + type + "/definitions", "application/xml",
                bpmn.getBytes(StandardCharsets.UTF_8));
        long id = applicationOnFirstVersion(type, proposed, "{}");
        String processInstanceId = submit(api, id);
        String task = openTaskId(db, processInstanceId, "release");

        advanceEngineClock(Duration.ofDays(1).plusMinutes(1));

        awaitEvent(id, "OVERDUE_RETURNED");
        assertThat(status(id)).isEqualTo("DRAFT");
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, processInstanceId)).isEqualTo("RETURNED");
        assertThat(db.business().queryForObject("select state from task_projection where task_id = ?", String.class, task))
                .isEqualTo("CANCELED");
        assertThat(db.workflow().queryForObject("select end_act_id_ from act_hi_procinst where proc_inst_id_ = ?", String.class,
                processInstanceId)).isEqualTo("backToApplicant");
        assertThat(notifications(id)).singleElement().satisfies(payload -> assertThat(payload).contains("\"kind\":\"OVERDUE_RETURNED\""));
        assertConsistent();
        assertThat(db.business().queryForObject("select count(*) from pg_prepared_xacts", Integer.class)).isZero();
        assertThat(db.workflow().queryForObject("select count(*) from pg_prepared_xacts", Integer.class)).isZero();
    }

    /** grace activates the version erin {@code proposed} (v1 of {@code type}); alice creates a draft of the type with {@code fields}. */
    private long applicationOnFirstVersion(String type, Api.Response proposed, String fields) {
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(201);
        Api.Response approved = api.post("grace", "/api/business-types/" + type + "/definitions/1/approve", null);
        assertThat(approved.status()).as(approved.toString()).isEqualTo(200);
        Api.Response created = api.post("alice", "/api/applications",
                "{\"type\": \"%s\", \"title\": \"Release payment\", \"fields\": %s}".formatted(type, fields));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    /**
     * Two approvals of the same step while its final deadline fires: exactly one of the three acts, the
     * others are refused or rolled back, and both databases agree. The approvals of each application
     * start a little later than the previous one's, so that some meet the firing before it commits and
     * some after (which side wins is up to the scheduler; either way there is one winner).
     */
    @Test
    void twoDecidersRacingAFiringFinalDeadlineLeaveOneWinner() throws Exception {
        List<Long> ids = new ArrayList<>();
        List<String> tasks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            long id = createDraft(api, "HIGH", false);
            ids.add(id);
            tasks.add(openTaskId(db, submit(api, id), "managerApproval"));
        }
        ExecutorService threads = Executors.newFixedThreadPool(12);
        try {
            advanceEngineClock(Duration.ofDays(10).plusMinutes(1));
            List<Future<Api.Response>> decisions = new ArrayList<>();
            for (int i = 0; i < tasks.size(); i++) {
                String task = tasks.get(i);
                long delayMillis = 400L * i;
                Callable<Api.Response> approve = () -> {
                    Thread.sleep(delayMillis);
                    return complete(api, "bob", task, "APPROVE");
                };
                decisions.add(threads.submit(approve));
                decisions.add(threads.submit(approve));
            }
            await().atMost(FIRES_WITHIN).until(() -> ids.stream().allMatch(id -> !status(id).equals("APPROVING")
                    || db.business().queryForObject("select count(*) from approval_record where application_id = ?", Integer.class, id) > 0));
            for (int i = 0; i < ids.size(); i++) {
                long id = ids.get(i);
                List<Integer> statuses = List.of(decisions.get(2 * i).get().status(), decisions.get(2 * i + 1).get().status());
                int approvals = db.business().queryForObject("select count(*) from approval_record where application_id = ?",
                        Integer.class, id);
                int finalActions = db.business().queryForObject(
                        "select count(*) from application_event where application_id = ? and kind = 'OVERDUE_REJECTED'", Integer.class, id);
                assertThat(approvals + finalActions).as("application %d: decisions %s", id, statuses).isEqualTo(1);
                assertThat(statuses.stream().filter(status -> status == 200).count()).isEqualTo(approvals);
                assertThat(statuses).allMatch(status -> status == 200 || status == 409);
                if (finalActions == 1) {
                    assertThat(status(id)).isEqualTo("REJECTED");
                } else {
                    // the manager's approval won: the step moved on and its deadline timers went with it
                    assertThat(status(id)).isEqualTo("APPROVING");
                    assertThat(db.business().queryForObject("select count(*) from task_projection where application_id = ?"
                            + " and task_definition_key = 'managerApproval' and state = 'COMPLETED'", Integer.class, id)).isEqualTo(1);
                }
            }
        } finally {
            threads.shutdownNow();
        }
        assertConsistent();
    }

    /**
     * Waits on the databases. The engine's executor threads may throw on their own (Activiti's unacquire of
     * an exclusive job that another firing of the same run has already taken); the job is then retried,
     * and what counts is what the databases hold.
     */
    private static ConditionFactory await() {
        return Awaitility.await().dontCatchUncaughtExceptions();
    }

    /** A LOW-risk application just submitted, its manager-approval step waiting with its deadlines set. */
    private WaitingStep lowRiskAtManagerApproval() throws Exception {
        long id = createDraft(api, "LOW", false);
        String processInstanceId = submit(api, id);
        return new WaitingStep(id, processInstanceId, openTaskId(db, processInstanceId, "managerApproval"));
    }

    private record WaitingStep(long applicationId, String processInstanceId, String task) {
    }

    private String signersTask(String processInstanceId, String signer) {
        return db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ? and assignee_ = ?",
                String.class, processInstanceId, signer);
    }

    /** From now on the engine's clock runs {@code by} ahead: due timers fire, and a failed firing's retry comes due too. */
    private void advanceEngineClock(Duration by) {
        ahead = by;
        engine.getClock().setCurrentTime(Date.from(Instant.now().plus(by)));
    }

    private void awaitEvent(long applicationId, String kind) {
        await().atMost(FIRES_WITHIN).until(() -> events(applicationId).contains(kind));
    }

    private List<String> events(long applicationId) {
        return db.business().queryForList("select kind from application_event where application_id = ? order by id", String.class,
                applicationId);
    }

    private List<String> notifications(long applicationId) {
        return db.business().queryForList("select payload_json from outbox_event where aggregate_type = 'APPLICATION' and aggregate_id = ? and event_type = ?"
                + " order by created_at", String.class, Long.toString(applicationId), "DEADLINE_NOTIFICATION");
    }

    private String status(long applicationId) {
        return db.business().queryForObject("select approval_status from application where id = ?", String.class, applicationId);
    }

    private long actionSeq(long applicationId) {
        return db.business().queryForObject("select action_seq from application where id = ?", Long.class, applicationId);
    }

    private Instant instant(String sql, Object... args) {
        return db.business().queryForObject(sql, Timestamp.class, args).toInstant();
    }

    private Instant remindDue(String processInstanceId) {
        return instant("select due_at from task_projection where process_instance_id = ? and task_definition_key = 'managerApproval'"
                + " and state = 'OPEN'", processInstanceId);
    }

    private JsonNode todoItem(String user, String taskId) {
        for (JsonNode item : api.get(user, "/api/tasks?size=100").json().get("items")) {
            if (item.get("id").asString().equals(taskId)) {
                return item;
            }
        }
        throw new AssertionError("task " + taskId + " is not on " + user + "'s todo list");
    }

    private static org.assertj.core.data.TemporalUnitOffset within(Duration duration) {
        return new org.assertj.core.data.TemporalUnitWithinOffset(duration.toMillis(), java.time.temporal.ChronoUnit.MILLIS);
    }

    /** Once no job is in flight, both databases hold one consistent state (read with plain SQL). */
    private void assertConsistent() throws Exception {
        await().atMost(FIRES_WITHIN).until(() -> management.createJobQuery().count() == 0);
        assertThat(violations()).isEmpty();
    }

    private List<String> violations() throws Exception {
        try (Connection business = db.business().getDataSource().getConnection();
                Connection workflow = db.workflow().getDataSource().getConnection()) {
            return new InvariantChecker().check(business, workflow, false).violations();
        }
    }
}
