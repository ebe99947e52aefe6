package dev.lockstep.transactions.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.activiti.engine.impl.history.HistoryLevel;
import org.activiti.engine.impl.persistence.StrongUuidGenerator;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The engine settings bind as Boot binds them at startup; a wrong value names the setting. */
class EngineSettingsTest {

    @Test
    void defaultsAreUuidIdsAndAuditHistory() {
        EngineSettings settings = bind(Map.of());
        assertThat(settings.idGenerator().create()).isInstanceOf(StrongUuidGenerator.class);
        assertThat(settings.historyLevel().level).isEqualTo(HistoryLevel.AUDIT);
    }

    @Test
    void theEnginesOwnGeneratorAndFullHistoryCanBeChosen() {
        EngineSettings settings = bind(Map.of("lockstep.engine.id-generator", "db", "lockstep.engine.history-level", "full"));
        assertThat(settings.idGenerator().create()).as("the engine builds its DbIdGenerator when none is set").isNull();
        assertThat(settings.historyLevel().level).isEqualTo(HistoryLevel.FULL);
    }

    @Test
    void aHistoryLevelWithoutTaskHistoryIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> bind(Map.of("lockstep.engine.history-level", "activity")))
                .isInstanceOf(BindException.class).hasMessageContaining("lockstep.engine.history-level");
        assertThatThrownBy(() -> bind(Map.of("lockstep.engine.id-generator", "snowflake")))
                .isInstanceOf(BindException.class).hasMessageContaining("lockstep.engine.id-generator");
    }

    private static EngineSettings bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate("lockstep.engine", EngineSettings.class);
    }
}
