package dev.lockstep.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The fault-injection knob {@code lockstep.catalog.answer-delay}: off by default, a negative value stops the startup. */
class CatalogSettingsTest {

    private static CatalogProperties withAnswerDelay(Duration answerDelay) {
        return new CatalogProperties(true, null, "asset-catalog", null, answerDelay);
    }

    @Test
    void noDelayAndAPositiveDelayPass() {
        assertThatNoException().isThrownBy(() -> withAnswerDelay(Duration.ZERO).verify());
        assertThatNoException().isThrownBy(() -> withAnswerDelay(Duration.ofSeconds(4)).verify());
    }

    @Test
    void aNegativeDelayNamesItsSetting() {
        assertThatThrownBy(() -> withAnswerDelay(Duration.ofSeconds(-1)).verify()).isInstanceOf(StartupCheckFailure.class)
                .satisfies(e -> assertThat(((StartupCheckFailure) e).setting()).isEqualTo("lockstep.catalog.answer-delay"))
                .hasMessageContaining("Fix:");
    }
}
