package dev.lockstep.approval.definitions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.platform.EmbeddedPostgresServers;
import dev.lockstep.publishing.outbox.OutboxPublisher;
import dev.lockstep.reconciliation.ReconciliationRuns;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Applications of a registered type (issue 30) over real HTTP: a payment-release type, its Camunda Modeler BPMN
 * deployed over the API and activated by a second admin, applications driven through it, and plain SQL on both
 * databases after each step: the application and its binding against ACT_RU_TASK / ACT_HI_PROCINST, and the todo
 * projection's open rows against the engine's open tasks.
 */
@LockstepIntegrationTest
class TypedApplicationTest {

    static final String SCHEMA = """
            {"type": "object", "required": ["amount", "currency"], "properties": {"amount": {"type": "number", "minimum": 0},
             "currency": {"type": "string", "pattern": "^[A-Z]{3}$"}}}""";

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;
    @Autowired
    OutboxPublisher publisher;
    @Autowired
    EmbeddedPostgresServers servers;

    @Test
    void aLargePaymentRunsThroughManagerLegalAndFinanceInParallelAndFinalApprovalToApproved() {
        String type = activeType();
        long id = create(type, "{\"amount\": 50000, \"currency\": \"EUR\"}");
        String process = ApiFlows.submit(api, id);
        String engineDefinition = engineDefinitionId(type, 1);

        assertThat(db.business().queryForMap("select business_type, fields, definition_version, process_definition_id, asset_id"
                + " from application where id = ?", id)).containsEntry("business_type", type).containsEntry("definition_version", 1)
                .containsEntry("process_definition_id", engineDefinition).containsEntry("asset_id", null)
                .containsEntry("fields", "{\"amount\":50000,\"currency\":\"EUR\"}");
        assertThat(db.workflow().queryForObject("select proc_def_id_ from act_hi_procinst where proc_inst_id_ = ?", String.class,
                process)).isEqualTo(engineDefinition);
        assertAgree(id, process, "APPROVING", "ACTIVE", List.of("managerApproval"));
        Api.Response view = api.get("alice", "/api/applications/" + id);
        assertThat(view.json().get("businessType").asString()).isEqualTo(type);
        assertThat(view.json().get("definitionVersion").asInt()).isEqualTo(1);
        assertThat(view.json().get("fields").get("currency").asString()).isEqualTo("EUR");

        ApiFlows.decideStep(api, db, "bob", process, "managerApproval", "APPROVE");
        assertAgree(id, process, "APPROVING", "ACTIVE", List.of("financeReview", "legalReview"));
        ApiFlows.decideStep(api, db, "carol", process, "legalReview", "APPROVE");
        assertAgree(id, process, "APPROVING", "ACTIVE", List.of("financeReview"));
        ApiFlows.decideStep(api, db, "dave", process, "financeReview", "APPROVE");
        assertAgree(id, process, "APPROVING", "ACTIVE", List.of("finalApproval"));
        // counted around the final decision: other test classes insert outbox rows with made-up aggregate ids
        String outboxOfThisId = "select count(*) from outbox_event where aggregate_type = 'APPLICATION' and aggregate_id = ?";
        int eventsBefore = db.business().queryForObject(outboxOfThisId, Integer.class, Long.toString(id));
        ApiFlows.decideStep(api, db, "frank", process, "finalApproval", "APPROVE");

        assertAgree(id, process, "APPROVED", "APPROVED", List.of());
        assertThat(db.business().queryForObject("select publish_status from application where id = ?", String.class, id))
                .isEqualTo("NOT_STARTED");
        assertThat(db.business().queryForObject(outboxOfThisId, Integer.class, Long.toString(id)))
                .as("a type with publishes=false never writes a catalog event").isEqualTo(eventsBefore);
        assertThat(db.business().queryForList("select distinct business_type from task_projection where process_instance_id = ?",
                String.class, process)).containsExactly(type);
    }

    @Test
    void aPaymentRejectedAtTheManagerStepIsRejectedInBothDatabases() {
        String type = activeType();
        long id = create(type, "{\"amount\": 50000, \"currency\": \"EUR\"}");
        String process = ApiFlows.submit(api, id);

        ApiFlows.decideStep(api, db, "bob", process, "managerApproval", "REJECT");

        assertAgree(id, process, "REJECTED", "REJECTED", List.of());
    }

    @Test
    void onATypedApplicationWhoDecidedOneStepIsHandedNoOtherAsItHasNoRiskLevelToRelaxTheRule() {
        String type = activeType();
        long id = create(type, "{\"amount\": 50000, \"currency\": \"EUR\"}");
        String process = ApiFlows.submit(api, id);
        ApiFlows.decideStep(api, db, "bob", process, "managerApproval", "APPROVE");
        String legal = ApiFlows.openTaskId(db, process, "legalReview");

        Api.Response transfer = api.post("carol", "/api/tasks/" + legal + "/transfer", "{\"userId\": \"bob\"}", ApiFlows.key());

        assertThat(transfer.status()).as(transfer.toString()).isEqualTo(422);
        assertThat(transfer.json().get("code").asString()).isEqualTo("DECIDED_ANOTHER_STEP");
        assertThat(db.workflow().queryForObject("select assignee_ from act_ru_task where id_ = ?", String.class, legal)).isNull();
        assertThat(db.business().queryForObject("select count(*) from task_handover where task_id = ?", Integer.class, legal)).isZero();
    }

    @Test
    void fieldsTheSchemaRefusesAndUnknownTypesAre422AndStoreNothing() {
        String type = activeType();
        String title = "refused " + UUID.randomUUID();

        Api.Response wrongType = api.post("alice", "/api/applications", body(type, title, "{\"amount\": \"lots\", \"currency\": \"EUR\"}"));
        Api.Response missing = api.post("alice", "/api/applications", body(type, title, "{\"amount\": 10}"));
        Api.Response unknown = api.post("alice", "/api/applications", body("NO_SUCH_TYPE", title, "{\"amount\": 10}"));

        assertThat(wrongType.status()).as(wrongType.toString()).isEqualTo(422);
        assertThat(wrongType.json().get("code").asString()).isEqualTo("FIELDS_INVALID");
        assertThat(wrongType.json().get("pointer").asString()).isEqualTo("/amount");
        assertThat(missing.status()).as(missing.toString()).isEqualTo(422);
        assertThat(missing.json().get("pointer").asString()).isEqualTo("/currency");
        assertThat(unknown.status()).as(unknown.toString()).isEqualTo(422);
        assertThat(unknown.json().get("code").asString()).isEqualTo("UNKNOWN_BUSINESS_TYPE");
        assertThat(db.business().queryForObject("select count(*) from application where title = ?", Integer.class, title)).isZero();
    }

    @Test
    void aTypedCreateAndSubmitSentAgainWithTheirKeysAreReplayedWithOneEffect() {
        String type = activeType();
        String title = "replayed " + UUID.randomUUID();
        String createKey = ApiFlows.key();

        Api.Response created = api.post("alice", "/api/applications", body(type, title, "{\"amount\": 5, \"currency\": \"EUR\"}"), createKey);
        Api.Response again = api.post("alice", "/api/applications", body(type, title, "{\"amount\": 5, \"currency\": \"EUR\"}"), createKey);
        Api.Response otherFields = api.post("alice", "/api/applications", body(type, title, "{\"amount\": 6, \"currency\": \"EUR\"}"), createKey);

        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(again.status()).as(again.toString()).isEqualTo(201);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        long id = created.json().get("id").asLong();
        assertThat(again.json().get("id").asLong()).isEqualTo(id);
        assertThat(otherFields.status()).as(otherFields.toString()).isEqualTo(422);
        assertThat(otherFields.json().get("code").asString()).isEqualTo("IDEMPOTENCY_KEY_REUSED");
        assertThat(db.business().queryForObject("select count(*) from application where title = ?", Integer.class, title)).isOne();

        String submitKey = ApiFlows.key();
        Api.Response submitted = api.post("alice", "/api/applications/" + id + "/submit", null, submitKey);
        Api.Response resubmitted = api.post("alice", "/api/applications/" + id + "/submit", null, submitKey);

        assertThat(submitted.status()).as(submitted.toString()).isEqualTo(200);
        assertThat(resubmitted.status()).as(resubmitted.toString()).isEqualTo(200);
        assertThat(resubmitted.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(resubmitted.json().get("processInstanceId").asString()).isEqualTo(submitted.json().get("processInstanceId").asString());
        assertThat(db.business().queryForObject("select count(*) from business_process_binding where business_id = ?", Integer.class,
                Long.toString(id))).isOne();
        assertThat(db.workflow().queryForObject("select count(*) from act_hi_procinst where business_key_ = ?", Integer.class,
                Long.toString(id))).isOne();
    }

    /**
     * A supplier-onboarding type that publishes: its mapping names the field holding the catalog asset's id. An approved
     * case writes its publish event in the approval's XA transaction and the publisher delivers it to the catalog, read
     * back with plain SQL from the catalog's own database; the registration and creation refusals store nothing.
     */
    @Test
    void anApprovedCaseOfATypeThatPublishesReachesTheCatalogWithTheAssetItsMappingNames() {
        String type = "SUPPLIER_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8).toUpperCase(Locale.ROOT);
        String schema = """
                {"type": "object", "required": ["supplierAssetId"], "properties": {"supplierAssetId": {"type": "integer"},
                 "note": {"type": "string"}}}""";
        for (String refused : List.of("\"publishes\": true", "\"publishes\": true, \"assetMapping\": {\"assetId\": \"note\"}",
                "\"publishes\": true, \"assetMapping\": {\"assetId\": \"nowhere\"}",
                "\"publishes\": false, \"assetMapping\": {\"assetId\": \"supplierAssetId\"}")) {
            Api.Response answer = api.post("erin", "/api/business-types", "{\"key\": \"%s\", \"name\": \"Supplier\", \"schema\": %s, %s}"
                    .formatted(type, schema, refused));
            assertThat(answer.status()).as(refused + ": " + answer).isEqualTo(422);
            assertThat(answer.json().get("code").asString()).isEqualTo("ASSET_MAPPING_INVALID");
        }
        assertThat(db.business().queryForObject("select count(*) from business_type where type_key = ?", Integer.class, type)).isZero();
        Api.Response registered = api.post("erin", "/api/business-types", """
                {"key": "%s", "name": "Supplier", "schema": %s, "publishes": true, "assetMapping": {"assetId": "supplierAssetId"}}"""
                .formatted(type, schema));
        assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
        assertThat(upload("erin", type, DefinitionRegistryTest.ONE_STEP.getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
        assertThat(api.post("grace", "/api/business-types/" + type + "/definitions/1/approve", null).status()).isEqualTo(200);

        Api.Response noAsset = api.post("alice", "/api/applications", body(type, "Onboard ACME", "{\"supplierAssetId\": 0}"));
        assertThat(noAsset.status()).as(noAsset.toString()).isEqualTo(422);
        assertThat(noAsset.json().get("pointer").asString()).isEqualTo("/supplierAssetId");
        long id = create(type, "{\"supplierAssetId\": 4711, \"note\": \"ACME\"}");
        assertThat(db.business().queryForObject("select asset_id from application where id = ?", Long.class, id)).isEqualTo(4711L);
        String process = ApiFlows.submit(api, id);
        ApiFlows.decideStep(api, db, "bob", process, "managerApproval", "APPROVE");

        assertAgree(id, process, "APPROVED", "APPROVED", List.of());
        assertThat(db.business().queryForObject("select publish_status from application where id = ?", String.class, id))
                .isEqualTo("PENDING");
        // by its payload: other tests write events of their own whose aggregate ids may repeat this application's
        String eventId = db.business().queryForObject("select event_id from outbox_event where event_type = ? and payload_json like ?"
                + " and payload_json like ?", String.class, "ASSET_PUBLISH_REQUESTED", "%\"applicationId\":" + id + ",%", "%\"assetId\":4711,%");
        for (int poll = 0; poll < 20 && publisher.publishDue() > 0; poll++) {
            // until nothing is due
        }
        assertThat(db.business().queryForObject("select publish_status from application where id = ?", String.class, id))
                .isEqualTo("PUBLISHED");
        JdbcTemplate catalog = new JdbcTemplate(servers.separateDatabase("lockstep_catalog").plainDataSource());
        assertThat(catalog.queryForMap("select asset_id, application_id from published_asset where event_id = ?", eventId))
                .containsEntry("asset_id", 4711L).containsEntry("application_id", id);
    }

    /** Two directors' steps after the manager's; the final one may be sent back to the manager. */
    static final String RETURNABLE_FLOW = """
            {"name": "Returnable release", "steps": [
              {"id": "managerApproval", "candidateGroups": ["managers"]},
              {"id": "finalApproval", "candidateGroups": ["directors"], "returnTo": ["managerApproval"]}]}""";

    /**
     * The use cases after submit on a declarative flow deployed in the test, each one XA transaction over both
     * databases, read back with plain SQL after each step (the application and its binding against the engine's run,
     * the todo projection against the engine's open tasks): a return, a withdrawal, a termination, a delegation and its
     * resolution, a transfer, and on a countersign step an added and a removed signer. A FULL reconciliation of them all
     * afterwards finds nothing to report or repair in them, and repairs the todo row of one that drifted by hand.
     */
    @Test
    void everyUseCaseOnADeployedFlowKeepsBothDatabasesTogetherAndReconciliationRepairsOnlyADrift() {
        String type = registeredType();
        deployDeclarative(type, 1, RETURNABLE_FLOW);
        String fields = "{\"amount\": 5, \"currency\": \"EUR\"}";

        long returned = create(type, fields);
        String returnedRun = ApiFlows.submit(api, returned);
        ApiFlows.decideStep(api, db, "bob", returnedRun, "managerApproval", "APPROVE");
        Api.Response back = api.post("frank", "/api/tasks/" + ApiFlows.openTaskId(db, returnedRun, "finalApproval") + "/return",
                "{\"targetActivityId\": \"managerApproval\", \"mode\": \"RERUN\", \"reason\": \"amount unclear\"}", ApiFlows.key());
        assertThat(back.status()).as(back.toString()).isEqualTo(200);
        assertAgree(returned, returnedRun, "APPROVING", "ACTIVE", List.of("managerApproval"));
        ApiFlows.decideStep(api, db, "bob", returnedRun, "managerApproval", "APPROVE");
        ApiFlows.decideStep(api, db, "frank", returnedRun, "finalApproval", "APPROVE");
        assertAgree(returned, returnedRun, "APPROVED", "APPROVED", List.of());

        long withdrawn = create(type, fields);
        String withdrawnRun = ApiFlows.submit(api, withdrawn);
        assertThat(api.post("alice", "/api/applications/" + withdrawn + "/withdraw", "{\"reason\": \"not needed\"}").status()).isEqualTo(200);
        assertAgree(withdrawn, withdrawnRun, "CANCELED", "WITHDRAWN", List.of());

        long terminated = create(type, fields);
        String terminatedRun = ApiFlows.submit(api, terminated);
        ApiFlows.decideStep(api, db, "bob", terminatedRun, "managerApproval", "APPROVE");
        assertThat(api.post("erin", "/api/admin/applications/" + terminated + "/terminate", "{\"reason\": \"supplier gone\"}").status())
                .isEqualTo(200);
        assertAgree(terminated, terminatedRun, "CANCELED", "TERMINATED", List.of());

        long handedOver = create(type, fields);
        String handedOverRun = ApiFlows.submit(api, handedOver);
        String manager = ApiFlows.openTaskId(db, handedOverRun, "managerApproval");
        assertThat(api.post("bob", "/api/tasks/" + manager + "/delegate", "{\"userId\": \"carol\"}", ApiFlows.key()).status()).isEqualTo(200);
        assertThat(db.workflow().queryForMap("select assignee_, owner_, delegation_ from act_ru_task where id_ = ?", manager))
                .containsEntry("assignee_", "carol").containsEntry("owner_", "bob").containsEntry("delegation_", "PENDING");
        assertThat(api.post("carol", "/api/tasks/" + manager + "/resolve", "{}", ApiFlows.key()).status()).isEqualTo(200);
        ApiFlows.decideStep(api, db, "bob", handedOverRun, "managerApproval", "APPROVE");
        String last = ApiFlows.openTaskId(db, handedOverRun, "finalApproval");
        assertThat(api.post("frank", "/api/tasks/" + last + "/transfer", "{\"userId\": \"dave\"}", ApiFlows.key()).status()).isEqualTo(200);
        assertThat(db.workflow().queryForObject("select assignee_ from act_ru_task where id_ = ?", String.class, last)).isEqualTo("dave");
        assertAgree(handedOver, handedOverRun, "APPROVING", "ACTIVE", List.of("finalApproval"));
        ApiFlows.decideStep(api, db, "dave", handedOverRun, "finalApproval", "APPROVE");
        assertAgree(handedOver, handedOverRun, "APPROVED", "APPROVED", List.of());

        String countersignType = registeredType();
        deployDeclarative(countersignType, 1, """
                {"name": "Board", "steps": [{"id": "countersign", "countersign": {"policy": "ALL"}}]}""");
        Api.Response signed = api.post("alice", "/api/applications", "{\"type\": \"%s\", \"title\": \"Board\", \"fields\": %s,"
                .formatted(countersignType, fields) + " \"signers\": [\"bob\", \"carol\"]}");
        assertThat(signed.status()).as(signed.toString()).isEqualTo(201);
        long board = signed.json().get("id").asLong();
        String boardRun = ApiFlows.submit(api, board);
        assertThat(api.post("erin", "/api/applications/" + board + "/countersign/signers", "{\"userId\": \"dave\"}", ApiFlows.key()).status())
                .isEqualTo(200);
        assertAgree(board, boardRun, "APPROVING", "ACTIVE", List.of("countersign", "countersign", "countersign"));
        assertThat(api.post("erin", "/api/applications/" + board + "/countersign/signers/remove", "{\"userId\": \"carol\"}",
                ApiFlows.key()).status()).isEqualTo(200);
        assertThat(db.workflow().queryForList("select assignee_ from act_ru_task where proc_inst_id_ = ? order by assignee_", String.class,
                boardRun)).containsExactly("bob", "dave");
        for (String signer : List.of("bob", "dave")) {
            String task = db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ? and assignee_ = ?", String.class,
                    boardRun, signer);
            assertThat(ApiFlows.complete(api, signer, task, "APPROVE").status()).isEqualTo(200);
        }
        assertAgree(board, boardRun, "APPROVED", "APPROVED", List.of());

        // and one whose todo row drifted from the engine (moved to another step by plain SQL): repaired from the engine
        long drifted = create(type, fields);
        String driftedRun = ApiFlows.submit(api, drifted);
        db.business().update("update task_projection set task_definition_key = 'finalApproval', task_name = 'drifted'"
                + " where process_instance_id = ?", driftedRun);

        List<Long> all = List.of(returned, withdrawn, terminated, handedOver, board, drifted);
        all.forEach(id -> ReconciliationRuns.ageApplication(db, id));
        ReconciliationRuns.runAndWait(api, "FULL");
        assertReconciliationFoundNothingFor(all.subList(0, all.size() - 1));
        assertThat(db.business().queryForList("select rule_id, outcome from reconciliation_repair where application_id = ?", drifted))
                .containsExactly(Map.of("rule_id", "PROJECTION_DRIFT", "outcome", "APPLIED"));
        assertThat(db.business().queryForObject("select task_definition_key from task_projection where process_instance_id = ?",
                String.class, driftedRun)).isEqualTo("managerApproval");
        assertAgree(drifted, driftedRun, "APPROVING", "ACTIVE", List.of("managerApproval"));
    }

    @Test
    void submittingWithoutAnActiveVersionIs409AndChangesNothing() {
        String type = registeredType();
        long id = create(type, "{\"amount\": 5, \"currency\": \"EUR\"}");

        Api.Response submitted = api.post("alice", "/api/applications/" + id + "/submit", null, ApiFlows.key());

        assertThat(submitted.status()).as(submitted.toString()).isEqualTo(409);
        assertThat(submitted.json().get("code").asString()).isEqualTo("NO_ACTIVE_DEFINITION");
        assertThat(db.business().queryForMap("select approval_status, process_instance_id, lifecycle_no from application where id = ?",
                id)).containsEntry("approval_status", "DRAFT").containsEntry("process_instance_id", null).containsEntry("lifecycle_no", 0);
        assertThat(db.business().queryForObject("select count(*) from business_process_binding where business_id = ?", Integer.class,
                Long.toString(id))).isZero();
        assertThat(db.workflow().queryForObject("select count(*) from act_hi_procinst where business_key_ = ?", Integer.class,
                Long.toString(id))).isZero();
    }

    @Test
    void aRunningApplicationFinishesOnItsVersionWhileANewOneStartsOnTheNewlyActivatedVersion() {
        String type = activeType();
        long first = create(type, "{\"amount\": 500, \"currency\": \"EUR\"}");
        String firstProcess = ApiFlows.submit(api, first);
        ApiFlows.decideStep(api, db, "bob", firstProcess, "managerApproval", "APPROVE");

        deployAndActivate(type, 2);
        long second = create(type, "{\"amount\": 500, \"currency\": \"EUR\"}");
        String secondProcess = ApiFlows.submit(api, second);

        String v1 = engineDefinitionId(type, 1);
        String v2 = engineDefinitionId(type, 2);
        assertThat(v2).isNotEqualTo(v1);
        assertThat(db.workflow().queryForObject("select proc_def_id_ from act_hi_procinst where proc_inst_id_ = ?", String.class,
                secondProcess)).isEqualTo(v2);
        assertThat(db.business().queryForObject("select definition_version from application where id = ?", Integer.class, second))
                .isEqualTo(2);
        assertAgree(first, firstProcess, "APPROVING", "ACTIVE", List.of("finalApproval"));
        ApiFlows.decideStep(api, db, "frank", firstProcess, "finalApproval", "APPROVE");

        assertAgree(first, firstProcess, "APPROVED", "APPROVED", List.of());
        assertThat(db.workflow().queryForObject("select proc_def_id_ from act_hi_procinst where proc_inst_id_ = ?", String.class,
                firstProcess)).isEqualTo(v1);
        assertThat(db.business().queryForObject("select definition_version from application where id = ?", Integer.class, first))
                .isEqualTo(1);
        assertThat(api.get("alice", "/api/applications/" + second).json().get("definitionVersion").asInt()).isEqualTo(2);

        // the switch leaves nothing for reconciliation: neither the finished v1 run nor the v2 run still open
        List.of(first, second).forEach(id -> ReconciliationRuns.ageApplication(db, id));
        ReconciliationRuns.runAndWait(api, "FULL");
        assertReconciliationFoundNothingFor(List.of(first, second));
    }

    /**
     * v1 is re-activated after v2 (proposed by erin, approved by grace): the engine's latest definition of the key is
     * still v2's, so only a start by v1's engine definition id puts the new application on v1. The two flows differ in
     * their first step (managerApproval for managers, teamLeadApproval for directors), so the open task tells them apart.
     */
    @Test
    void aReactivatedVersionTakesNewApplicationsAlthoughTheEngineHoldsALaterVersionOfItsKey() {
        String type = activeType();
        Api.Response proposed = upload("erin", type, DefinitionRegistryTest.ONE_STEP.replace("managerApproval", "teamLeadApproval")
                .replace("\"managers\"", "\"directors\"").getBytes(StandardCharsets.UTF_8));
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(201);
        assertThat(api.post("grace", "/api/business-types/" + type + "/definitions/2/approve", null).status()).isEqualTo(200);
        String onV2 = ApiFlows.submit(api, create(type, "{\"amount\": 5, \"currency\": \"EUR\"}"));
        assertThat(ApiFlows.openTaskId(db, onV2, "teamLeadApproval")).isNotNull();

        Api.Response reproposed = api.post("erin", "/api/business-types/" + type + "/definitions/1/activation", null);
        assertThat(reproposed.status()).as(reproposed.toString()).isEqualTo(200);
        Api.Response reactivated = api.post("grace", "/api/business-types/" + type + "/definitions/1/approve", null);
        assertThat(reactivated.status()).as(reactivated.toString()).isEqualTo(200);
        long id = create(type, "{\"amount\": 5, \"currency\": \"EUR\"}");
        String process = ApiFlows.submit(api, id);

        String v1 = engineDefinitionId(type, 1);
        assertThat(db.business().queryForList("select state from definition_version where type_key = ? order by version",
                String.class, type)).containsExactly("ACTIVE", "RETIRED");
        assertThat(db.workflow().queryForObject("select id_ from act_re_procdef where key_ = ? and version_ ="
                + " (select max(version_) from act_re_procdef where key_ = ?)", String.class, "type_" + type, "type_" + type))
                .isEqualTo(engineDefinitionId(type, 2));
        assertThat(db.workflow().queryForObject("select proc_def_id_ from act_hi_procinst where proc_inst_id_ = ?", String.class,
                process)).isEqualTo(v1);
        assertThat(db.workflow().queryForObject("select proc_def_id_ from act_ru_execution where id_ = ?", String.class, process))
                .isEqualTo(v1);
        assertThat(db.business().queryForMap("select definition_version, process_definition_id from application where id = ?", id))
                .containsEntry("definition_version", 1).containsEntry("process_definition_id", v1);
        assertAgree(id, process, "APPROVING", "ACTIVE", List.of("managerApproval"));
    }

    /** A FULL run opened no incident and made no repair on these applications. */
    private void assertReconciliationFoundNothingFor(List<Long> applications) {
        for (long id : applications) {
            assertThat(db.business().queryForObject("select count(*) from reconciliation_incident where application_id = ?", Integer.class, id))
                    .as("incidents of application %s", id).isZero();
            assertThat(db.business().queryForObject("select count(*) from reconciliation_repair where application_id = ?", Integer.class, id))
                    .as("repairs of application %s", id).isZero();
        }
    }

    /**
     * Both databases tell the same story: the application's status and its binding's against whether the engine's
     * process still runs, and the engine's open tasks are exactly the projection's open rows.
     */
    private void assertAgree(long id, String process, String approvalStatus, String bindingStatus, List<String> openSteps) {
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo(approvalStatus);
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, process)).isEqualTo(bindingStatus);
        boolean ended = db.workflow().queryForObject("select end_time_ is not null from act_hi_procinst where proc_inst_id_ = ?",
                Boolean.class, process);
        assertThat(ended).isEqualTo(!"ACTIVE".equals(bindingStatus));
        List<String> engineTasks = db.workflow().queryForList("select task_def_key_ from act_ru_task where proc_inst_id_ = ?"
                + " order by task_def_key_", String.class, process);
        assertThat(engineTasks).isEqualTo(openSteps);
        List<Map<String, Object>> engineIds = db.workflow().queryForList("select id_ from act_ru_task where proc_inst_id_ = ?"
                + " order by id_", process);
        List<Map<String, Object>> projected = db.business().queryForList("select task_id as id_ from task_projection"
                + " where process_instance_id = ? and state = 'OPEN' order by task_id", process);
        assertThat(projected).isEqualTo(engineIds);
    }

    private String activeType() {
        String type = registeredType();
        deployAndActivate(type, 1);
        return type;
    }

    private String registeredType() {
        String type = "PAYMENT_RELEASE_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8).toUpperCase(Locale.ROOT);
        Api.Response registered = api.post("erin", "/api/business-types", """
                {"key": "%s", "name": "Payment release", "schema": %s, "routableFields": ["amount"], "publishes": false}"""
                .formatted(type, SCHEMA));
        assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
        return type;
    }

    /** erin proposes the declarative {@code flow}, grace approves it; it becomes the ACTIVE version {@code version}. */
    private void deployDeclarative(String type, int version, String flow) {
        Api.Response proposed = api.post("erin", "/api/business-types/" + type + "/definitions", flow);
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(201);
        Api.Response approved = api.post("grace", "/api/business-types/" + type + "/definitions/" + version + "/approve", null);
        assertThat(approved.status()).as(approved.toString()).isEqualTo(200);
    }

    /** erin uploads the modeler's file, grace (the second admin) approves it; it becomes version {@code version}. */
    private void deployAndActivate(String type, int version) {
        Api.Response proposed = upload("erin", type, paymentRelease());
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(201);
        Api.Response approved = api.post("grace", "/api/business-types/" + type + "/definitions/" + version + "/approve", null);
        assertThat(approved.status()).as(approved.toString()).isEqualTo(200);
        assertThat(db.business().queryForObject("select state from definition_version where type_key = ? and version = ?",
                String.class, type, version)).isEqualTo("ACTIVE");
    }

    /** defcheck's Camunda Modeler export; its final step goes to the demo's directors (the file names "executives"). */
    private static byte[] paymentRelease() {
        try (InputStream in = TypedApplicationTest.class.getResourceAsStream("/definitions/payment-release.bpmn")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("\"executives\"", "\"directors\"")
                    .getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private long create(String type, String fields) {
        Api.Response created = api.post("alice", "/api/applications", body(type, "Release payment", fields));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    private static String body(String type, String title, String fields) {
        return "{\"type\": \"%s\", \"title\": \"%s\", \"fields\": %s}".formatted(type, title, fields);
    }



    private String engineDefinitionId(String type, int version) {
        return db.business().queryForObject("select engine_definition_id from definition_version where type_key = ? and version = ?",
                String.class, type, version);
    }

    private Api.Response upload(String user, String type, byte[] xml) {
        return api.postDocument(user, "/api/business-types/" + type + "/definitions", "application/xml", xml);
    }
}
