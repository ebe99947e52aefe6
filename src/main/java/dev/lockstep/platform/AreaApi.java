package dev.lockstep.platform;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A type its area offers to the areas above it. Everything else in an area is its own business:
 * another area reaching it would tie the two together where nobody decided so. ArchitectureTest
 * checks both ways: a type another area uses carries this mark, and a type that carries it is used
 * by another area.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface AreaApi {
}
