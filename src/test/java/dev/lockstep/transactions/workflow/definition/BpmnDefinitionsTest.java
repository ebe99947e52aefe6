package dev.lockstep.transactions.workflow.definition;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.activiti.bpmn.converter.BpmnXMLConverter;
import org.activiti.bpmn.model.BpmnModel;
import org.activiti.bpmn.model.EndEvent;
import org.activiti.bpmn.model.UserTask;
import org.activiti.validation.ProcessValidatorFactory;
import org.activiti.validation.ValidationError;
import dev.lockstep.transactions.workflow.Countersign;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BpmnDefinitionsTest {

    private static final DefinitionRules RULES = new DefinitionRules(
            Set.of("managers", "legal", "finance", "executives"), Set.of("amount", "riskLevel"), 1024 * 1024);
    private final BpmnDefinitions definitions = new BpmnDefinitions();

    /** One step between start and an APPROVED end; {@code extra} is more process content. */
    private static String process(String task, String extra) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:activiti="http://activiti.org/bpmn"
                             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:lockstep="https://lockstep.dev/bpmn"
                             xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" targetNamespace="t">
                  <process id="p" isExecutable="true">
                    <startEvent id="start"/>
                    <sequenceFlow id="toStep" sourceRef="start" targetRef="step"/>
                    %s
                    <sequenceFlow id="afterStep" sourceRef="step" targetRef="approved"/>
                    <endEvent id="approved" lockstep:outcome="APPROVED"/>
                    %s
                  </process>
                </definitions>
                """.formatted(task, extra);
    }

    private static String plainStep() {
        return "<userTask id=\"step\" activiti:candidateGroups=\"managers\"/>";
    }

    /** A gateway after the step whose REJECT flow has {@code condition}. */
    private static String withCondition(String condition) {
        return process(plainStep(), "").replace("<sequenceFlow id=\"afterStep\" sourceRef=\"step\" targetRef=\"approved\"/>", """
                <sequenceFlow id="afterStep" sourceRef="step" targetRef="decide"/>
                <exclusiveGateway id="decide" default="approve"/>
                <sequenceFlow id="approve" sourceRef="decide" targetRef="approved"/>
                <sequenceFlow id="reject" sourceRef="decide" targetRef="rejected">
                  <conditionExpression xsi:type="tFormalExpression"><![CDATA[%s]]></conditionExpression>
                </sequenceFlow>
                <endEvent id="rejected" lockstep:outcome="REJECTED"/>
                """.formatted(condition));
    }

    private List<DefinitionProblem> refused(String xml) {
        return refused(xml.getBytes(StandardCharsets.UTF_8));
    }

    private List<DefinitionProblem> refused(byte[] xml) {
        DefinitionCheck check = definitions.check(xml, RULES, "paymentRelease");
        assertThat(check).isInstanceOf(DefinitionCheck.Refused.class);
        return ((DefinitionCheck.Refused) check).problems();
    }

    private DefinitionCheck.Accepted accepted(byte[] xml, String key) {
        DefinitionCheck check = definitions.check(xml, RULES, key);
        assertThat(check).as("%s", check).isInstanceOf(DefinitionCheck.Accepted.class);
        return (DefinitionCheck.Accepted) check;
    }

    @Test
    void aMinimalOneStepFlowIsAccepted() {
        accepted(withCondition("${decision == 'REJECT' or (amount gt 10 && !(riskLevel != 'HIGH'))}").getBytes(StandardCharsets.UTF_8), "k");
    }

    @Test
    void aScriptTaskIsRefused() {
        assertThat(refused(process(plainStep(), """
                <scriptTask id="script" scriptFormat="groovy"><script>"rm -rf /".execute()</script></scriptTask>
                """))).containsExactly(new DefinitionProblem("script", "ELEMENT_NOT_SUPPORTED", "ScriptTask is not supported"));
    }

    @Test
    void aServiceTaskWithAJavaDelegateIsRefused() {
        assertThat(refused(process(plainStep(), "<serviceTask id=\"java\" activiti:class=\"com.example.Pay\"/>")))
                .extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .contains(org.assertj.core.groups.Tuple.tuple("java", "CODE_NOT_ALLOWED"));
    }

    @Test
    void aServiceTaskWithADelegateExpressionIsRefused() {
        assertThat(refused(process(plainStep(), "<serviceTask id=\"bean\" activiti:delegateExpression=\"${payments}\"/>")))
                .extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .contains(org.assertj.core.groups.Tuple.tuple("bean", "CODE_NOT_ALLOWED"));
    }

    @Test
    void aServiceTaskWithoutAttributesIsStillNotSupported() {
        assertThat(refused(process(plainStep(), "<serviceTask id=\"svc\"/>")))
                .contains(new DefinitionProblem("svc", "ELEMENT_NOT_SUPPORTED", "ServiceTask is not supported"));
    }

    @Test
    void camundaCodeAttributesAndListenersAreRefused() {
        List<DefinitionProblem> problems = refused(process("""
                <userTask id="step" camunda:candidateGroups="managers">
                  <extensionElements><camunda:executionListener class="com.example.Hook" event="start"/></extensionElements>
                </userTask>
                """, "<userTask id=\"other\" camunda:asyncBefore=\"true\" camunda:candidateGroups=\"managers\"/>"));
        assertThat(problems).extracting(DefinitionProblem::elementId, DefinitionProblem::code).contains(
                org.assertj.core.groups.Tuple.tuple("step", "CODE_NOT_ALLOWED"), org.assertj.core.groups.Tuple.tuple("other", "CODE_NOT_ALLOWED"));
    }

    @Test
    void anExpressionAssigneeOrTaskNameIsRefused() {
        assertThat(refused(process("<userTask id=\"step\" name=\"${bean.run()}\" activiti:assignee=\"${boss}\" activiti:candidateGroups=\"managers\"/>", "")))
                .extracting(DefinitionProblem::code).containsExactly("CODE_NOT_ALLOWED", "CODE_NOT_ALLOWED");
    }

    @Test
    void aConditionCallingABeanIsRefused() {
        assertThat(refused(withCondition("${payments.release()}"))).extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("reject", "EXPRESSION_NOT_ALLOWED"));
    }

    @Test
    void aConditionSettingAVariableIsRefused() {
        assertThat(refused(withCondition("${execution.setVariable('outcome', 'APPROVED') == null}")))
                .extracting(DefinitionProblem::code).contains("EXPRESSION_NOT_ALLOWED");
    }

    @Test
    void propertyAccessFunctionsArithmeticAndDeferredExpressionsAreRefused() {
        for (String condition : List.of("${amount.class == 'x'}", "${amount['x'] == 1}", "${fn:length(amount) > 1}",
                "${amount + 1 > 2}", "#{amount > 1}", "amount > 1", "${amount > 1} and more")) {
            assertThat(refused(withCondition(condition))).as(condition).extracting(DefinitionProblem::code).contains("EXPRESSION_NOT_ALLOWED");
        }
    }

    @Test
    void anUnknownFieldIsNamed() {
        assertThat(refused(withCondition("${salary > 10}")))
                .containsExactly(new DefinitionProblem("reject", "UNKNOWN_FIELD", "'salary' is neither a routable field of the business type nor 'decision' or 'countersignResult'"));
    }

    @Test
    void anUnreachableEndIsRefused() {
        assertThat(refused(process(plainStep(), "<endEvent id=\"orphan\" lockstep:outcome=\"REJECTED\"/>")))
                .extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("orphan", "UNREACHABLE_ELEMENT"));
    }

    @Test
    void aStepThatLeadsNowhereIsRefused() {
        assertThat(refused(process(plainStep(), """
                <exclusiveGateway id="loop"/>
                <sequenceFlow id="intoLoop" sourceRef="start" targetRef="loop"/>
                """).replace("<sequenceFlow id=\"toStep\" sourceRef=\"start\" targetRef=\"step\"/>", "<sequenceFlow id=\"toStep\" sourceRef=\"start\" targetRef=\"step\"/>")))
                .extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .contains(org.assertj.core.groups.Tuple.tuple("loop", "NO_PATH_TO_END"));
    }

    @Test
    void anEndWithoutOutcomeIsRefused() {
        assertThat(refused(process(plainStep(), "").replace(" lockstep:outcome=\"APPROVED\"", "")))
                .extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .contains(org.assertj.core.groups.Tuple.tuple("approved", "END_WITHOUT_OUTCOME"));
    }

    @Test
    void anUnknownGroupIsNamed() {
        assertThat(refused(process("<userTask id=\"step\" activiti:candidateGroups=\"managers, treasury\"/>", "")))
                .containsExactly(new DefinitionProblem("step", "UNKNOWN_GROUP", "group 'treasury' does not exist"));
    }

    /** The built-in flows' mark for the step-deadline policy would make the deadline scan end an upload's run at ids it may lack. */
    @Test
    void aStepMarkedForThePolicyDeadlinesIsRefused() {
        assertThat(refused(process("<userTask id=\"step\" lockstep:deadlines=\"policy\" activiti:candidateGroups=\"managers\"/>", "")))
                .extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("step", "POLICY_DEADLINES_NOT_SUPPORTED"));
    }

    @Test
    void aStepWithoutGroupIsRefused() {
        assertThat(refused(process("<userTask id=\"step\"/>", ""))).extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("step", "NO_CANDIDATE_GROUPS"));
    }

    @Test
    void aChoiceWithoutConditionIsRefused() {
        assertThat(refused(withCondition("${decision == 'REJECT'}").replace(" default=\"approve\"", "")))
                .extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("approve", "GATEWAY_FLOW_WITHOUT_CONDITION"));
    }

    @Test
    void aParallelForkEndingBeforeAJoinIsRefused() {
        String xml = process(plainStep(), """
                <parallelGateway id="fork"/>
                <userTask id="side" activiti:candidateGroups="legal"/>
                <sequenceFlow id="toSide" sourceRef="fork" targetRef="side"/>
                <sequenceFlow id="afterSide" sourceRef="side" targetRef="approved"/>
                """).replace("<sequenceFlow id=\"toStep\" sourceRef=\"start\" targetRef=\"step\"/>", """
                <sequenceFlow id="toFork" sourceRef="start" targetRef="fork"/>
                <sequenceFlow id="toStep" sourceRef="fork" targetRef="step"/>
                """);
        assertThat(refused(xml)).extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("fork", "PARALLEL_FORK_NOT_JOINED"));
    }

    @Test
    void aTimerWithAnExpressionOrNoDurationIsRefused() {
        String timer = """
                <boundaryEvent id="late" attachedToRef="step"><timerEventDefinition><timeDuration>%s</timeDuration></timerEventDefinition></boundaryEvent>
                <sequenceFlow id="expired" sourceRef="late" targetRef="approved"/>
                """;
        assertThat(refused(process(plainStep(), timer.formatted("${deadlines.after()}")))).extracting(DefinitionProblem::code).contains("CODE_NOT_ALLOWED");
        assertThat(refused(process(plainStep(), timer.formatted("tomorrow"))))
                .extracting(DefinitionProblem::elementId, DefinitionProblem::code).containsExactly(org.assertj.core.groups.Tuple.tuple("late", "TIMER_DURATION_INVALID"));
    }

    @Test
    void aDeadlineEndsTheRunRejectedOrReturnedAndNeverOnlyRemindsOrApproves() {
        String timer = """
                <boundaryEvent id="late" attachedToRef="step"%s><timerEventDefinition><timeDuration>P2D</timeDuration></timerEventDefinition></boundaryEvent>
                <sequenceFlow id="expired" sourceRef="late" targetRef="%s"/>
                """;
        String rejected = "<endEvent id=\"rejected\" lockstep:outcome=\"REJECTED\"/>";
        String chase = rejected + "<userTask id=\"chase\" activiti:candidateGroups=\"managers\"/>"
                + "<sequenceFlow id=\"chased\" sourceRef=\"chase\" targetRef=\"rejected\"/>";
        assertThat(refused(process(plainStep(), timer.formatted(" cancelActivity=\"false\"", "rejected") + rejected)))
                .extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("late", "TIMER_NOT_INTERRUPTING"));
        for (String xml : List.of(process(plainStep(), timer.formatted("", "approved")), process(plainStep(), timer.formatted("", "chase") + chase))) {
            assertThat(refused(xml)).extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("late", "TIMER_PATH_INVALID"));
        }
        accepted(process(plainStep(), timer.formatted("", "rejected") + rejected).getBytes(StandardCharsets.UTF_8), "k");
    }

    @Test
    void aDeadlineInAParallelSectionEndsAtATerminateEnd() {
        String xml = process(plainStep(), """
                <parallelGateway id="fork"/>
                <parallelGateway id="join"/>
                <userTask id="side" activiti:candidateGroups="legal"/>
                <sequenceFlow id="toSide" sourceRef="fork" targetRef="side"/>
                <sequenceFlow id="sideDone" sourceRef="side" targetRef="join"/>
                <sequenceFlow id="joined" sourceRef="join" targetRef="approved"/>
                <boundaryEvent id="late" attachedToRef="side"><timerEventDefinition><timeDuration>P2D</timeDuration></timerEventDefinition></boundaryEvent>
                <sequenceFlow id="expired" sourceRef="late" targetRef="rejected"/>
                <endEvent id="rejected" lockstep:outcome="REJECTED"/>
                """).replace("<sequenceFlow id=\"toStep\" sourceRef=\"start\" targetRef=\"step\"/>", """
                <sequenceFlow id="toFork" sourceRef="start" targetRef="fork"/>
                <sequenceFlow id="toStep" sourceRef="fork" targetRef="step"/>
                """).replace("<sequenceFlow id=\"afterStep\" sourceRef=\"step\" targetRef=\"approved\"/>",
                "<sequenceFlow id=\"afterStep\" sourceRef=\"step\" targetRef=\"join\"/>");
        assertThat(refused(xml)).extracting(DefinitionProblem::elementId, DefinitionProblem::code)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("late", "TIMER_PATH_INVALID"));
        accepted(xml.replace("<endEvent id=\"rejected\" lockstep:outcome=\"REJECTED\"/>",
                "<endEvent id=\"rejected\" lockstep:outcome=\"REJECTED\"><terminateEventDefinition/></endEvent>")
                .getBytes(StandardCharsets.UTF_8), "k");
    }

    @Test
    void aDeadlineFlowCarriesTheBuiltInFinalDeadlinesActionForItsOutcome() throws IOException {
        String xml = process("<userTask id=\"it's\" activiti:candidateGroups=\"managers\"/>", """
                <boundaryEvent id="late" attachedToRef="it's"><timerEventDefinition><timeDuration>P2D</timeDuration></timerEventDefinition></boundaryEvent>
                <sequenceFlow id="expired" sourceRef="late" targetRef="returned"/>
                <endEvent id="returned" lockstep:outcome="RETURNED"/>
                """).replace("\"step\"", "\"it's\"");
        BpmnModel deployed = deployedModel(accepted(xml.getBytes(StandardCharsets.UTF_8), "k"));
        assertThat(((org.activiti.bpmn.model.SequenceFlow) deployed.getMainProcess().getFlowElement("expired")).getExecutionListeners())
                .singleElement().satisfies(l -> {
                    assertThat(l.getEvent()).isEqualTo("take");
                    assertThat(l.getImplementation()).isEqualTo("${deadlines.returnToApplicant(execution, 'it\\'s')}");
                });
        // the engine's EL parser reads the id back as one string argument: an id cannot end the literal
        de.odysseus.el.tree.impl.ast.AstNode eval = (de.odysseus.el.tree.impl.ast.AstNode)
                new de.odysseus.el.tree.impl.Builder(de.odysseus.el.tree.impl.Builder.Feature.METHOD_INVOCATIONS)
                        .build("${" + DeployableBpmn.elString("x\\'), bean.run('") + "}").getRoot();
        assertThat(eval.getChild(0)).isInstanceOf(de.odysseus.el.tree.impl.ast.AstString.class);
        assertThat(((de.odysseus.el.tree.impl.ast.AstString) eval.getChild(0)).eval(null, null)).isEqualTo("x\\'), bean.run('");
    }

    @Test
    void allProblemsAreCollected() {
        assertThat(refused(process("<userTask id=\"step\" activiti:candidateGroups=\"nobody\"/>",
                "<callActivity id=\"call\" calledElement=\"x\"/><sequenceFlow id=\"toCall\" sourceRef=\"start\" targetRef=\"call\"/>")))
                .extracting(DefinitionProblem::code).contains("UNKNOWN_GROUP", "ELEMENT_NOT_SUPPORTED");
    }

    @Test
    void anExternalEntityIsNeverRead(@TempDir Path dir) throws IOException {
        Path secret = dir.resolve("secret.txt");
        Files.writeString(secret, "TOP-SECRET-7f3a");
        String xml = process(plainStep(), "").replace("<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE definitions [<!ENTITY secret SYSTEM \"" + secret.toUri() + "\">]>")
                .replace("<userTask id=\"step\"", "<userTask id=\"step\" name=\"&secret;\"");
        List<DefinitionProblem> problems = refused(xml);
        assertThat(problems).extracting(DefinitionProblem::code).containsExactly("DTD_NOT_ALLOWED");
        assertThat(problems.toString()).doesNotContain("TOP-SECRET");
    }

    @Test
    void billionLaughsIsRefusedWithoutExpanding() {
        StringBuilder dtd = new StringBuilder("<!DOCTYPE definitions [<!ENTITY lol0 \"lol\">");
        for (int i = 1; i < 10; i++) {
            dtd.append("<!ENTITY lol").append(i).append(" \"").append(("&lol" + (i - 1) + ";").repeat(10)).append("\">");
        }
        String xml = process(plainStep(), "").replace("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", dtd + "]>")
                .replace("<userTask id=\"step\"", "<userTask id=\"step\" name=\"&lol9;\"");
        assertThat(refused(xml.strip())).extracting(DefinitionProblem::code).containsExactly("DTD_NOT_ALLOWED");
    }

    @Test
    void aFiveMegabyteDocumentIsRefusedBeforeParsing() {
        byte[] huge = new byte[5 * 1024 * 1024];
        Arrays.fill(huge, (byte) '<'); // not XML at all: a parse would report XML_MALFORMED
        assertThat(refused(huge)).extracting(DefinitionProblem::code).containsExactly("DEFINITION_TOO_LARGE");
    }

    @Test
    void malformedXmlIsRefused() {
        assertThat(refused("<definitions><process id=\"p\">")).extracting(DefinitionProblem::code).containsExactly("XML_MALFORMED");
    }

    @Test
    void twoProcessesAreRefused() {
        assertThat(refused(process(plainStep(), "").replace("</definitions>", "<process id=\"q\" isExecutable=\"true\"/></definitions>")))
                .extracting(DefinitionProblem::code).containsExactly("ONE_PROCESS_REQUIRED");
    }

    @Test
    void countersignRules() {
        String marked = "<userTask id=\"step\" lockstep:countersign=\"true\" lockstep:policy=\"ALL\"/>";
        assertThat(refused(process(marked, ""))).extracting(DefinitionProblem::code).containsExactly("COUNTERSIGN_ID_REQUIRED");
        String two = process(marked, "<userTask id=\"countersign\" lockstep:countersign=\"true\" lockstep:policy=\"ALL\"/>"
                + "<sequenceFlow id=\"a\" sourceRef=\"start\" targetRef=\"countersign\"/><sequenceFlow id=\"b\" sourceRef=\"countersign\" targetRef=\"approved\"/>");
        assertThat(refused(two)).extracting(DefinitionProblem::code).contains("MORE_THAN_ONE_COUNTERSIGN");
        String looped = process("""
                <userTask id="step" lockstep:countersign="true" lockstep:policy="ONE_VETO"><multiInstanceLoopCharacteristics isSequential="true"><loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics></userTask>
                """, "").replace("\"step\"", "\"countersign\"");
        assertThat(refused(looped)).extracting(DefinitionProblem::code).containsExactly("COUNTERSIGN_CONFIGURED");
        for (String policy : List.of("", "lockstep:policy=\"MOST\"", "lockstep:policy=\"RATIO\"", "lockstep:policy=\"ALL\" lockstep:ratio=\"0.5\"",
                "lockstep:policy=\"RATIO\" lockstep:ratio=\"0\"", "lockstep:policy=\"RATIO\" lockstep:ratio=\"1.01\"",
                "lockstep:policy=\"RATIO\" lockstep:ratio=\"0.667\"", "lockstep:policy=\"RATIO\" lockstep:ratio=\"two thirds\"")) {
            String step = "<userTask id=\"step\" lockstep:countersign=\"true\" " + policy + "/>";
            assertThat(refused(process(step, "").replace("\"step\"", "\"countersign\""))).as(policy).extracting(DefinitionProblem::code).containsExactly("COUNTERSIGN_POLICY_INVALID");
        }
    }

    @Test
    void theCamundaModelerPaymentReleaseIsDeployable() throws IOException {
        DefinitionCheck.Accepted accepted = accepted(resource("payment-release.bpmn"), "paymentRelease");
        assertThat(accepted.processKey()).isEqualTo("paymentRelease");
        assertThat(accepted.name()).isEqualTo("Payment release");
        assertThat(accepted.userTaskIds()).containsExactly("managerApproval", "legalReview", "financeReview", "finalApproval");

        BpmnModel deployed = deployedModel(accepted);
        assertThat(deployed.getProcesses()).singleElement().satisfies(p -> assertThat(p.getId()).isEqualTo("paymentRelease"));
        EndEvent approved = (EndEvent) deployed.getMainProcess().getFlowElement("approved");
        assertThat(approved.getExecutionListeners()).singleElement().satisfies(l -> {
            assertThat(l.getEvent()).isEqualTo("start");
            assertThat(l.getImplementation()).isEqualTo("${execution.setVariable('outcome', 'APPROVED')}");
        });
        assertThat(((org.activiti.bpmn.model.SequenceFlow) deployed.getMainProcess().getFlowElement("finalApprovalExpired"))
                .getExecutionListeners()).singleElement()
                .satisfies(l -> assertThat(l.getImplementation()).isEqualTo("${deadlines.reject(execution, 'finalApproval')}"));
        EndEvent rejected = (EndEvent) deployed.getMainProcess().getFlowElement("rejected");
        assertThat(rejected.getExecutionListeners()).singleElement()
                .satisfies(l -> assertThat(l.getImplementation()).isEqualTo("${execution.setVariable('outcome', 'REJECTED')}"));
        // the Camunda Modeler's groups are what Activiti reads now
        assertThat(((UserTask) deployed.getMainProcess().getFlowElement("legalReview")).getCandidateGroups()).containsExactly("legal");
        assertThat(deployed.getLocationMap()).containsKeys("managerApproval", "reviewFork", "approved");
        assertThat(deployed.getFlowLocationMap()).containsKey("largePayment");
        assertValid(deployed);
    }

    @Test
    void theCountersignStepGetsTheProductsLoopAndListeners() throws IOException {
        DefinitionCheck.Accepted accepted = accepted(resource("supplier-countersign.bpmn"), "supplierOnboarding");
        assertThat(accepted.userTaskIds()).containsExactly("buyerReview", "countersign");
        assertThat(accepted.countersign()).isEqualTo(new CountersignPolicy(Countersign.Policy.RATIO, new java.math.BigDecimal("0.66")));
        BpmnModel deployed = deployedModel(accepted);
        UserTask countersign = (UserTask) deployed.getMainProcess().getFlowElement("countersign");
        assertThat(countersign.getAssignee()).isEqualTo("${signer}");
        assertThat(countersign.getLoopCharacteristics().getInputDataItem()).isEqualTo("${signers}");
        assertThat(countersign.getLoopCharacteristics().getElementVariable()).isEqualTo("signer");
        assertThat(countersign.getLoopCharacteristics().isSequential()).isFalse();
        assertThat(countersign.getLoopCharacteristics().getCompletionCondition()).isEqualTo("${countersign.decided(execution)}");
        assertThat(countersign.getTaskListeners()).singleElement()
                .satisfies(l -> assertThat(l.getImplementation()).isEqualTo("${countersign.count(execution, decision)}"));
        assertThat(countersign.getIncomingFlows()).singleElement().satisfies(flow -> assertThat(flow.getExecutionListeners())
                .singleElement().satisfies(l -> assertThat(l.getImplementation()).isEqualTo("${countersign.open(execution)}")));
        assertValid(deployed);
    }

    private static BpmnModel deployedModel(DefinitionCheck.Accepted accepted) throws IOException {
        try (InputStream in = new ByteArrayInputStream(accepted.deployableXml())) {
            return new BpmnXMLConverter().convertToBpmnModel(
                    BpmnDocument.hardenedFactory().createXMLStreamReader(in));
        } catch (javax.xml.stream.XMLStreamException e) {
            throw new IOException(e);
        }
    }

    private static void assertValid(BpmnModel model) {
        List<ValidationError> errors = new ProcessValidatorFactory().createDefaultProcessValidator().validate(model);
        assertThat(errors).filteredOn(error -> !error.isWarning()).isEmpty();
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = BpmnDefinitionsTest.class.getResourceAsStream("/definitions/" + name)) {
            return in.readAllBytes();
        }
    }
}
