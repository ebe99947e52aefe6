package dev.lockstep.transactions.workflow.definition;

import dev.lockstep.platform.AreaApi;
import java.util.List;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The declarative form of a definition (docs/approvals.md, "Declarative flows"): ordered steps written as JSON or
 * YAML, compiled to BPMN 2.0 in the dialect {@link BpmnDefinitions#check} accepts. Only the document's own
 * structure is checked here; groups, conditions, deadlines and return targets are checked on the compiled BPMN by
 * that same check, so a declarative flow and an uploaded BPMN are held to one set of rules.
 */
@Component
@AreaApi
public class DeclarativeFlows {

    public enum Format {
        JSON(JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build()),
        YAML(YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());

        private final ObjectMapper mapper;

        Format(ObjectMapper mapper) {
            this.mapper = mapper;
        }
    }

    /** The document compiled to BPMN XML (still to be checked), or refused for its structure. */
    public sealed interface Compilation {

        record Compiled(byte[] bpmnXml) implements Compilation {
        }

        /** Each problem's {@code elementId} is the JSON pointer of the member it concerns. */
        record Refused(List<DefinitionProblem> problems) implements Compilation {
        }
    }

    public Compilation compile(byte[] source, Format format) {
        JsonNode document;
        try {
            document = format.mapper.readTree(source);
        } catch (JacksonException e) {
            return new Compilation.Refused(List.of(new DefinitionProblem(null, "DECLARATIVE_MALFORMED",
                    "the document is not well-formed " + format + location(e))));
        }
        return FlowCompiler.compile(document);
    }

    private static String location(JacksonException e) {
        return e.getLocation() != null && e.getLocation().getLineNr() > 0
                ? " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")" : "";
    }
}
