package dev.lockstep.approval.definitions;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * {@code schema}: the JSON Schema of the type's fields; {@code routableFields}: the top-level scalar fields a flow's
 * conditions may compare; {@code assetMapping}: for a type that publishes, how its fields map to the catalog asset.
 */
record RegisterBusinessTypeRequest(
        @NotBlank @Pattern(regexp = "^[A-Z][A-Z0-9_]{1,39}$") String key,
        @NotBlank @Size(max = 200) String name,
        @NotNull JsonNode schema,
        List<@NotBlank String> routableFields,
        @NotNull Boolean publishes,
        JsonNode assetMapping) {
}
