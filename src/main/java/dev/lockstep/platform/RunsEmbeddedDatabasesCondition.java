package dev.lockstep.platform;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when the service runs its database servers itself ({@link LockstepProperties#runsEmbeddedDatabases()}):
 * the embedded XA default, or the single-database mode without a URL. Decided on the bound
 * properties, so environment variables count the same as properties.
 */
public class RunsEmbeddedDatabasesCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        LockstepProperties properties = Binder.get(context.getEnvironment()).bindOrCreate("lockstep", LockstepProperties.class);
        boolean embedded = properties.runsEmbeddedDatabases();
        return new ConditionOutcome(embedded == expectEmbedded(), "lockstep.mode=" + properties.mode()
                + (embedded ? " runs its own embedded database servers" : " uses databases the operator runs"));
    }

    boolean expectEmbedded() {
        return true;
    }

    /** The opposite: lockstep.mode=external, or single with lockstep.db.single.url. */
    public static class OperatorDatabases extends RunsEmbeddedDatabasesCondition {
        @Override
        boolean expectEmbedded() {
            return false;
        }
    }
}
