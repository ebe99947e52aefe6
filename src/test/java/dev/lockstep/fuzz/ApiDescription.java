package dev.lockstep.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** The operations of the live OpenAPI description (/v3/api-docs): what the fuzz test may call, and with what. */
record ApiDescription(List<Operation> operations, JsonNode schemas) {

    record Parameter(String name, String in, boolean required, JsonNode schema) {
    }

    /** One method on one path; {@code body} is the JSON schema of the request body, or null. */
    record Operation(String method, String path, List<Parameter> parameters, JsonNode body) {

        String key() {
            return method + " " + path;
        }
    }

    static ApiDescription of(JsonNode document) {
        List<Operation> operations = new ArrayList<>();
        for (Map.Entry<String, JsonNode> path : document.get("paths").properties()) {
            for (Map.Entry<String, JsonNode> method : path.getValue().properties()) {
                JsonNode operation = method.getValue();
                List<Parameter> parameters = new ArrayList<>();
                for (JsonNode parameter : operation.path("parameters").values()) {
                    parameters.add(new Parameter(parameter.get("name").asString(), parameter.get("in").asString(),
                            parameter.path("required").asBoolean(false), parameter.path("schema")));
                }
                JsonNode body = operation.path("requestBody").path("content").path("application/json").path("schema");
                operations.add(new Operation(method.getKey().toUpperCase(), path.getKey(), List.copyOf(parameters),
                        body.isMissingNode() ? null : body));
            }
        }
        return new ApiDescription(List.copyOf(operations), document.path("components").path("schemas"));
    }

    /** The schema itself, or the component a {@code $ref} points to. */
    JsonNode resolve(JsonNode schema) {
        JsonNode ref = schema.path("$ref");
        return ref.isMissingNode() ? schema : schemas.path(ref.asString().substring(ref.asString().lastIndexOf('/') + 1));
    }
}
