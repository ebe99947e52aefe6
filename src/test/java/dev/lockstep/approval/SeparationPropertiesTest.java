package dev.lockstep.approval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** lockstep.approval.separation.one-step-per-person as an operator sets it (docs/approvals.md). */
class SeparationPropertiesTest {

    @Test
    void onByDefaultForMediumAndHighOnly() {
        SeparationProperties properties = bind(Map.of());

        assertThat(properties.oneStepPerPerson(RiskLevel.LOW)).isFalse();
        assertThat(properties.oneStepPerPerson(RiskLevel.MEDIUM)).isTrue();
        assertThat(properties.oneStepPerPerson(RiskLevel.HIGH)).isTrue();
    }

    @Test
    void anEmptyValueTurnsTheRuleOffAndAListChoosesTheLevels() {
        assertThat(bind(Map.of("lockstep.approval.separation.one-step-per-person", "")).oneStepPerPerson()).isEmpty();
        assertThat(bind(Map.of("lockstep.approval.separation.one-step-per-person", "LOW,MEDIUM,HIGH")).oneStepPerPerson())
                .containsExactlyInAnyOrder(RiskLevel.values());
    }

    private static SeparationProperties bind(Map<String, String> settings) {
        return new Binder(new MapConfigurationPropertySource(settings))
                .bindOrCreate("lockstep.approval.separation", SeparationProperties.class);
    }
}
