package dev.lockstep.transactions.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.activiti.bpmn.converter.BpmnXMLConverter;
import org.activiti.bpmn.converter.util.InputStreamProvider;
import org.activiti.bpmn.model.Process;
import org.junit.jupiter.api.Test;

/** The allowed return targets, read from real BPMN by the engine's own parser: the shipped process and a nested fork. */
class ReturnTargetsTest {

    @Test
    void shippedApprovalProcessOffersTheManagerAndTheReviewForkOnlyOnceTheyWerePassed() throws IOException {
        ReturnTargets targets;
        try (InputStream bpmn = getClass().getResourceAsStream("/processes/application-approval.bpmn20.xml")) {
            targets = new ReturnTargets(parse(bpmn.readAllBytes()));
        }
        Set<String> all = Set.of("managerApproval", "legalReview", "financeReview");

        assertThat(ids(targets.allowed("managerApproval", Set.of()))).isEmpty();
        assertThat(ids(targets.allowed("legalReview", all))).containsExactly("managerApproval");
        assertThat(ids(targets.allowed("financeReview", Set.of("managerApproval", "legalReview")))).containsExactly("managerApproval");
        assertThat(targets.allowed("finalApproval", all)).containsExactly(new ReturnTarget("managerApproval", "Manager approval"),
                new ReturnTarget("reviewFork", "Legal and finance review"));
        assertThat(ids(targets.allowed("finalApproval", Set.of("managerApproval")))).as("no reviews ran: not sensitive")
                .containsExactly("managerApproval");
        assertThat(ids(targets.allowed("noSuchStep", all))).isEmpty();
        assertThat(targets.entryOf(targets.node("legalReview")).getId()).isEqualTo("reviewFork");
        assertThat(targets.entryOf(targets.node("finalApproval")).getId()).isEqualTo("finalApproval");
    }

    @Test
    void countersignOffersTheManagerReviewBeforeItButNeverItself() throws IOException {
        ReturnTargets targets;
        try (InputStream bpmn = getClass().getResourceAsStream("/processes/countersign-approval.bpmn20.xml")) {
            targets = new ReturnTargets(parse(bpmn.readAllBytes()));
        }

        assertThat(targets.allowed("countersign", Set.of("managerApproval", "countersign")))
                .as("a later round: signers of the cancelled one completed countersign tasks")
                .containsExactly(new ReturnTarget("managerApproval", "Manager approval"));
        assertThat(targets.allowed("countersign", Set.of("countersign"))).as("no manager review chosen: nothing before it").isEmpty();
        assertThat(targets.allowed("countersign", Set.of())).isEmpty();
        assertThat(targets.allowed("managerApproval", Set.of())).as("nothing before the manager").isEmpty();
        assertThat(targets.entryOf(targets.node("countersign")).getId()).isEqualTo("countersign");
    }

    @Test
    void aMultiInstanceStepIsNeverATarget() {
        ReturnTargets targets = new ReturnTargets(parse("""
                <definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
                  <process id="signThenApprove" isExecutable="true">
                    <startEvent id="start"/>
                    <sequenceFlow id="f1" sourceRef="start" targetRef="a"/>
                    <userTask id="a" name="A"/>
                    <sequenceFlow id="f2" sourceRef="a" targetRef="sign"/>
                    <userTask id="sign" name="Sign">
                      <multiInstanceLoopCharacteristics isSequential="false"><loopCardinality>2</loopCardinality></multiInstanceLoopCharacteristics>
                    </userTask>
                    <sequenceFlow id="f3" sourceRef="sign" targetRef="b"/>
                    <userTask id="b" name="B"/>
                    <sequenceFlow id="f4" sourceRef="b" targetRef="end"/>
                    <endEvent id="end"/>
                  </process>
                </definitions>
                """.getBytes(StandardCharsets.UTF_8)));

        assertThat(ids(targets.allowed("b", Set.of("a", "sign")))).containsExactly("a");
        assertThat(ids(targets.allowed("sign", Set.of("a", "sign")))).containsExactly("a");
    }

    @Test
    void aStepInsideNestedParallelSectionsIsEnteredAtTheOutermostFork() {
        ReturnTargets targets = new ReturnTargets(parse("""
                <definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
                  <process id="nested" isExecutable="true">
                    <startEvent id="start"/>
                    <sequenceFlow id="f1" sourceRef="start" targetRef="a"/>
                    <userTask id="a" name="A"/>
                    <sequenceFlow id="f2" sourceRef="a" targetRef="outerFork"/>
                    <parallelGateway id="outerFork" name="Outer"/>
                    <sequenceFlow id="f3" sourceRef="outerFork" targetRef="b"/>
                    <sequenceFlow id="f4" sourceRef="outerFork" targetRef="e"/>
                    <userTask id="b" name="B"/>
                    <sequenceFlow id="f5" sourceRef="b" targetRef="innerFork"/>
                    <parallelGateway id="innerFork" name="Inner"/>
                    <sequenceFlow id="f6" sourceRef="innerFork" targetRef="c"/>
                    <sequenceFlow id="f7" sourceRef="innerFork" targetRef="d"/>
                    <userTask id="c" name="C"/>
                    <userTask id="d" name="D"/>
                    <sequenceFlow id="f8" sourceRef="c" targetRef="innerJoin"/>
                    <sequenceFlow id="f9" sourceRef="d" targetRef="innerJoin"/>
                    <parallelGateway id="innerJoin"/>
                    <sequenceFlow id="f10" sourceRef="innerJoin" targetRef="outerJoin"/>
                    <userTask id="e" name="E"/>
                    <sequenceFlow id="f11" sourceRef="e" targetRef="outerJoin"/>
                    <parallelGateway id="outerJoin"/>
                    <sequenceFlow id="f12" sourceRef="outerJoin" targetRef="f"/>
                    <userTask id="f" name="F"/>
                    <sequenceFlow id="f13" sourceRef="f" targetRef="end"/>
                    <endEvent id="end"/>
                  </process>
                </definitions>
                """.getBytes(StandardCharsets.UTF_8)));

        assertThat(targets.entryOf(targets.node("c")).getId()).isEqualTo("outerFork");
        assertThat(targets.entryOf(targets.node("b")).getId()).isEqualTo("outerFork");
        assertThat(ids(targets.allowed("f", Set.of("a", "b", "c", "d", "e")))).containsExactly("a", "outerFork");
        assertThat(ids(targets.allowed("c", Set.of("a", "b", "e")))).as("b and e run inside the same section").containsExactly("a");
    }

    private static Process parse(byte[] bpmn) {
        InputStreamProvider source = () -> new ByteArrayInputStream(bpmn);
        return new BpmnXMLConverter().convertToBpmnModel(source, false, false).getMainProcess();
    }

    private static List<String> ids(List<ReturnTarget> targets) {
        return targets.stream().map(ReturnTarget::id).toList();
    }
}
