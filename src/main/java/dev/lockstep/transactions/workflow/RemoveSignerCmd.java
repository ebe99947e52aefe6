package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.web.ApiException;
import java.util.List;
import org.activiti.engine.ActivitiException;
import org.activiti.engine.impl.interceptor.Command;
import org.activiti.engine.impl.interceptor.CommandContext;
import org.activiti.engine.impl.persistence.entity.ExecutionEntity;
import org.activiti.engine.impl.persistence.entity.TaskEntity;

/**
 * 减签: cancels the instance of the running countersign step that one open signer task belongs to and
 * lowers the instance counts. The task is named, not the signer: whoever holds it now (after a transfer,
 * not the signer the instance was created for) is the signer being removed; the instance's {@code signer}
 * variable keeps the original signer, whose name leaves the signer list the policy counts.
 *
 * <p>A removal never decides the step (issue 29, item 4). Before changing anything the command reads the
 * step as the engine holds it now, inside the caller's transaction and under the application's row lock
 * that every action on the application takes, and refuses (409) a removal that would leave no
 * outstanding signer ({@code LAST_SIGNER}, {@code LAST_OUTSTANDING_SIGNER}), that would take the signer
 * list below the policy's minimum number of distinct deciders ({@code BELOW_MINIMUM_DECIDERS}, see
 * {@link CountersignRule#minimumDeciders}), or after which the policy's completion condition would already
 * hold without a new decision ({@code REMOVAL_WOULD_DECIDE}). So the step only ever ends by a decision.
 */
class RemoveSignerCmd implements Command<Void> {

    private final String processInstanceId;
    private final String taskId;
    private final String reason;
    private final CountersignRule rule;
    private final int minimumDeciders;

    RemoveSignerCmd(String processInstanceId, String taskId, String reason, CountersignRule rule, int minimumDeciders) {
        this.processInstanceId = processInstanceId;
        this.taskId = taskId;
        this.reason = reason;
        this.rule = rule;
        this.minimumDeciders = minimumDeciders;
    }

    @Override
    public Void execute(CommandContext context) {
        CountersignStep step = CountersignStep.running(context, processInstanceId);
        TaskEntity task = context.getTaskEntityManager().findById(taskId);
        ExecutionEntity instance = step.children().stream()
                .filter(child -> child.isActive() && task != null && child.getId().equals(task.getExecutionId()))
                .findFirst()
                .orElseThrow(() -> new ActivitiException("task " + taskId + " is no open task of the countersign of " + processInstanceId));
        String originalSigner = (String) instance.getVariableLocal(CountersignStep.SIGNER);
        refuseIfItDecides(step, originalSigner);
        context.getExecutionEntityManager().cancelExecutionAndRelatedData(instance, reason);
        step.changeInstances(-1);
        step.changeSigners(signers -> signers.remove(originalSigner));
        return null;
    }

    private void refuseIfItDecides(CountersignStep step, String originalSigner) {
        List<String> signers = step.signers();
        if (signers.size() <= 1) {
            throw ApiException.conflict("LAST_SIGNER", "The last signer cannot be removed; terminate or withdraw instead.");
        }
        if (step.loopVariable(CountersignStep.NR_OF_ACTIVE_INSTANCES) <= 1) {
            throw ApiException.conflict("LAST_OUTSTANDING_SIGNER", "The last outstanding signer cannot be removed: that would"
                    + " decide the countersign without a decision. The signer decides, or an administrator terminates.");
        }
        int left = signers.contains(originalSigner) ? signers.size() - 1 : signers.size();
        if (left < minimumDeciders) {
            throw ApiException.conflict("BELOW_MINIMUM_DECIDERS", "The countersign's policy needs at least " + minimumDeciders
                    + " distinct deciders; removing a signer would leave " + left + ". Add the replacement signer first.")
                    .with("minimumDeciders", minimumDeciders);
        }
        if (rule.decidedWithoutOneSigner(step.root)) {
            throw ApiException.conflict("REMOVAL_WOULD_DECIDE", "Removing this signer would decide the countersign by its"
                    + " policy without a new decision; the outstanding signers decide it.");
        }
    }
}
