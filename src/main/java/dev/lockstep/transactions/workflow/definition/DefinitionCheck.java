package dev.lockstep.transactions.workflow.definition;

import dev.lockstep.platform.AreaApi;
import java.util.List;

/** The answer to an uploaded definition: refused with its problems, or accepted as the BPMN the engine will run. */
@AreaApi
public sealed interface DefinitionCheck {

    /**
     * {@code deployableXml}: the definition as the product deploys it, re-serialised from the checked model
     * with the product's own constructs added and its process id set to {@code processKey};
     * {@code userTaskIds}: its steps, in document order; {@code countersign}: its countersign step's policy, null without one.
     */
    record Accepted(String processKey, String name, byte[] deployableXml, List<String> userTaskIds, CountersignPolicy countersign)
            implements DefinitionCheck {
    }

    record Refused(List<DefinitionProblem> problems) implements DefinitionCheck {
    }
}
