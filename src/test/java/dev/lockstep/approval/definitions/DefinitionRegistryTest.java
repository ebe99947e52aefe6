package dev.lockstep.approval.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import dev.lockstep.transactions.workflow.DeployedDefinitions;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Business types and four-eyes activation of their definitions over real HTTP (issue 30), with plain SQL on both
 * databases for what they hold. erin and grace are the two demo admins.
 */
@LockstepIntegrationTest
class DefinitionRegistryTest {

    static final String SCHEMA = """
            {"type": "object", "properties": {"amount": {"type": "number"}, "urgent": {"type": "boolean"},
             "tags": {"type": "array", "items": {"type": "string"}}}}""";

    /** One manager step between start and the two outcomes, in the Camunda Modeler's dialect: the smallest flow the product runs. */
    static final String ONE_STEP = """
            <?xml version="1.0" encoding="UTF-8"?>
            <bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
                xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:lockstep="https://lockstep.dev/bpmn"
                xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="Definitions_1" targetNamespace="http://bpmn.io/schema/bpmn">
              <bpmn:process id="Process_1" name="Payment release" isExecutable="true">
                <bpmn:startEvent id="start"/>
                <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="managerApproval"/>
                <bpmn:userTask id="managerApproval" name="Manager approval" camunda:candidateGroups="managers"/>
                <bpmn:sequenceFlow id="f2" sourceRef="managerApproval" targetRef="decided"/>
                <bpmn:exclusiveGateway id="decided" default="f3"/>
                <bpmn:sequenceFlow id="f3" sourceRef="decided" targetRef="approved"/>
                <bpmn:sequenceFlow id="f4" sourceRef="decided" targetRef="rejected">
                  <bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${decision == 'REJECT'}</bpmn:conditionExpression>
                </bpmn:sequenceFlow>
                <bpmn:endEvent id="approved" lockstep:outcome="APPROVED"/>
                <bpmn:endEvent id="rejected" lockstep:outcome="REJECTED"/>
              </bpmn:process>
            </bpmn:definitions>
            """;

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;
    @Autowired
    PlatformTransactionManager jta;
    @Autowired
    DeployedDefinitions engine;
    @Autowired
    DefinitionRegistry registry;

    @Test
    void anAdminRegistersABusinessTypeAndItIsStoredAsRegistered() {
        String key = newKey();

        Api.Response registered = register("erin", key, SCHEMA, "[\"amount\", \"urgent\"]");

        assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
        assertThat(registered.header("Location")).isEqualTo("/api/business-types/" + key);
        assertThat(db.business().queryForMap("select name, routable_fields, publishes, built_in, registered_by from business_type"
                + " where type_key = ?", key)).containsEntry("name", "Payment release").containsEntry("routable_fields",
                "[\"amount\",\"urgent\"]").containsEntry("publishes", false).containsEntry("built_in", false)
                .containsEntry("registered_by", "erin");
        assertThat(auditEntries("BUSINESS_TYPE_REGISTERED", "business type " + key)).isEqualTo(1);
        Api.Response read = api.get("audrey", "/api/business-types/" + key);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().get("routableFields").get(1).asString()).isEqualTo("urgent");
    }

    @Test
    void theBuiltInApplicationTypeIsSeededAndTakesNoUploads() {
        assertThat(db.business().queryForMap("select built_in, publishes, routable_fields from business_type"
                + " where type_key = 'APPLICATION'")).containsEntry("built_in", true).containsEntry("publishes", true)
                .containsEntry("routable_fields", "[\"sensitive\",\"riskLevel\"]");

        Api.Response upload = upload("erin", "APPLICATION", ONE_STEP.getBytes(StandardCharsets.UTF_8));

        assertThat(upload.status()).as(upload.toString()).isEqualTo(409);
        assertThat(upload.json().get("code").asString()).isEqualTo("BUILT_IN_TYPE");
        assertThat(db.business().queryForObject("select count(*) from definition_version where type_key = 'APPLICATION'"
                + " and proposed_by <> 'lockstep'", Integer.class)).as("nothing of the upload stored").isZero();
    }

    /**
     * At startup the built-in flows' engine versions became APPLICATION's versions: one ACTIVE per process key, each the
     * engine's newest definition of its key (read with plain SQL from ACT_RE_PROCDEF), listed, read and drawn like a
     * registered type's; recording again adds nothing; they cannot be re-activated by hand.
     */
    @Test
    void theBuiltInFlowsAreApplicationsVersionsWithWhatRunsOnEach() {
        Map<String, String> newest = new HashMap<>();
        for (String key : List.of("applicationApproval", "countersignApproval")) {
            newest.put(key, db.workflow().queryForObject("select id_ from act_re_procdef where key_ = ? and version_ ="
                    + " (select max(version_) from act_re_procdef where key_ = ?)", String.class, key, key));
        }
        Map<String, String> active = new HashMap<>();
        db.business().query("select process_key, engine_definition_id from definition_version where type_key = 'APPLICATION'"
                + " and state = 'ACTIVE'", (org.springframework.jdbc.core.RowCallbackHandler) rs -> active.put(rs.getString(1), rs.getString(2)));
        assertThat(active).isEqualTo(newest);
        int rows = versionRows("APPLICATION");
        assertThat(auditEntries("DEFINITION_BUILT_IN_RECORDED", "APPLICATION v")).isEqualTo(rows);

        registry.recordBuiltInFlows(engine.builtIn());
        assertThat(versionRows("APPLICATION")).as("recorded once").isEqualTo(rows);

        Api.Response versions = api.get("audrey", "/api/business-types/APPLICATION/definitions");
        assertThat(versions.status()).as(versions.toString()).isEqualTo(200);
        JsonNode standard = null;
        for (JsonNode version : versions.json()) {
            if (newest.get("applicationApproval").equals(version.get("engineDefinitionId").asString())) {
                standard = version;
            }
        }
        assertThat(standard).isNotNull();
        assertThat(standard.get("state").asString()).isEqualTo("ACTIVE");
        assertThat(standard.get("proposedBy").asString()).isEqualTo("lockstep");
        assertThat(standard.get("steps")).extracting(JsonNode::asString)
                .containsExactlyInAnyOrder("managerApproval", "legalReview", "financeReview", "finalApproval");
        assertThat(standard.get("runningInstances").asLong()).isEqualTo(db.workflow().queryForObject(
                "select count(*) from act_ru_execution where proc_def_id_ = ? and parent_id_ is null", Long.class,
                newest.get("applicationApproval")));
        int number = standard.get("version").asInt();
        Api.Response bpmn = api.get("audrey", "/api/business-types/APPLICATION/definitions/" + number + "/bpmn", "application/xml");
        assertThat(bpmn.body()).contains("id=\"applicationApproval\"");
        Api.Response diagram = api.get("audrey", "/api/business-types/APPLICATION/definitions/" + number + "/diagram", "image/svg+xml");
        assertThat(diagram.status()).as(diagram.toString()).isEqualTo(200);
        assertThat(diagram.body()).contains("data-element-id=\"finalApproval\"");
        Api.Response reactivate = api.post("erin", "/api/business-types/APPLICATION/definitions/" + number + "/activation", null);
        assertThat(reactivate.status()).as(reactivate.toString()).isEqualTo(409);
        assertThat(reactivate.json().get("code").asString()).isEqualTo("BUILT_IN_TYPE");
    }

    @Test
    void aTypeIsRefusedWithAStableCodeForEachKindOfBadSchema() {
        String key = newKey();

        Api.Response invalidSchema = register("erin", key, "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"strin\"}}}", "[]");
        Api.Response unknownField = register("erin", key, SCHEMA, "[\"payee\"]");
        Api.Response notScalar = register("erin", key, SCHEMA, "[\"tags\"]");
        Api.Response badKey = register("erin", "lower", SCHEMA, "[]");
        Api.Response byApprover = register("bob", key, SCHEMA, "[]");

        assertThat(invalidSchema.status()).as(invalidSchema.toString()).isEqualTo(422);
        assertThat(invalidSchema.json().get("code").asString()).isEqualTo("SCHEMA_INVALID");
        assertThat(invalidSchema.json().get("pointer").asString()).isEqualTo("/properties/a/type");
        assertThat(unknownField.status()).isEqualTo(422);
        assertThat(unknownField.json().get("code").asString()).isEqualTo("ROUTABLE_FIELD_UNKNOWN");
        assertThat(notScalar.status()).isEqualTo(422);
        assertThat(notScalar.json().get("code").asString()).isEqualTo("ROUTABLE_FIELD_NOT_SCALAR");
        assertThat(badKey.status()).isEqualTo(400);
        assertThat(byApprover.status()).isEqualTo(403);
        assertThat(db.business().queryForObject("select count(*) from business_type where type_key = ?", Integer.class, key)).isZero();

        assertThat(register("erin", key, SCHEMA, "[]").status()).isEqualTo(201);
        Api.Response again = register("grace", key, SCHEMA, "[]");
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().get("code").asString()).isEqualTo("BUSINESS_TYPE_EXISTS");
    }

    @Test
    void aRefusedDefinitionAnswersItsProblemsAndStoresNothing() {
        String key = registered();

        Api.Response refused = upload("erin", key, "<definitions><process id=\"p\"><scriptTask id=\"s\"/></process></definitions>"
                .getBytes(StandardCharsets.UTF_8));

        assertThat(refused.status()).as(refused.toString()).isEqualTo(422);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        JsonNode problem = refused.json();
        assertThat(problem.get("code").asString()).isEqualTo("DEFINITION_INVALID");
        assertThat(problem.get("problems").isArray()).isTrue();
        assertThat(problem.get("problems").get(0).has("code")).isTrue();
        assertThat(problem.get("problems").get(0).has("elementId")).isTrue();
        assertThat(versionRows(key)).isZero();
        assertThat(db.business().queryForObject("select count(*) from definition_change where type_key = ?", Integer.class, key)).isZero();
    }

    /**
     * The controller reads the oversized body to its end and drops it before answering, so the client, still sending,
     * receives the 413 instead of a connection reset mid-body; Tomcat closes the connection after a 413, and the same
     * client's next request goes out on a new one.
     */
    @Test
    void aFiveMegabyteUploadIsAnswered413AndStoresNothingAndTheClientGoesOn() {
        String key = registered();
        byte[] huge = ("<definitions>" + "<!-- padding -->".repeat(5 * 1024 * 1024 / 16) + "</definitions>")
                .getBytes(StandardCharsets.UTF_8);

        Api.Response tooLarge = upload("erin", key, huge);

        assertThat(tooLarge.status()).as(tooLarge.toString()).isEqualTo(413);
        assertThat(tooLarge.contentType()).startsWith("application/problem+json");
        assertThat(tooLarge.json().get("code").asString()).isEqualTo("DEFINITION_TOO_LARGE");
        assertThat(versionRows(key)).isZero();
        Api.Response next = upload("erin", key, ONE_STEP.getBytes(StandardCharsets.UTF_8));
        assertThat(next.status()).as(next.toString()).isEqualTo(201);
        assertThat(versionRows(key)).isEqualTo(1);
    }

    /**
     * A client that sends its whole body before it reads (as curl does with a file) receives the 413 only because
     * the controller reads the rest of the body: a server that stopped reading would leave it blocked in its send
     * until the connection is reset, the answer unread. Tomcat closes the connection after a 413.
     */
    @Test
    void aClientThatSendsATwentyMegabyteBodyBeforeReadingReceivesThe413() throws Exception {
        String key = registered();
        URI server = URI.create(api.baseUrl());
        byte[] megabyte = new byte[1024 * 1024];
        Arrays.fill(megabyte, (byte) ' ');
        String answer;
        try (Socket socket = new Socket(server.getHost(), server.getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /api/business-types/" + key + "/definitions HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: application/xml\r\nAccept: application/json, application/problem+json\r\nContent-Length: " + 20 * megabyte.length
                    + "\r\nAuthorization: Basic " + Base64.getEncoder().encodeToString(("erin:" + Api.DEMO_PASSWORD)
                    .getBytes(StandardCharsets.UTF_8)) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < 20; i++) {
                out.write(megabyte);
            }
            out.flush();
            answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }

        assertThat(answer).startsWith("HTTP/1.1 413").contains("application/problem+json").contains("DEFINITION_TOO_LARGE");
        assertThat(versionRows(key)).isZero();
    }

    @Test
    void theProposerCannotApproveTheirOwnVersion() {
        String key = registered();
        proposedVersion(key, 1, "erin");

        Api.Response own = api.post("erin", "/api/business-types/" + key + "/definitions/1/approve", null);

        assertThat(own.status()).as(own.toString()).isEqualTo(403);
        assertThat(own.json().get("code").asString()).isEqualTo("FOUR_EYES_REQUIRED");
        assertThat(state(key, 1)).isEqualTo("PROPOSED");
        assertThat(db.business().queryForObject("select state from definition_change where type_key = ? and version = 1", String.class,
                key)).isEqualTo("PROPOSED");
    }

    @Test
    void theDatabaseRefusesAnyoneDecidingTheirOwnProposalAndASecondActiveVersion() {
        String key = registered();
        proposedVersion(key, 1, "erin");
        proposedVersion(key, 2, "erin");

        assertThat(violates("update definition_version set decided_by = 'erin' where type_key = ? and version = 1", key)).isTrue();
        assertThat(violates("update definition_version set state = 'ACTIVE', engine_definition_id = 'x' where type_key = ?", key))
                .isTrue();
    }

    /** Needs the real BPMN check (branch defcheck); with the placeholder every upload is refused. */
    @Test
    void aSecondAdminActivatesVersionsAndReactivatesARetiredOne() {
        String key = registered();

        Api.Response proposed = upload("erin", key, ONE_STEP.getBytes(StandardCharsets.UTF_8));
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(201);
        assertThat(proposed.header("Location")).isEqualTo("/api/business-types/" + key + "/definitions/1");
        assertThat(state(key, 1)).isEqualTo("PROPOSED");
        assertThat(auditEntries("DEFINITION_PROPOSED", key + " v1")).isEqualTo(1);

        Api.Response approved = api.post("grace", "/api/business-types/" + key + "/definitions/1/approve", null);
        assertThat(approved.status()).as(approved.toString()).isEqualTo(200);
        assertThat(state(key, 1)).isEqualTo("ACTIVE");
        String engineV1 = engineDefinitionId(key, 1);
        assertThat(db.workflow().queryForObject("select key_ from act_re_procdef where id_ = ?", String.class, engineV1))
                .isEqualTo("type_" + key);
        assertThat(auditEntries("DEFINITION_ACTIVATED", key + " v1")).isEqualTo(1);
        assertThat(db.business().queryForList("select action || ' ' || actor || ' ' || actor_roles from recovery_audit_intake"
                + " where definition_version = ? order by id", String.class, key + " v1"))
                .as("the version and who, with their roles, on each entry of the change")
                .containsExactly("DEFINITION_PROPOSED erin ADMIN", "DEFINITION_ACTIVATED grace ADMIN");
        assertThat(db.business().queryForMap("select proposed_by, decided_by from definition_version where type_key = ? and version = 1",
                key)).containsEntry("proposed_by", "erin").containsEntry("decided_by", "grace");

        assertThat(upload("grace", key, ONE_STEP.getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
        assertThat(api.post("erin", "/api/business-types/" + key + "/definitions/2/approve", null).status()).isEqualTo(200);
        assertThat(state(key, 1)).isEqualTo("RETIRED");
        assertThat(state(key, 2)).isEqualTo("ACTIVE");
        assertThat(db.workflow().queryForObject("select count(*) from act_re_procdef where key_ = ?", Integer.class, "type_" + key))
                .isEqualTo(2);

        Api.Response reproposed = api.post("erin", "/api/business-types/" + key + "/definitions/1/activation", null);
        assertThat(reproposed.status()).as(reproposed.toString()).isEqualTo(200);
        assertThat(api.post("erin", "/api/business-types/" + key + "/definitions/1/approve", null).status()).isEqualTo(403);
        Api.Response reactivated = api.post("grace", "/api/business-types/" + key + "/definitions/1/approve", null);
        assertThat(reactivated.status()).as(reactivated.toString()).isEqualTo(200);
        assertThat(state(key, 1)).isEqualTo("ACTIVE");
        assertThat(state(key, 2)).isEqualTo("RETIRED");
        assertThat(engineDefinitionId(key, 1)).isEqualTo(engineV1);
        assertThat(db.workflow().queryForObject("select count(*) from act_re_procdef where key_ = ?", Integer.class, "type_" + key))
                .isEqualTo(2);
        assertThat(db.business().queryForList("select proposed_by || '>' || decided_by from definition_change where type_key = ?"
                + " and version = 1 order by id", String.class, key)).containsExactly("erin>grace", "erin>grace");

        Api.Response versions = api.get("audrey", "/api/business-types/" + key + "/definitions");
        assertThat(versions.status()).isEqualTo(200);
        assertThat(versions.json().get(0).get("runningInstances").asLong()).isZero();
        Api.Response bpmn = api.get("audrey", "/api/business-types/" + key + "/definitions/1/bpmn", "application/xml");
        assertThat(bpmn.status()).isEqualTo(200);
        assertThat(bpmn.body()).contains("type_" + key);
    }

    @Test
    void aSecondAdminRejectsAProposalWhichIsNeverDeployedAndCannotBeDecidedAgain() {
        String key = registered();
        assertThat(upload("erin", key, ONE_STEP.getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);

        Api.Response own = api.post("erin", decision(key, 1, "reject"), null);
        Api.Response rejected = api.post("grace", decision(key, 1, "reject"), null);
        Api.Response approveAfter = api.post("grace", decision(key, 1, "approve"), null);
        Api.Response rejectAfter = api.post("grace", decision(key, 1, "reject"), null);

        assertThat(own.status()).as(own.toString()).isEqualTo(403);
        assertThat(own.json().get("code").asString()).isEqualTo("FOUR_EYES_REQUIRED");
        assertThat(rejected.status()).as(rejected.toString()).isEqualTo(200);
        assertThat(rejected.json().get("state").asString()).isEqualTo("REJECTED");
        for (Api.Response late : new Api.Response[] {approveAfter, rejectAfter}) {
            assertThat(late.status()).as(late.toString()).isEqualTo(409);
            assertThat(late.json().get("code").asString()).isEqualTo("NO_OPEN_PROPOSAL");
        }
        assertThat(db.business().queryForMap("select state, engine_definition_id, decided_by from definition_version"
                + " where type_key = ? and version = 1", key)).containsEntry("state", "REJECTED")
                .containsEntry("engine_definition_id", null).containsEntry("decided_by", "grace");
        assertThat(db.business().queryForList("select state || '>' || decided_by from definition_change where type_key = ?",
                String.class, key)).containsExactly("REJECTED>grace");
        assertThat(engineDefinitions(key)).isZero();
        assertThat(auditEntries("DEFINITION_REJECTED", key + " v1")).isEqualTo(1);
        assertThat(auditEntries("DEFINITION_ACTIVATED", key + " v1")).isZero();
    }

    @Test
    void anApprovalRepeatedUnderItsIdempotencyKeyActivatesOnceAndAnswersTheSame() {
        String key = registered();
        assertThat(upload("erin", key, ONE_STEP.getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
        String idempotencyKey = UUID.randomUUID().toString();

        Api.Response first = api.post("grace", decision(key, 1, "approve"), null, idempotencyKey);
        Api.Response replay = api.post("grace", decision(key, 1, "approve"), null, idempotencyKey);
        Api.Response otherRequest = api.post("grace", decision(key, 1, "reject"), null, idempotencyKey);

        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(replay.status()).as(replay.toString()).isEqualTo(200);
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(otherRequest.status()).as(otherRequest.toString()).isEqualTo(422);
        assertThat(otherRequest.json().get("code").asString()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(state(key, 1)).isEqualTo("ACTIVE");
        assertThat(engineDefinitions(key)).isEqualTo(1);
        assertThat(auditEntries("DEFINITION_ACTIVATED", key + " v1")).isEqualTo(1);
        assertThat(db.business().queryForObject("select count(*) from workflow_command where request_id = ?", Integer.class,
                idempotencyKey)).isEqualTo(1);
    }

    @Test
    void twoApprovalsOfOneProposalAtTheSameMomentActivateItOnceAndTheOtherIsAClear409() throws Exception {
        String key = registered();
        assertThat(upload("erin", key, ONE_STEP.getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);

        List<Api.Response> answers = atTheSameMoment(() -> api.post("grace", decision(key, 1, "approve"), null),
                () -> api.post("grace", decision(key, 1, "approve"), null));

        assertThat(answers).extracting(Api.Response::status).as(answers.toString()).containsExactlyInAnyOrder(200, 409);
        assertThat(answers).filteredOn(answer -> answer.status() == 409).first()
                .satisfies(loser -> assertThat(loser.json().get("code").asString()).isEqualTo("NO_OPEN_PROPOSAL"));
        assertThat(state(key, 1)).isEqualTo("ACTIVE");
        assertThat(engineDefinitions(key)).isEqualTo(1);
        assertThat(auditEntries("DEFINITION_ACTIVATED", key + " v1")).isEqualTo(1);
    }

    /**
     * Each round approves two versions of one type at the same moment: they queue on the type's row, both
     * activate, the later one stays ACTIVE. Probes the engine's version numbering too (see the next test).
     */
    @Test
    void twoVersionsOfOneTypeApprovedAtTheSameMomentLeaveExactlyOneActiveAndNoServerError() throws Exception {
        for (int round = 0; round < 6; round++) {
            String key = registered();
            assertThat(upload("erin", key, ONE_STEP.getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
            assertThat(upload("erin", key, ONE_STEP.getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);

            List<Api.Response> answers = atTheSameMoment(() -> api.post("grace", decision(key, 1, "approve"), null),
                    () -> api.post("grace", decision(key, 2, "approve"), null));

            for (Api.Response answer : answers) {
                assertThat(answer.status()).as(answer.toString()).isIn(200, 409);
                if (answer.status() == 409) {
                    assertThat(answer.json().get("code").asString()).isEqualTo("ACTIVATION_CONFLICT");
                }
            }
            int activated = (int) answers.stream().filter(answer -> answer.status() == 200).count();
            assertThat(db.business().queryForObject("select count(*) from definition_version where type_key = ? and state = 'ACTIVE'",
                    Integer.class, key)).isEqualTo(1);
            assertThat(engineDefinitions(key)).isEqualTo(activated);
            assertThat(db.workflow().queryForObject("select count(distinct version_) from act_re_procdef where key_ = ?",
                    Integer.class, "type_" + key)).isEqualTo(activated);
        }
    }

    /**
     * The race the previous test probes, made certain. Activations of one type queue on its business row, but that
     * lock goes with the business branch's commit, before the engine branch commits; the next activation then numbers
     * its engine version from what the engine has committed and collides on ACT_UNIQ_PROCDEF (key, version, tenant).
     * Here another deployment of the key stays uncommitted while the approval deploys.
     */
    @Test
    void anActivationCollidingWithAnUncommittedDeploymentOfItsKeyIsARetryable409AndChangesNothing() throws Exception {
        String key = registered();
        assertThat(upload("erin", key, ONE_STEP.getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
        byte[] deployable = db.business().queryForObject("select deployable_xml from definition_version where type_key = ? and version = 1",
                String.class, key).getBytes(StandardCharsets.UTF_8);
        ExecutorService client = Executors.newSingleThreadExecutor();
        try {
            Future<Api.Response> approval = new TransactionTemplate(jta).execute(status -> {
                engine.deploy("type_" + key, key + " committing elsewhere", deployable);
                Future<Api.Response> waiting = client.submit(() -> api.post("grace", decision(key, 1, "approve"), null));
                awaitEngineInsertWaitingForLock();
                return waiting;
            });
            Api.Response collided = approval.get(60, TimeUnit.SECONDS);

            assertThat(collided.status()).as(collided.toString()).isEqualTo(409);
            assertThat(collided.json().get("code").asString()).isEqualTo("ACTIVATION_CONFLICT");
            assertThat(collided.header("Retry-After")).isNotNull();
        } finally {
            client.shutdownNow();
        }
        assertThat(state(key, 1)).isEqualTo("PROPOSED");
        assertThat(db.business().queryForObject("select state from definition_change where type_key = ? and version = 1", String.class,
                key)).isEqualTo("PROPOSED");
        assertThat(auditEntries("DEFINITION_ACTIVATED", key + " v1")).isZero();
        assertThat(engineDefinitions(key)).isEqualTo(1);

        Api.Response retried = api.post("grace", decision(key, 1, "approve"), null);
        assertThat(retried.status()).as(retried.toString()).isEqualTo(200);
        assertThat(db.workflow().queryForObject("select version_ from act_re_procdef where id_ = ?", Integer.class,
                engineDefinitionId(key, 1))).isEqualTo(2);
    }

    private String registered() {
        String key = newKey();
        Api.Response registered = register("erin", key, SCHEMA, "[\"amount\"]");
        assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
        return key;
    }

    /** A PROPOSED version written with SQL, for the tests that must not depend on the BPMN check accepting it. */
    private void proposedVersion(String key, int version, String proposer) {
        db.business().update("""
                insert into definition_version (type_key, version, state, process_key, source_xml, deployable_xml, user_task_ids,
                                                proposed_by, proposed_at)
                values (?, ?, 'PROPOSED', ?, '<x/>', '<x/>', '[]', ?, now())""", key, version, "type_" + key, proposer);
        db.business().update("""
                insert into definition_change (type_key, version, action, state, proposed_by, proposed_at)
                values (?, ?, 'ACTIVATE', 'PROPOSED', ?, now())""", key, version, proposer);
    }

    private boolean violates(String sql, String key) {
        try {
            db.business().update(sql, key);
            return false;
        } catch (org.springframework.dao.DataIntegrityViolationException e) {
            return true;
        }
    }

    private Api.Response register(String user, String key, String schema, String routable) {
        return api.post(user, "/api/business-types", """
                {"key": "%s", "name": "Payment release", "schema": %s, "routableFields": %s, "publishes": false}"""
                .formatted(key, schema, routable));
    }

    private Api.Response upload(String user, String key, byte[] xml) {
        return api.postDocument(user, "/api/business-types/" + key + "/definitions", "application/xml", xml);
    }

    private static String decision(String key, int version, String decision) {
        return "/api/business-types/" + key + "/definitions/" + version + "/" + decision;
    }

    /** Sends both requests at once from two threads, answers in the order given. */
    @SafeVarargs
    private static List<Api.Response> atTheSameMoment(Callable<Api.Response>... requests) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(requests.length);
        try {
            CyclicBarrier start = new CyclicBarrier(requests.length);
            List<Future<Api.Response>> answers = new ArrayList<>();
            for (Callable<Api.Response> request : requests) {
                answers.add(clients.submit(() -> {
                    start.await();
                    return request.call();
                }));
            }
            List<Api.Response> done = new ArrayList<>();
            for (Future<Api.Response> answer : answers) {
                done.add(answer.get(60, TimeUnit.SECONDS));
            }
            return done;
        } finally {
            clients.shutdownNow();
        }
    }

    /** The engine inserting the new definition: the only statement on its table that ever waits for a lock here. */
    private void awaitEngineInsertWaitingForLock() {
        await().atMost(Duration.ofSeconds(30)).until(() -> db.workflow().queryForObject("select count(*) from pg_stat_activity"
                + " where wait_event_type = 'Lock' and query ilike '%act_re_procdef%'", Integer.class) > 0);
    }

    private int engineDefinitions(String key) {
        return db.workflow().queryForObject("select count(*) from act_re_procdef where key_ = ?", Integer.class, "type_" + key);
    }

    private int versionRows(String key) {
        return db.business().queryForObject("select count(*) from definition_version where type_key = ?", Integer.class, key);
    }

    private String state(String key, int version) {
        return db.business().queryForObject("select state from definition_version where type_key = ? and version = ?", String.class,
                key, version);
    }

    private String engineDefinitionId(String key, int version) {
        return db.business().queryForObject("select engine_definition_id from definition_version where type_key = ? and version = ?",
                String.class, key, version);
    }

    private int auditEntries(String action, String detailStart) {
        return db.business().queryForObject("select count(*) from recovery_audit_intake where action = ? and detail like ?",
                Integer.class, action, detailStart + "%");
    }

    private static String newKey() {
        return "T_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toUpperCase(Locale.ROOT);
    }
}
