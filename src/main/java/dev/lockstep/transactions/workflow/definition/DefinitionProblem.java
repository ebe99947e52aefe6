package dev.lockstep.transactions.workflow.definition;

import dev.lockstep.platform.AreaApi;

/**
 * One reason an uploaded definition is refused: the BPMN element it concerns ({@code null} for the
 * document as a whole), a stable code an API client can act on, and a sentence for a person.
 */
@AreaApi
public record DefinitionProblem(String elementId, String code, String detail) {
}
