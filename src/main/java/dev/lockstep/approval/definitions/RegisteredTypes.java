package dev.lockstep.approval.definitions;

import com.networknt.schema.Error;
import dev.lockstep.platform.web.ApiException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * What the application use cases need of the registry: a type's fields checked against its schema at creation,
 * and at submission the ACTIVE version a new run starts on, with the routable fields it may branch on.
 */
@Component
public class RegisteredTypes {

    private final DefinitionRegistry registry;

    RegisteredTypes(DefinitionRegistry registry) {
        this.registry = registry;
    }

    /**
     * Refuses an unknown type (422 UNKNOWN_BUSINESS_TYPE), a type that would publish (the catalog mapping of a
     * registered type is not built yet: 422 PUBLISHING_NOT_SUPPORTED) and fields its schema does not accept
     * (422 FIELDS_INVALID with the failing JSON pointer).
     */
    public void checkFields(String typeKey, JsonNode fields) {
        BusinessTypeView type = type(typeKey);
        if (type.publishes()) {
            throw new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "PUBLISHING_NOT_SUPPORTED", "Business type " + typeKey
                    + " publishes to the catalog; applications of a registered type that publishes are not supported yet.");
        }
        if (fields == null || !fields.isObject()) {
            throw new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "FIELDS_INVALID", "An application of type " + typeKey
                    + " needs its fields as a JSON object.").with("pointer", "/fields");
        }
        List<Error> errors = BusinessTypeSchemas.REGISTRY.getSchema(type.schema()).validate(fields);
        if (!errors.isEmpty()) {
            Error first = errors.get(0);
            String pointer = BusinessTypeSchemas.pointer(first.getInstanceLocation())
                    + (first.getProperty() == null ? "" : "/" + first.getProperty().replace("~", "~0").replace("/", "~1"));
            throw new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "FIELDS_INVALID", "The fields do not match the schema of "
                    + typeKey + ": " + first.getMessage()).with("pointer", pointer);
        }
    }

    /** The ACTIVE version of {@code typeKey}, or 409 NO_ACTIVE_DEFINITION: its runs start on no other. */
    public ActiveDefinition active(String typeKey, JsonNode fields) {
        BusinessTypeView type = type(typeKey);
        DefinitionRegistry.ActiveVersion active = registry.active(typeKey).orElseThrow(() -> ApiException.conflict(
                "NO_ACTIVE_DEFINITION", "Business type " + typeKey
                        + " has no ACTIVE definition version; an administrator must deploy one and another approve it."));
        Map<String, Object> routable = new LinkedHashMap<>();
        for (String field : type.routableFields()) {
            JsonNode value = fields.get(field);
            // an absent field is still set, to null: the engine resolves a name no variable holds against its beans
            routable.put(field, value == null || value.isNull() ? null
                    : value.isNumber() ? value.numberValue() : value.isBoolean() ? value.asBoolean() : value.asString());
        }
        return new ActiveDefinition(active.version(), active.engineDefinitionId(), routable);
    }

    private BusinessTypeView type(String typeKey) {
        return registry.type(typeKey).orElseThrow(() -> new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "UNKNOWN_BUSINESS_TYPE",
                "There is no business type " + typeKey + "."));
    }

    /** {@code routableFields}: the type's routable fields as process variables, by name. */
    public record ActiveDefinition(int version, String engineDefinitionId, Map<String, Object> routableFields) {
    }
}
