package dev.lockstep.approval.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.approval.definitions.DefinitionsConfiguration.DefinitionLimits;
import dev.lockstep.platform.web.ApiException;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Groups are not a startup condition (deployments that upload nothing start as before); an upload without them is refused. */
class DefinitionLimitsTest {

    @Test
    void withoutConfiguredGroupsAnUploadIsRefusedNamingTheSetting() {
        DefinitionLimits none = new DefinitionLimits(Set.of(), 1024 * 1024);

        assertThatThrownBy(() -> none.rulesFor(Set.of("amount"))).isInstanceOfSatisfying(ApiException.class, refusal -> {
            assertThat(refusal.code()).isEqualTo("DEFINITION_GROUPS_NOT_CONFIGURED");
            assertThat(refusal.getMessage()).contains("lockstep.definitions.groups");
        });
    }

    @Test
    void configuredGroupsAreWhatAnUploadIsCheckedAgainst() {
        DefinitionLimits limits = new DefinitionLimits(Set.of("treasury"), 4096);

        assertThat(limits.rulesFor(Set.of("amount")).knownGroups()).containsExactly("treasury");
    }
}
