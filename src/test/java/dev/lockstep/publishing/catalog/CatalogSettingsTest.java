package dev.lockstep.publishing.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.platform.StartupCheckFailure;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The fault-injection knob {@code lockstep.catalog.answer-delay}: off by default, a negative value stops the startup.
 * The credential: required unless on the embedded default, which generates one; only the exact bearer header admits.
 */
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

    @Test
    void outsideTheEmbeddedDefaultAMissingTokenNamesItsSetting() {
        for (String unset : new String[] {null, "", "  "}) {
            assertThatThrownBy(() -> CatalogCredential.of(unset, false)).isInstanceOf(StartupCheckFailure.class)
                    .satisfies(e -> assertThat(((StartupCheckFailure) e).setting()).isEqualTo("lockstep.catalog.token"))
                    .hasMessageContaining("Fix: set lockstep.catalog.token");
        }
    }

    @Test
    void theEmbeddedDefaultGeneratesADifferentLongTokenEachStart() {
        CatalogCredential one = CatalogCredential.of(null, true);
        CatalogCredential other = CatalogCredential.of(null, true);

        assertThat(one.token()).hasSizeGreaterThanOrEqualTo(40).isNotEqualTo(other.token());
        assertThat(one.admits("Bearer " + one.token())).isTrue();
        assertThat(one.admits("Bearer " + other.token())).isFalse();
        assertThat(one.toString()).doesNotContain(one.token());
    }

    @Test
    void onlyTheExactBearerHeaderAdmits() {
        CatalogCredential credential = CatalogCredential.of("s3cret", false);

        assertThat(credential.admits("Bearer s3cret")).isTrue();
        for (String wrong : new String[] {null, "", "Bearer ", "Bearer s3cre", "Bearer s3cret2", "bearer s3cret", "s3cret"}) {
            assertThat(credential.admits(wrong)).as(wrong).isFalse();
        }
    }
}
