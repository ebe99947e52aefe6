package dev.lockstep.platform;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;

/**
 * Beans that exist only when two databases commit through XA (modes embedded and external), such as
 * Atomikos, the XA pools and anything reading prepared transactions. Absent in {@code lockstep.mode=single}.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ConditionalOnExpression("!'${lockstep.mode:embedded}'.equalsIgnoreCase('single')")
@AreaApi
public @interface ConditionalOnXaMode {
}
