package dev.lockstep.publishing.catalog;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;

/**
 * The reference catalog runs here: it is enabled and has a database — its own URL, or the embedded
 * default's server to create one in — or it is the whole process ({@link CatalogApplication}).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ConditionalOnExpression("${lockstep.catalog.enabled:true} and ('${lockstep.catalog.db.url:}' != ''"
        + " or '${lockstep.mode:embedded}'.equalsIgnoreCase('embedded') or ${lockstep.catalog.standalone:false})")
public @interface ConditionalOnCatalog {
}
