package dev.lockstep.approval.definitions;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.path.NodePath;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.workflow.ApprovalProcess;
import java.util.List;
import java.util.Set;
import org.springframework.http.HttpStatus;
import tools.jackson.databind.JsonNode;

/**
 * Checks a business type's field schema before it is stored: it must be a valid JSON Schema (2020-12 unless it
 * names another draft), and every routable field a top-level property of scalar type, since a flow's condition
 * compares it with a constant.
 */
final class BusinessTypeSchemas {

    private static final Set<String> SCALAR_TYPES = Set.of("string", "number", "integer", "boolean");
    /** The one asset attribute a publishing type maps: the catalog knows an asset by its id. */
    static final String ASSET_ID = "assetId";
    static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final Schema META_SCHEMA = REGISTRY.getSchema(SchemaLocation.of("https://json-schema.org/draft/2020-12/schema"));

    private BusinessTypeSchemas() {
    }

    static void check(JsonNode schema, List<String> routableFields) {
        if (schema == null || !schema.isObject()) {
            throw unprocessable("SCHEMA_INVALID", "The schema must be a JSON object.").with("pointer", "");
        }
        List<Error> errors = META_SCHEMA.validate(schema);
        if (!errors.isEmpty()) {
            Error first = errors.get(0);
            throw unprocessable("SCHEMA_INVALID", "The schema is not a valid JSON Schema: " + first.getMessage())
                    .with("pointer", pointer(first.getInstanceLocation()));
        }
        JsonNode properties = schema.path("properties");
        for (String field : routableFields) {
            if (ApprovalProcess.RESERVED_NAMES.contains(field)) {
                throw unprocessable("ROUTABLE_FIELD_RESERVED", "Routable field '" + field + "' has a name the product's"
                        + " processes use themselves; rename the field. Reserved: " + ApprovalProcess.RESERVED_NAMES.stream().sorted().toList())
                        .with("field", field);
            }
            JsonNode property = properties.get(field);
            if (property == null) {
                throw unprocessable("ROUTABLE_FIELD_UNKNOWN", "Routable field '" + field
                        + "' is not a top-level property of the schema.").with("field", field);
            }
            JsonNode type = property.get("type");
            if (type == null || !type.isString() || !SCALAR_TYPES.contains(type.asString())) {
                throw unprocessable("ROUTABLE_FIELD_NOT_SCALAR", "Routable field '" + field
                        + "' must have one of the types " + SCALAR_TYPES + "; a flow compares it with a constant.")
                        .with("field", field);
            }
        }
    }

    /**
     * A type that publishes names, in {@code assetMapping}, the field that holds the catalog asset's id:
     * {@code {"assetId": "<field>"}}, a required top-level integer property. A type that does not publish maps nothing.
     */
    static void checkAssetMapping(JsonNode schema, boolean publishes, JsonNode assetMapping) {
        boolean mapped = assetMapping != null && !assetMapping.isNull();
        if (!publishes) {
            if (mapped) {
                throw unprocessable("ASSET_MAPPING_INVALID", "A type that does not publish maps no fields to an asset;"
                        + " leave assetMapping out or set publishes to true.").with("pointer", "/assetMapping");
            }
            return;
        }
        String field = mapped && assetMapping.isObject() && assetMapping.size() == 1 && assetMapping.path(ASSET_ID).isString()
                ? assetMapping.get(ASSET_ID).asString() : null;
        JsonNode property = field == null ? null : schema.path("properties").get(field);
        boolean required = field != null && schema.path("required").isArray()
                && schema.get("required").values().stream().anyMatch(name -> field.equals(name.asString()));
        if (property == null || !"integer".equals(property.path("type").asString()) || !required) {
            throw unprocessable("ASSET_MAPPING_INVALID", "A type that publishes maps the catalog asset's id to one of its fields:"
                    + " assetMapping {\"assetId\": \"<field>\"}, the field a required top-level property of type integer.")
                    .with("pointer", "/assetMapping");
        }
    }

    /** The RFC 6901 pointer of the member an error concerns (of the schema, or of the fields checked against it). */
    static String pointer(NodePath path) {
        StringBuilder pointer = new StringBuilder();
        for (int i = 0; i < path.getNameCount(); i++) {
            pointer.append('/').append(path.getName(i).replace("~", "~0").replace("/", "~1"));
        }
        return pointer.toString();
    }

    private static ApiException unprocessable(String code, String detail) {
        return new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, code, detail);
    }
}
