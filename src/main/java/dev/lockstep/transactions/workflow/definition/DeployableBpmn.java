package dev.lockstep.transactions.workflow.definition;

import java.util.ArrayList;
import java.util.List;
import org.activiti.bpmn.converter.BpmnXMLConverter;
import org.activiti.bpmn.model.ActivitiListener;
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
 * countersign step gets its signers' multi-instance loop, its tally listener and a fresh tally on every way in.
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
