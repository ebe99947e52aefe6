package dev.lockstep.transactions.xa.log;

import dev.lockstep.platform.AreaApi;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * A bean that exists only when the coordinator log is kept in the business database: {@code lockstep.tm.log=database},
 * or unset in external mode ({@link GroupCommitLogFactory#storeOf}). Read from the environment because conditions are
 * evaluated before the properties are bound.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Conditional(ConditionalOnDatabaseLog.DatabaseLog.class)
@AreaApi
public @interface ConditionalOnDatabaseLog {

    final class DatabaseLog implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String mode = context.getEnvironment().getProperty("lockstep.mode", "embedded");
            return GroupCommitLogFactory.DATABASE.equals(GroupCommitLogFactory.storeOf(
                    context.getEnvironment().getProperty(GroupCommitLogFactory.LOG_SETTING), "external".equalsIgnoreCase(mode)));
        }
    }
}
