package dev.lockstep.transactions.workflow.definition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.lockstep.support.DeclarativeSamples;
import dev.lockstep.transactions.workflow.ReturnTarget;
import dev.lockstep.transactions.workflow.ReturnTargets;
import dev.lockstep.transactions.workflow.definition.DeclarativeFlows.Compilation;
import dev.lockstep.transactions.workflow.definition.DeclarativeFlows.Format;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.activiti.bpmn.converter.BpmnXMLConverter;
import org.activiti.bpmn.model.BoundaryEvent;
import org.activiti.bpmn.model.BpmnModel;
import org.activiti.bpmn.model.EndEvent;
import org.activiti.bpmn.model.Process;
import org.activiti.bpmn.model.SequenceFlow;
import org.activiti.bpmn.model.TimerEventDefinition;
import org.activiti.bpmn.model.UserTask;
import org.activiti.validation.ProcessValidatorFactory;
import org.junit.jupiter.api.Test;

class DeclarativeFlowsTest {

    private static final DefinitionRules RULES = new DefinitionRules(
            Set.of("managers", "legal", "finance", "directors"), Set.of("amount", "urgent"), 1024 * 1024);
    private final DeclarativeFlows flows = new DeclarativeFlows();
    private final BpmnDefinitions definitions = new BpmnDefinitions();

    /** The flow DeclarativeFlowTest runs over HTTP. */
    static final String PAYMENT_RELEASE = resource("/definitions/payment-release.json");

    static String resource(String name) {
        try (InputStream in = DeclarativeFlowsTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }


    private Compilation compile(String source, Format format) {
        return flows.compile(source.getBytes(StandardCharsets.UTF_8), format);
    }

    private DefinitionCheck check(String source) {
        Compilation compilation = compile(source, Format.JSON);
        assertThat(compilation).as("%s", compilation).isInstanceOf(Compilation.Compiled.class);
        return definitions.check(((Compilation.Compiled) compilation).bpmnXml(), RULES, "type_PAYMENT_RELEASE");
    }

    private DefinitionCheck.Accepted accepted(String source) {
        DefinitionCheck check = check(source);
        assertThat(check).as("%s", check).isInstanceOf(DefinitionCheck.Accepted.class);
        return (DefinitionCheck.Accepted) check;
    }

    private List<DefinitionProblem> refusedByCheck(String source) {
        DefinitionCheck check = check(source);
        assertThat(check).isInstanceOf(DefinitionCheck.Refused.class);
        return ((DefinitionCheck.Refused) check).problems();
    }

    private List<DefinitionProblem> refusedByStructure(String source) {
        Compilation compilation = compile(source, Format.JSON);
        assertThat(compilation).isInstanceOf(Compilation.Refused.class);
        return ((Compilation.Refused) compilation).problems();
    }

    private static Process deployed(DefinitionCheck.Accepted accepted) throws Exception {
        BpmnModel model = new BpmnXMLConverter().convertToBpmnModel(
                BpmnDocument.hardenedFactory().createXMLStreamReader(new ByteArrayInputStream(accepted.deployableXml())));
        assertThat(new ProcessValidatorFactory().createDefaultProcessValidator().validate(model)).isEmpty();
        return model.getMainProcess();
    }

    @Test
    void aFlowWithAConditionalParallelBlockCompilesToBpmnTheCheckAcceptsAndTheEngineValidates() throws Exception {
        DefinitionCheck.Accepted accepted = accepted(PAYMENT_RELEASE);

        assertThat(accepted.name()).isEqualTo("Payment release");
        assertThat(accepted.userTaskIds()).containsExactly("managerApproval", "legalReview", "financeReview", "finalApproval");
        Process process = deployed(accepted);
        assertThat(process.getId()).isEqualTo("type_PAYMENT_RELEASE");
        assertThat(((UserTask) process.getFlowElement("legalReview")).getCandidateGroups()).containsExactly("legal");
        assertThat(((SequenceFlow) process.getFlowElement("reviews-when-true")).getConditionExpression()).isEqualTo("${amount > 10000}");
        assertThat(((SequenceFlow) process.getFlowElement("legalReview-decision-reject")).getTargetRef()).isEqualTo("flow-rejected");
        assertThat(((EndEvent) process.getFlowElement("flow-rejected")).getEventDefinitions()).hasSize(1);
        BoundaryEvent deadline = (BoundaryEvent) process.getFlowElement("managerApproval-deadline");
        assertThat(((TimerEventDefinition) deadline.getEventDefinitions().get(0)).getTimeDuration()).isEqualTo("P2D");
        assertThat(deadline.getOutgoingFlows()).extracting(SequenceFlow::getTargetRef).containsExactly("flow-rejected");
    }

    @Test
    void theDeclaredReturnTargetsSurviveIntoTheDeployedXmlAndAreAllTheReturnRulesOffer() throws Exception {
        Process process = deployed(accepted(PAYMENT_RELEASE));
        Set<String> all = Set.of("managerApproval", "legalReview", "financeReview", "finalApproval");
        ReturnTargets returns = new ReturnTargets(process);

        assertThat(ReturnTargets.declaredTargets((UserTask) process.getFlowElement("finalApproval"))).containsExactly("managerApproval");
        // the review block is earlier on finalApproval's path too, but not declared
        assertThat(returns.allowed("finalApproval", all)).extracting(ReturnTarget::id).containsExactly("managerApproval");
        // a step that declares nothing may be returned nowhere
        assertThat(ReturnTargets.declaredTargets((UserTask) process.getFlowElement("legalReview"))).isEmpty();
        assertThat(returns.allowed("legalReview", all)).isEmpty();

        // a step of a block is re-entered at the block's fork, so both reviews run again
        Process toReview = deployed(accepted(PAYMENT_RELEASE.replace("\"returnTo\": [\"managerApproval\"]", "\"returnTo\": [\"legalReview\"]")));
        assertThat(new ReturnTargets(toReview).allowed("finalApproval", all)).extracting(ReturnTarget::id).containsExactly("reviews");
    }

    @Test
    void yamlCompilesToTheSameBpmnAsJson() {
        String yaml = """
                name: Payment release
                steps:
                  - {id: managerApproval, name: Manager approval, candidateGroups: [managers], deadline: P2D}
                  - id: reviews
                    name: Legal and finance review
                    when: amount > 10000
                    parallel:
                      - [{id: legalReview, name: Legal review, candidateGroups: [legal]}]
                      - [{id: financeReview, name: Finance review, candidateGroups: [finance]}]
                  - id: finalApproval
                    name: Final approval
                    candidateGroups: [directors]
                    returnTo: [managerApproval]
                """;
        assertThat(((Compilation.Compiled) compile(yaml, Format.YAML)).bpmnXml())
                .isEqualTo(((Compilation.Compiled) compile(PAYMENT_RELEASE, Format.JSON)).bpmnXml());
    }

    @Test
    void aFiftyStepFlowCompilesAndChecks() {
        String steps = DeclarativeSamples.fiftySteps();
        long started = System.nanoTime();
        DefinitionCheck.Accepted accepted = accepted(steps);
        System.out.printf("50-step declarative flow: compiled and checked in %d ms, deployable XML %d bytes%n",
                (System.nanoTime() - started) / 1_000_000, accepted.deployableXml().length);
        assertThat(accepted.userTaskIds()).hasSize(55);

        // its diagram: one box per user task, every timer written under its step, no element drawn twice
        started = System.nanoTime();
        String svg = FlowDiagram.svg(new String(accepted.deployableXml(), StandardCharsets.UTF_8));
        System.out.printf("50-step declarative flow: diagram drawn in %d ms, %d bytes of SVG%n", (System.nanoTime() - started) / 1_000_000,
                svg.length());
        assertThat(svg.split("<rect ", -1)).hasSize(55 + 1);
        assertThat(svg.split(">timer PT4H<", -1)).hasSize(45 + 1);
        assertThat(accepted.userTaskIds()).allMatch(id -> svg.split("data-element-id=\"" + id + "\"", -1).length == 2);
        assertThat(DiagramGeometry.flowsThroughOtherShapes(svg)).as("flows drawn across a shape that is not their end").isEmpty();
    }

    @Test
    void structuralProblemsNameTheMemberByItsJsonPointer() {
        assertThat(refusedByStructure("""
                {"name": "x", "owner": "erin", "steps": [
                  {"id": "a", "candidateGroups": ["managers"], "countersign": {"policy": "ALL"}},
                  {"id": "a", "candidateGroups": ["managers"]},
                  {"candidateGroups": ["managers"]},
                  {"id": "bad-id", "candidateGroups": ["managers"]},
                  {"id": "b", "candidateGroups": "managers", "deadline": 2},
                  {"id": "c", "parallel": [[{"id": "d", "candidateGroups": ["legal"]}]]},
                  {"id": "e", "parallel": [[{"id": "f", "candidateGroups": ["legal"]}], []]},
                  "g"]}
                """)).extracting(DefinitionProblem::elementId, DefinitionProblem::code).containsExactlyInAnyOrder(
                tuple("/owner", "MEMBER_UNKNOWN"),
                tuple("/steps/0/countersign", "MEMBER_INVALID"),
                tuple("/steps/1/id", "STEP_ID_DUPLICATE"),
                tuple("/steps/2/id", "STEP_ID_INVALID"),
                tuple("/steps/3/id", "STEP_ID_INVALID"),
                tuple("/steps/4/candidateGroups", "MEMBER_INVALID"),
                tuple("/steps/4/deadline", "MEMBER_INVALID"),
                tuple("/steps/5/parallel", "PARALLEL_TOO_FEW_BRANCHES"),
                tuple("/steps/6/parallel/1", "STEPS_EMPTY"),
                tuple("/steps/7", "MEMBER_INVALID"));
        assertThat(refusedByStructure("{\"name\": \"x\", \"steps\": []}"))
                .extracting(DefinitionProblem::elementId, DefinitionProblem::code).containsExactly(tuple("/steps", "STEPS_EMPTY"));
        assertThat(refusedByStructure("[1, 2]")).extracting(DefinitionProblem::code).containsExactly("MEMBER_INVALID");
    }

    @Test
    void aDocumentThatIsNotJsonOrYamlIsMalformed() {
        assertThat(refusedByStructure("{\"name\": \"x\", \"steps\": [")).extracting(DefinitionProblem::code)
                .containsExactly("DECLARATIVE_MALFORMED");
        assertThat(refusedByStructure("{\"name\": \"x\", \"name\": \"y\", \"steps\": []}")).extracting(DefinitionProblem::code)
                .containsExactly("DECLARATIVE_MALFORMED");
        assertThat(((Compilation.Refused) compile("steps: [a, b\n  c: :", Format.YAML)).problems())
                .extracting(DefinitionProblem::code).containsExactly("DECLARATIVE_MALFORMED");
    }

    @Test
    void groupsConditionsAndDeadlinesAreCheckedOnTheCompiledBpmnByTheSameRulesAsAnUpload() {
        assertThat(refusedByCheck("""
                {"name": "x", "steps": [
                  {"id": "a", "candidateGroups": ["nobody"], "deadline": "two days"},
                  {"id": "b", "when": "currency == 'EUR'", "candidateGroups": ["managers"]},
                  {"id": "c", "when": "amount.class", "candidateGroups": []}]}
                """)).extracting(DefinitionProblem::elementId, DefinitionProblem::code).containsExactlyInAnyOrder(
                tuple("a", "UNKNOWN_GROUP"),
                tuple("a-deadline", "TIMER_DURATION_INVALID"),
                tuple("b-when-true", "UNKNOWN_FIELD"),
                tuple("c-when-true", "EXPRESSION_NOT_ALLOWED"),
                tuple("c", "NO_CANDIDATE_GROUPS"));
        // text that would run as code is refused by the upload's first pass, wherever the compiler put it
        assertThat(refusedByCheck("""
                {"name": "${execution}", "steps": [{"id": "a", "candidateGroups": ["managers"]}]}
                """)).extracting(DefinitionProblem::code).containsExactly("CODE_NOT_ALLOWED");
    }

    @Test
    void returnTargetsAreHeldToTheReturnCommandsRules() {
        assertThat(refusedByCheck("""
                {"name": "x", "steps": [
                  {"id": "first", "candidateGroups": ["managers"], "returnTo": ["last"]},
                  {"id": "reviews", "parallel": [
                    [{"id": "legal", "candidateGroups": ["legal"]}, {"id": "legalSignOff", "candidateGroups": ["legal"], "returnTo": ["legal", "first"]}],
                    [{"id": "finance", "candidateGroups": ["finance"], "returnTo": ["legal"]}]]},
                  {"id": "last", "candidateGroups": ["directors"], "returnTo": ["first", "nowhere", "reviews"]}]}
                """)).extracting(DefinitionProblem::elementId, DefinitionProblem::code).containsExactlyInAnyOrder(
                tuple("first", "RETURN_TARGET_NOT_ALLOWED"),        // later, not earlier
                tuple("legalSignOff", "RETURN_TARGET_NOT_ALLOWED"), // inside its own parallel section ("first" is fine)
                tuple("finance", "RETURN_TARGET_NOT_ALLOWED"),      // another branch of its section
                tuple("last", "RETURN_TARGET_UNKNOWN"),              // no such step
                tuple("last", "RETURN_TARGET_UNKNOWN"));             // a block is not a step: name one of its steps
    }

    @Test
    void aCountersignStepCompilesToTheProductsCountersignTaskWithItsPolicyAndRoutesOnItsResult() throws Exception {
        DefinitionCheck.Accepted accepted = accepted("""
                {"name": "Board", "steps": [
                  {"id": "managerApproval", "candidateGroups": ["managers"]},
                  {"id": "countersign", "name": "Board countersign", "countersign": {"policy": "RATIO", "ratio": 0.67}, "returnTo": ["managerApproval"]},
                  {"id": "finalApproval", "candidateGroups": ["directors"]}]}
                """);
        assertThat(accepted.countersign()).isEqualTo(new CountersignPolicy(dev.lockstep.transactions.workflow.Countersign.Policy.RATIO,
                new java.math.BigDecimal("0.67")));
        Process process = deployed(accepted);
        UserTask countersign = (UserTask) process.getFlowElement("countersign");
        assertThat(countersign.getAssignee()).isEqualTo("${signer}");
        assertThat(countersign.getCandidateGroups()).isEmpty();
        assertThat(countersign.getLoopCharacteristics().getInputDataItem()).isEqualTo("${signers}");
        // the step's result, not the last signer's vote, decides the way on
        assertThat(((SequenceFlow) process.getFlowElement("countersign-decision-reject")).getConditionExpression())
                .isEqualTo("${countersignResult == 'REJECTED'}");
        assertThat(((SequenceFlow) process.getFlowElement("managerApproval-decision-reject")).getConditionExpression())
                .isEqualTo("${decision == 'REJECT'}");

        assertThat(refusedByCheck("""
                {"name": "x", "steps": [{"id": "board", "countersign": {"policy": "RATIO"}}]}
                """)).extracting(DefinitionProblem::elementId, DefinitionProblem::code).containsExactlyInAnyOrder(
                tuple("board", "COUNTERSIGN_ID_REQUIRED"), tuple("board", "COUNTERSIGN_POLICY_INVALID"));
        assertThat(refusedByStructure("""
                {"name": "x", "steps": [{"id": "countersign", "countersign": {"policy": "ALL", "quorum": 2}}]}
                """)).extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .containsExactly(tuple("/steps/0/countersign/quorum", "MEMBER_UNKNOWN"));
    }
}
