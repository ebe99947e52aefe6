package dev.lockstep.approval.definitions;

import java.time.Instant;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** A registered business type, as the API shows it. */
record BusinessTypeView(String key, String name, JsonNode schema, List<String> routableFields, boolean publishes,
        JsonNode assetMapping, boolean builtIn, String registeredBy, Instant registeredAt) {
}
