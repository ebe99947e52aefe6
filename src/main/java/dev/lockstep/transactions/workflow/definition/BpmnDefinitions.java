package dev.lockstep.transactions.workflow.definition;

import dev.lockstep.platform.AreaApi;
import java.util.ArrayList;
import java.util.List;
import org.activiti.bpmn.model.Process;
import org.springframework.stereotype.Component;

/**
 * Checks an uploaded BPMN 2.0 definition against {@link DefinitionRules} before anything of it runs,
 * and turns an accepted one into the XML the engine deploys under {@code processKey}.
 * The codes of the problems are listed in docs/approvals.md, "Definitions: what an uploaded BPMN may contain".
 */
@Component
@AreaApi
public class BpmnDefinitions {

    public DefinitionCheck check(byte[] xml, DefinitionRules rules, String processKey) {
        BpmnDocument.Read read = BpmnDocument.read(xml, rules.maxBytes());
        if (!read.problems().isEmpty()) {
            return new DefinitionCheck.Refused(read.problems());
        }
        List<Process> executable = read.model().getProcesses().stream().filter(Process::isExecutable).toList();
        if (executable.size() != 1 || read.model().getProcesses().size() != 1) {
            return new DefinitionCheck.Refused(List.of(new DefinitionProblem(null, "ONE_PROCESS_REQUIRED",
                    "a definition holds exactly one process, marked isExecutable=\"true\"; this one has "
                            + read.model().getProcesses().size() + " of which " + executable.size() + " executable")));
        }
        Process process = executable.get(0);
        List<DefinitionProblem> problems = new ArrayList<>(FlowRules.check(process, rules, read.marks()));
        if (!problems.isEmpty()) {
            return new DefinitionCheck.Refused(List.copyOf(problems));
        }
        List<String> userTaskIds = DeployableBpmn.userTaskIds(process);
        CountersignPolicy countersign = userTaskIds.stream().filter(read.marks()::isCountersign).findFirst()
                .map(read.marks()::countersignPolicy).orElse(null);
        byte[] deployable = DeployableBpmn.build(read.model(), process, read.marks(), processKey);
        return new DefinitionCheck.Accepted(processKey, process.getName(), deployable, userTaskIds, countersign);
    }
}
