package dev.lockstep.transactions.workflow;

import org.activiti.engine.impl.cfg.IdGenerator;
import org.activiti.engine.impl.history.HistoryLevel;
import org.activiti.engine.impl.persistence.StrongUuidGenerator;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Engine choices an operator may change ({@code lockstep.engine.*}, docs/operations.md). An unknown
 * value fails binding, and startup stops with a message naming the setting.
 */
@ConfigurationProperties("lockstep.engine")
public record EngineSettings(@DefaultValue("uuid") IdGeneratorChoice idGenerator, @DefaultValue("audit") History historyLevel) {

    public enum IdGeneratorChoice {
        /** Time-based UUIDs made in memory: no database round trip, nothing to coordinate between nodes. */
        UUID,
        /**
         * The engine's numeric ids, handed out in blocks of 2,500 from ACT_GE_PROPERTY by a
         * REQUIRES_NEW transaction: under JTA that suspends the caller's global transaction and
         * commits a separate one on the workflow database once per block.
         */
        DB;

        /** Null for DB: the engine then builds its DbIdGenerator itself, wired to its command executor. */
        IdGenerator create() {
            return this == UUID ? new StrongUuidGenerator() : null;
        }
    }

    /** Only levels that keep historic task instances: the todo projection reads a task's times from history. */
    public enum History {
        AUDIT(HistoryLevel.AUDIT), FULL(HistoryLevel.FULL);

        final HistoryLevel level;

        History(HistoryLevel level) {
            this.level = level;
        }
    }
}
