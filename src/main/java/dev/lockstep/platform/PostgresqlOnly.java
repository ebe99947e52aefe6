package dev.lockstep.platform;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class or method whose SQL runs on PostgreSQL alone, and says why that is true. Every other statement the
 * service runs has an Oracle form: it is SQL both accept, or the POSTGRESQL constant of a vendor dialect enum beside
 * its ORACLE constant, or a {@code Postgres*} class beside its {@code Oracle*} sibling. OracleFormsTest reads the
 * compiled classes and fails the build on a PostgreSQL-only statement anywhere else.
 */
@AreaApi
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface PostgresqlOnly {

    /** Why this never runs against Oracle, or what runs there instead. */
    String value();
}
