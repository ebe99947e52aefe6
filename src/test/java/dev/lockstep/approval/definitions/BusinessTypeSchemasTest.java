package dev.lockstep.approval.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.lockstep.platform.web.ApiException;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The schema checks of a business type, without the service around them. */
class BusinessTypeSchemasTest {

    final JsonMapper json = JsonMapper.builder().build();

    @Test
    void aValidSchemaWithScalarRoutableFieldsPasses() {
        assertThatNoException().isThrownBy(() -> BusinessTypeSchemas.check(json.readTree(DefinitionRegistryTest.SCHEMA),
                List.of("amount", "urgent")));
    }

    @Test
    void anInvalidSchemaIsNamedByTheJsonPointerOfItsBadMember() {
        ApiException refused = catchThrowableOfType(ApiException.class, () -> BusinessTypeSchemas.check(
                json.readTree("{\"properties\": {\"a\": {\"type\": \"strin\"}}}"), List.of()));

        assertThat(refused.code()).isEqualTo("SCHEMA_INVALID");
        assertThat(refused.properties()).containsEntry("pointer", "/properties/a/type");
    }

    @Test
    void aRoutableFieldMustBeATopLevelScalarProperty() {
        ApiException unknown = catchThrowableOfType(ApiException.class, () -> BusinessTypeSchemas.check(
                json.readTree(DefinitionRegistryTest.SCHEMA), List.of("payee")));
        ApiException notScalar = catchThrowableOfType(ApiException.class, () -> BusinessTypeSchemas.check(
                json.readTree(DefinitionRegistryTest.SCHEMA), List.of("tags")));

        assertThat(unknown.code()).isEqualTo("ROUTABLE_FIELD_UNKNOWN");
        assertThat(notScalar.code()).isEqualTo("ROUTABLE_FIELD_NOT_SCALAR");
    }

    @Test
    void aRoutableFieldMayNotTakeANameTheProcessesUseThemselves() {
        for (String name : List.of("decision", "countersignResult", "signers", "countersign", "deadlines")) {
            ApiException reserved = catchThrowableOfType(ApiException.class, () -> BusinessTypeSchemas.check(json.readTree(
                    "{\"type\": \"object\", \"properties\": {\"" + name + "\": {\"type\": \"string\"}}}"), List.of(name)));
            assertThat(reserved).as(name).isNotNull();
            assertThat(reserved.code()).isEqualTo("ROUTABLE_FIELD_RESERVED");
        }
    }
}
