package dev.lockstep.transactions.workflow.definition;

import java.util.ArrayList;
import java.util.List;
import org.activiti.bpmn.converter.BpmnXMLConverter;
import org.activiti.bpmn.model.ActivitiListener;
import org.activiti.bpmn.model.BoundaryEvent;
import org.activiti.bpmn.model.BpmnModel;
import org.activiti.bpmn.model.EndEvent;
import org.activiti.bpmn.model.GraphicInfo;
import org.activiti.bpmn.model.ImplementationType;
import org.activiti.bpmn.model.MultiInstanceLoopCharacteristics;
import org.activiti.bpmn.model.Process;
import org.activiti.bpmn.model.SequenceFlow;
import org.activiti.bpmn.model.UserTask;

/**
 * The checked model as the engine deploys it: the product's own constructs added, the same ones the built-in
 * processes carry (processes/countersign-approval.bpmn20.xml): each end event records its outcome, and the
 * countersign step gets its signers' multi-instance loop, its tally listener and a fresh tally on every way in,
 * and a deadline's flow the built-in final deadline's action (processes/application-approval.bpmn20.xml).
 * These are the only expressions of the deployed XML besides the checked conditions.
 */
final class DeployableBpmn {

    private DeployableBpmn() {
    }

    static byte[] build(BpmnModel model, Process process, ElementMarks marks, String processKey) {
        String uploadedId = process.getId();
        process.setId(processKey);
        process.getFlowElements().forEach(element -> {
            if (element instanceof EndEvent end) {
                end.getExecutionListeners().add(listener("start", "${execution.setVariable('outcome', '" + marks.outcome(end.getId()) + "')}"));
            } else if (element instanceof UserTask task && marks.isCountersign(task.getId())) {
                countersign(task);
            } else if (element instanceof BoundaryEvent timer) {
                deadline(timer, marks.outcome(timer.getOutgoingFlows().get(0).getTargetRef()));
            }
        });
        // the diagram's plane names the process: keep it pointing at the renamed one
        GraphicInfo plane = model.getLocationMap().remove(uploadedId);
        if (plane != null) {
            model.getLocationMap().put(processKey, plane);
        }
        return new BpmnXMLConverter().convertToXML(model);
    }

    private static void countersign(UserTask task) {
        task.setAssignee("${signer}");
        task.getTaskListeners().add(listener("complete", "${countersign.count(execution, decision)}"));
        MultiInstanceLoopCharacteristics loop = new MultiInstanceLoopCharacteristics();
        loop.setSequential(false);
        loop.setInputDataItem("${signers}");
        loop.setElementVariable("signer");
        loop.setCompletionCondition("${countersign.decided(execution)}");
        task.setLoopCharacteristics(loop);
        for (SequenceFlow into : task.getIncomingFlows()) {
            into.getExecutionListeners().add(listener("take", "${countersign.open(execution)}"));
        }
    }

    /**
     * The built-in final deadline's action (bean {@code deadlines}, as processes/application-approval.bpmn20.xml calls it)
     * on the timer's one flow, which the check let lead only to a REJECTED or RETURNED end: inside the timer job's
     * transaction it holds the application and ends it with that outcome, with its trail entry and notification.
     */
    private static void deadline(BoundaryEvent timer, String outcome) {
        String action = "REJECTED".equals(outcome) ? "reject" : "returnToApplicant";
        timer.getOutgoingFlows().get(0).getExecutionListeners().add(listener("take",
                "${deadlines." + action + "(execution, " + elString(timer.getAttachedToRefId()) + ")}"));
    }

    /** An EL string literal of {@code text}: an id is not checked to be an NCName, and must never end the literal. */
    static String elString(String text) {
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    private static ActivitiListener listener(String event, String expression) {
        ActivitiListener listener = new ActivitiListener();
        listener.setEvent(event);
        listener.setImplementationType(ImplementationType.IMPLEMENTATION_TYPE_EXPRESSION);
        listener.setImplementation(expression);
        return listener;
    }

    static List<String> userTaskIds(Process process) {
        List<String> ids = new ArrayList<>();
        process.getFlowElements().stream().filter(UserTask.class::isInstance).forEach(task -> ids.add(task.getId()));
        return ids;
    }
}
