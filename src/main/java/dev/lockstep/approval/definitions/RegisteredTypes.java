package dev.lockstep.approval.definitions;

import com.networknt.schema.Error;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.workflow.Countersign;
import dev.lockstep.transactions.workflow.definition.CountersignPolicy;
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
     * Refuses an unknown type (422 UNKNOWN_BUSINESS_TYPE) and fields its schema does not accept (422 FIELDS_INVALID with
     * the failing JSON pointer, also for a mapped asset id below 1). Answers the catalog asset's id for a type that
     * publishes, from the field its asset mapping names; null for a type that does not.
     */
    public Long checkFields(String typeKey, JsonNode fields) {
        BusinessTypeView type = type(typeKey);
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
        return type.publishes() ? assetId(type, fields) : null;
    }

    /** The asset id a publishing type's mapping names (registration made it a required integer field). */
    private static long assetId(BusinessTypeView type, JsonNode fields) {
        String field = type.assetMapping() == null ? null : type.assetMapping().path(BusinessTypeSchemas.ASSET_ID).asString(null);
        if (field == null) {
            // a type registered before publishing types were built may have no usable mapping
            throw new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "ASSET_MAPPING_INVALID", "Business type " + type.key()
                    + " publishes but maps no field to the asset id; register a type with assetMapping {\"assetId\": \"<field>\"}.");
        }
        JsonNode value = fields.get(field);
        if (value == null || !value.canConvertToExactIntegral() || !value.canConvertToLong() || value.asLong() < 1) {
            throw new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "FIELDS_INVALID", "Field '" + field + "' is the catalog asset's id"
                    + " of type " + type.key() + ": a whole number of at least 1.").with("pointer", "/" + field);
        }
        return value.asLong();
    }

    /**
     * At creation, against the ACTIVE version if there is one: signers are named exactly when it has a countersign
     * step (422 COUNTERSIGN_SIGNERS_REQUIRED or COUNTERSIGN_NOT_IN_DEFINITION).
     */
    public void checkSigners(String typeKey, List<String> signers) {
        registry.active(typeKey).ifPresent(active -> countersign(typeKey, active.version(), active.countersign(), signers,
                HttpStatus.UNPROCESSABLE_CONTENT));
    }

    /**
     * At submission: the countersign the run starts with, the application's signers under the version's policy, null
     * when the version has no countersign step; 409 when the signers named at creation do not fit the version it
     * starts on (another version was activated in between).
     */
    public Countersign countersign(String typeKey, ActiveDefinition definition, List<String> signers) {
        return countersign(typeKey, definition.version(), definition.countersign(), signers, HttpStatus.CONFLICT);
    }

    private static Countersign countersign(String typeKey, int version, CountersignPolicy policy, List<String> signers,
            HttpStatus status) {
        if (policy == null && !signers.isEmpty()) {
            throw new ApiException(status, "COUNTERSIGN_NOT_IN_DEFINITION", typeKey + " v" + version
                    + " has no countersign step; an application of it names no signers.");
        }
        if (policy != null && signers.isEmpty()) {
            throw new ApiException(status, "COUNTERSIGN_SIGNERS_REQUIRED", typeKey + " v" + version + " has a countersign step ("
                    + policy.policy() + "); name its signers in \"signers\".");
        }
        return policy == null ? null : new Countersign(signers, policy.policy(), policy.ratio(), false);
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
        return new ActiveDefinition(active.version(), active.engineDefinitionId(), routable, active.countersign());
    }

    private BusinessTypeView type(String typeKey) {
        return registry.type(typeKey).orElseThrow(() -> new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "UNKNOWN_BUSINESS_TYPE",
                "There is no business type " + typeKey + "."));
    }

    /**
     * {@code routableFields}: the type's routable fields as process variables, by name; {@code countersign}: the policy
     * of the version's countersign step, null without one.
     */
    public record ActiveDefinition(int version, String engineDefinitionId, Map<String, Object> routableFields,
            CountersignPolicy countersign) {
    }
}
