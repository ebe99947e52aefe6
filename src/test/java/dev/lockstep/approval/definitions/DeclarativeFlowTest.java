package dev.lockstep.approval.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import tools.jackson.databind.JsonNode;

/**
 * A declarative flow (issue 30) over real HTTP: proposed as JSON or YAML by one admin, compiled to BPMN, approved by
 * another, and applications driven through its parallel block to APPROVED and to REJECTED, with plain SQL on both
 * databases after each step (application and binding against ACT_RU_TASK / ACT_HI_PROCINST).
 */
@LockstepIntegrationTest
class DeclarativeFlowTest {

    /** The flow DeclarativeFlowsTest compiles: finalApproval may be returned to managerApproval only. */
    static final String FLOW = resource("/definitions/payment-release.json");


    static final String YAML_FLOW = """
            name: Quick release
            steps:
              - {id: managerApproval, candidateGroups: [managers]}
            """;

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;


    @Test
    void aJsonFlowProposedAndApprovedOverHttpRunsItsParallelBlockToApprovedAndARejectionInABranchToRejected() {
        String type = registeredType();
        Api.Response proposed = api.post("erin", "/api/business-types/" + type + "/definitions", FLOW);
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(201);
        assertThat(proposed.json().get("steps")).extracting(JsonNode::asString)
                .containsExactly("managerApproval", "legalReview", "financeReview", "finalApproval");
        assertThat(db.business().queryForMap("select state, declarative_media_type, declarative_source from definition_version"
                + " where type_key = ? and version = 1", type)).containsEntry("state", "PROPOSED")
                .containsEntry("declarative_media_type", "application/json").containsEntry("declarative_source", FLOW);
        Api.Response bpmn = api.get("audrey", "/api/business-types/" + type + "/definitions/1/bpmn", "application/xml");
        assertThat(bpmn.body()).contains("id=\"type_" + type + "\"", "parallelGateway id=\"reviews\"", "${amount > 10000}",
                "lockstep:returnTo=\"managerApproval\"");
        Api.Response source = api.get("audrey", "/api/business-types/" + type + "/definitions/1/source", "application/json");
        assertThat(source.contentType()).startsWith("application/json");
        assertThat(source.body()).isEqualTo(FLOW);
        Api.Response approved = api.post("grace", "/api/business-types/" + type + "/definitions/1/approve", null);
        assertThat(approved.status()).as(approved.toString()).isEqualTo(200);

        long large = create(type, 50000);
        String largeRun = ApiFlows.submit(api, large);
        assertAgree(large, largeRun, "APPROVING", "ACTIVE", List.of("managerApproval"));
        ApiFlows.decideStep(api, db, "bob", largeRun, "managerApproval", "APPROVE");
        assertAgree(large, largeRun, "APPROVING", "ACTIVE", List.of("financeReview", "legalReview"));
        ApiFlows.decideStep(api, db, "carol", largeRun, "legalReview", "APPROVE");
        assertAgree(large, largeRun, "APPROVING", "ACTIVE", List.of("financeReview"));
        ApiFlows.decideStep(api, db, "dave", largeRun, "financeReview", "APPROVE");
        assertAgree(large, largeRun, "APPROVING", "ACTIVE", List.of("finalApproval"));
        // finalApproval declared managerApproval alone: the review block, also earlier on its path, is not offered
        Api.Response targets = api.get("frank", "/api/tasks/" + ApiFlows.openTaskId(db, largeRun, "finalApproval") + "/return-targets");
        assertThat(targets.status()).as(targets.toString()).isEqualTo(200);
        assertThat(targets.json().get("targets")).extracting(target -> target.get("id").asString()).containsExactly("managerApproval");
        ApiFlows.decideStep(api, db, "frank", largeRun, "finalApproval", "APPROVE");
        assertAgree(large, largeRun, "APPROVED", "APPROVED", List.of());

        long small = create(type, 500);
        String smallRun = ApiFlows.submit(api, small);
        ApiFlows.decideStep(api, db, "bob", smallRun, "managerApproval", "APPROVE");
        assertAgree(small, smallRun, "APPROVING", "ACTIVE", List.of("finalApproval"));

        long refused = create(type, 50000);
        String refusedRun = ApiFlows.submit(api, refused);
        ApiFlows.decideStep(api, db, "bob", refusedRun, "managerApproval", "APPROVE");
        ApiFlows.decideStep(api, db, "carol", refusedRun, "legalReview", "REJECT");
        // the terminate end took finance's open task with it
        assertAgree(refused, refusedRun, "REJECTED", "REJECTED", List.of());
        assertThat(db.workflow().queryForObject("select end_act_id_ from act_hi_procinst where proc_inst_id_ = ?", String.class,
                refusedRun)).isEqualTo("flow-rejected");
    }

    /** A parallel review, then the owners' countersign under ALL: the definition sets the policy, each application its signers. */
    static final String COUNTERSIGN_FLOW = """
            {"name": "Access grant", "steps": [
              {"id": "reviews", "parallel": [[{"id": "legalReview", "candidateGroups": ["legal"]}],
                                             [{"id": "financeReview", "candidateGroups": ["finance"]}]]},
              {"id": "countersign", "name": "Owners countersign", "countersign": {"policy": "ALL"}}]}""";

    @Test
    void aDeclarativeCountersignRunsOnTheApplicationsSignersUnderTheDefinitionsPolicyAndRoutesOnTheStepsResult() {
        String type = registeredType();
        assertThat(api.post("erin", "/api/business-types/" + type + "/definitions", COUNTERSIGN_FLOW).status()).isEqualTo(201);
        Api.Response approved = api.post("grace", "/api/business-types/" + type + "/definitions/1/approve", null);
        assertThat(approved.status()).as(approved.toString()).isEqualTo(200);
        assertThat(approved.json().get("countersign").get("policy").asString()).isEqualTo("ALL");

        long granted = create(type, 10, "[\"bob\", \"frank\"]");
        String grantedRun = ApiFlows.submit(api, granted);
        assertThat(db.business().queryForMap("select countersign_policy, countersign_ratio, countersign_signers from application"
                + " where id = ?", granted)).containsEntry("countersign_policy", "ALL").containsEntry("countersign_ratio", null)
                .containsEntry("countersign_signers", "bob,frank");
        ApiFlows.decideStep(api, db, "carol", grantedRun, "legalReview", "APPROVE");
        ApiFlows.decideStep(api, db, "dave", grantedRun, "financeReview", "APPROVE");
        assertAgree(granted, grantedRun, "APPROVING", "ACTIVE", List.of("countersign", "countersign"));
        assertThat(signerTasks(grantedRun)).containsOnlyKeys("bob", "frank");
        assertThat(ApiFlows.complete(api, "bob", signerTasks(grantedRun).get("bob"), "APPROVE").status()).isEqualTo(200);
        assertAgree(granted, grantedRun, "APPROVING", "ACTIVE", List.of("countersign"));
        assertThat(ApiFlows.complete(api, "frank", signerTasks(grantedRun).get("frank"), "APPROVE").status()).isEqualTo(200);
        assertAgree(granted, grantedRun, "APPROVED", "APPROVED", List.of());
        assertThat(db.business().queryForList("select approver_id from approval_record where application_id = ?",
                String.class, granted)).containsExactlyInAnyOrder("carol", "dave", "bob", "frank");

        // under ALL one rejection rejects, though the last vote approves: the way on reads the step's result
        long refused = create(type, 10, "[\"bob\", \"frank\"]");
        String refusedRun = ApiFlows.submit(api, refused);
        ApiFlows.decideStep(api, db, "carol", refusedRun, "legalReview", "APPROVE");
        ApiFlows.decideStep(api, db, "dave", refusedRun, "financeReview", "APPROVE");
        assertThat(ApiFlows.complete(api, "bob", signerTasks(refusedRun).get("bob"), "REJECT").status()).isEqualTo(200);
        assertAgree(refused, refusedRun, "APPROVING", "ACTIVE", List.of("countersign"));
        assertThat(ApiFlows.complete(api, "frank", signerTasks(refusedRun).get("frank"), "APPROVE").status()).isEqualTo(200);
        assertAgree(refused, refusedRun, "REJECTED", "REJECTED", List.of());
        assertThat(db.workflow().queryForObject("select end_act_id_ from act_hi_procinst where proc_inst_id_ = ?", String.class,
                refusedRun)).isEqualTo("flow-rejected");
    }

    @Test
    void aModelersCountersignUnderRatioDecidesAtTwoOfThreeAndSignersAreNamedExactlyWhenTheVersionHasTheStep() throws IOException {
        String type = registeredType();
        long early = create(type, 10, "[\"carol\"]"); // no ACTIVE version yet: nothing to check the signers against
        byte[] bpmn;
        try (InputStream in = DeclarativeFlowTest.class.getResourceAsStream("/definitions/supplier-countersign.bpmn")) {
            bpmn = in.readAllBytes();
        }
        Api.Response proposed = api.postDocument("erin", "/api/business-types/" + type + "/definitions", "application/xml", bpmn);
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(201);
        assertThat(proposed.json().get("countersign").get("ratio").decimalValue()).isEqualByComparingTo("0.66");
        assertThat(api.post("grace", "/api/business-types/" + type + "/definitions/1/approve", null).status()).isEqualTo(200);

        assertRefused(createRequest(type, null), 422, "COUNTERSIGN_SIGNERS_REQUIRED");
        assertRefused(createRequest(type, "[\"carol\", \"alice\"]"), 422, "SIGNER_IS_APPLICANT");
        assertRefused(createRequest(type, "[\"carol\", \"carol\"]"), 400, "INVALID_COUNTERSIGN");
        assertRefused(api.post("alice", "/api/applications", """
                {"type": "%s", "title": "x", "fields": {"amount": 1}, "countersign": {"signers": ["carol"], "policy": "ONE_VETO"}}"""
                .formatted(type)), 400, "INVALID_COUNTERSIGN");
        assertThat(early).isPositive();

        long onboarded = create(type, 10, "[\"carol\", \"dave\", \"frank\"]");
        String onboardedRun = ApiFlows.submit(api, onboarded);
        ApiFlows.decideStep(api, db, "bob", onboardedRun, "buyerReview", "APPROVE");
        assertThat(signerTasks(onboardedRun)).containsOnlyKeys("carol", "dave", "frank");
        assertThat(ApiFlows.complete(api, "carol", signerTasks(onboardedRun).get("carol"), "APPROVE").status()).isEqualTo(200);
        assertAgree(onboarded, onboardedRun, "APPROVING", "ACTIVE", List.of("countersign", "countersign"));
        assertThat(ApiFlows.complete(api, "dave", signerTasks(onboardedRun).get("dave"), "APPROVE").status()).isEqualTo(200);
        // ceil(0.66 x 3) = 2 approvals decide it: frank's task is closed with the run
        assertAgree(onboarded, onboardedRun, "APPROVED", "APPROVED", List.of());
        assertThat(db.business().queryForObject("select countersign_ratio from application where id = ?", java.math.BigDecimal.class,
                onboarded)).isEqualByComparingTo("0.66");

        long declined = create(type, 10, "[\"carol\", \"dave\", \"frank\"]");
        String declinedRun = ApiFlows.submit(api, declined);
        ApiFlows.decideStep(api, db, "bob", declinedRun, "buyerReview", "APPROVE");
        assertThat(ApiFlows.complete(api, "carol", signerTasks(declinedRun).get("carol"), "REJECT").status()).isEqualTo(200);
        assertThat(ApiFlows.complete(api, "frank", signerTasks(declinedRun).get("frank"), "REJECT").status()).isEqualTo(200);
        assertAgree(declined, declinedRun, "REJECTED", "REJECTED", List.of());
        assertThat(db.workflow().queryForObject("select end_act_id_ from act_hi_procinst where proc_inst_id_ = ?", String.class,
                declinedRun)).isEqualTo("rejected");

        // the draft made before any version had the step still names one signer: the version it starts on asks for them,
        // and RATIO over one signer needs that one
        String earlyRun = ApiFlows.submit(api, early);
        ApiFlows.decideStep(api, db, "bob", earlyRun, "buyerReview", "APPROVE");
        assertThat(signerTasks(earlyRun)).containsOnlyKeys("carol");
    }

    private Map<String, String> signerTasks(String processInstanceId) {
        Map<String, String> tasks = new HashMap<>();
        db.workflow().query("select assignee_, id_ from act_ru_task where proc_inst_id_ = ? and task_def_key_ = 'countersign'",
                (org.springframework.jdbc.core.RowCallbackHandler) rs -> tasks.put(rs.getString(1), rs.getString(2)), processInstanceId);
        return tasks;
    }

    private Api.Response createRequest(String type, String signers) {
        return api.post("alice", "/api/applications", "{\"type\": \"%s\", \"title\": \"Onboard\", \"fields\": {\"amount\": 10}%s}"
                .formatted(type, signers == null ? "" : ", \"signers\": " + signers));
    }

    private static void assertRefused(Api.Response response, int status, String code) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.json().get("code").asString()).isEqualTo(code);
    }

    @Test
    void aYamlFlowIsKeptAsUploadedAndABrokenFlowIs422NamingItsMembersAndStoresNothing() {
        String type = registeredType();

        Api.Response yaml = upload("erin", type, "application/yaml", YAML_FLOW);
        Api.Response broken = upload("erin", type, "application/json",
                "{\"name\": \"x\", \"steps\": [{\"id\": \"a\", \"candidateGroups\": [\"managers\"]}, {\"id\": \"a\", \"returnTo\": \"a\"}]}");
        Api.Response unchecked = upload("erin", type, "application/json",
                "{\"steps\": [{\"id\": \"a\", \"candidateGroups\": [\"nobody\"], \"returnTo\": [\"b\"]}]}");

        assertThat(yaml.status()).as(yaml.toString()).isEqualTo(201);
        Api.Response source = api.get("audrey", "/api/business-types/" + type + "/definitions/1/source", "application/yaml");
        assertThat(source.contentType()).startsWith("application/yaml");
        assertThat(source.body()).isEqualTo(YAML_FLOW);
        assertThat(broken.status()).as(broken.toString()).isEqualTo(422);
        JsonNode problems = broken.json();
        assertThat(problems.get("code").asString()).isEqualTo("DEFINITION_INVALID");
        assertThat(problems.get("problems")).extracting(p -> p.get("elementId").asString(), p -> p.get("code").asString())
                .containsExactlyInAnyOrder(tuple("/steps/1/id", "STEP_ID_DUPLICATE"));
        assertThat(unchecked.status()).as(unchecked.toString()).isEqualTo(422);
        assertThat(unchecked.json().get("problems")).extracting(p -> p.get("elementId").asString(), p -> p.get("code").asString())
                .containsExactlyInAnyOrder(tuple("a", "UNKNOWN_GROUP"));
        assertThat(db.business().queryForList("select version from definition_version where type_key = ?", Integer.class, type))
                .containsExactly(1);
    }

    @Test
    void eachVersionHasADiagramOfItsStepsGroupsConditionsAndDeadlinesThatRunsNothing() throws Exception {
        String type = registeredType();
        String marked = "Final <script>alert(1)</script> & sign-off";
        Api.Response proposed = api.post("erin", "/api/business-types/" + type + "/definitions",
                FLOW.replace("\"Final approval\"", "\"Final <script>alert(1)</script> & sign-off\""));
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(201);

        Api.Response diagram = api.get("audrey", "/api/business-types/" + type + "/definitions/1/diagram", "image/svg+xml");
        assertThat(diagram.status()).as(diagram.toString()).isEqualTo(200);
        assertThat(diagram.contentType()).startsWith("image/svg+xml");
        assertThat(diagram.header("Content-Security-Policy")).startsWith("default-src 'none'");
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document svg = factory.newDocumentBuilder().parse(new ByteArrayInputStream(diagram.body().getBytes(StandardCharsets.UTF_8)));
        assertThat(svg.getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(svg.getElementsByTagName("script").getLength()).as("the step name stays text").isZero();

        Map<String, Element> shapes = new HashMap<>();
        int flows = 0;
        NodeList groups = svg.getElementsByTagName("g");
        for (int i = 0; i < groups.getLength(); i++) {
            Element group = (Element) groups.item(i);
            if (group.hasAttribute("data-element-id")) {
                shapes.put(group.getAttribute("data-element-id"), group);
            } else if (group.hasAttribute("data-flow-id")) {
                flows++;
            }
        }
        // one shape per step, event and gateway of the BPMN the engine runs (boundary timers are drawn on their task), one per flow
        factory.setNamespaceAware(true);
        Document bpmn = factory.newDocumentBuilder().parse(new ByteArrayInputStream(
                api.get("audrey", "/api/business-types/" + type + "/definitions/1/bpmn", "application/xml").body().getBytes(StandardCharsets.UTF_8)));
        List<String> nodeIds = new ArrayList<>();
        for (String kind : List.of("startEvent", "endEvent", "userTask", "parallelGateway", "exclusiveGateway")) {
            NodeList elements = bpmn.getElementsByTagNameNS("*", kind);
            for (int i = 0; i < elements.getLength(); i++) {
                nodeIds.add(((Element) elements.item(i)).getAttribute("id"));
            }
        }
        assertThat(shapes.keySet()).containsExactlyInAnyOrderElementsOf(nodeIds)
                .contains("managerApproval", "legalReview", "financeReview", "finalApproval");
        assertThat(flows).isEqualTo(bpmn.getElementsByTagNameNS("*", "sequenceFlow").getLength()).isPositive();
        assertThat(shapes.get("managerApproval").getTextContent()).contains("Manager approval", "groups: managers", "timer P2D");
        assertThat(shapes.get("finalApproval").getTextContent()).contains(marked.substring(0, 23), "groups: directors");
        assertThat(svg.getDocumentElement().getTextContent()).contains("amount > 10000");
        // the two branches of the parallel review stand in one column, one under the other
        Element legal = firstShape(shapes.get("legalReview"));
        Element finance = firstShape(shapes.get("financeReview"));
        assertThat(legal.getAttribute("x")).isEqualTo(finance.getAttribute("x"));
        assertThat(legal.getAttribute("y")).isNotEqualTo(finance.getAttribute("y"));

        Api.Response missing = api.get("audrey", "/api/business-types/" + type + "/definitions/9/diagram",
                "image/svg+xml, application/problem+json");
        assertThat(missing.status()).as(missing.toString()).isEqualTo(404);
        assertThat(missing.contentType()).startsWith("application/problem+json");
    }

    private static Element firstShape(Element group) {
        return (Element) group.getElementsByTagName("rect").item(0);
    }

    /** Both databases tell the same story: the application's and its binding's status against the engine's run and open tasks. */
    private void assertAgree(long id, String process, String approvalStatus, String bindingStatus, List<String> openSteps) {
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo(approvalStatus);
        assertThat(db.business().queryForObject("select binding_status from business_process_binding where process_instance_id = ?",
                String.class, process)).isEqualTo(bindingStatus);
        assertThat(db.workflow().queryForObject("select end_time_ is not null from act_hi_procinst where proc_inst_id_ = ?",
                Boolean.class, process)).isEqualTo(!"ACTIVE".equals(bindingStatus));
        assertThat(db.workflow().queryForList("select task_def_key_ from act_ru_task where proc_inst_id_ = ? order by task_def_key_",
                String.class, process)).isEqualTo(openSteps);
    }

    private String registeredType() {
        String type = "DECLARED_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8).toUpperCase(Locale.ROOT);
        Api.Response registered = api.post("erin", "/api/business-types", """
                {"key": "%s", "name": "Payment release", "routableFields": ["amount"], "publishes": false,
                 "schema": {"type": "object", "required": ["amount"], "properties": {"amount": {"type": "number"}}}}"""
                .formatted(type));
        assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
        return type;
    }

    private long create(String type, int amount) {
        return create(type, amount, null);
    }

    /** {@code signers}: a JSON array, or null to name none. */
    private long create(String type, int amount, String signers) {
        Api.Response created = api.post("alice", "/api/applications", ("{\"type\": \"%s\", \"title\": \"Release payment\","
                + " \"fields\": {\"amount\": %d}%s}").formatted(type, amount, signers == null ? "" : ", \"signers\": " + signers));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }



    private static String resource(String name) {
        try (InputStream in = DeclarativeFlowTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Api.Response upload(String user, String type, String contentType, String body) {
        return api.postDocument(user, "/api/business-types/" + type + "/definitions", contentType, body.getBytes(StandardCharsets.UTF_8));
    }
}
