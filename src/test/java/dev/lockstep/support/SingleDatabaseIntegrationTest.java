package dev.lockstep.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * The whole service in the single-database mode: one embedded PostgreSQL server on a free port
 * holding business and ACT_* tables, a local transaction manager, no Atomikos, behind real HTTP.
 * {@link TestDatabases} sees the one database through both of its handles.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "lockstep.mode=single",
        "lockstep.home=target/it-var/${random.uuid}",
        "lockstep.embedded.single-port=0"
})
@Import({TestDatabases.class, Api.class, InjectedFaults.class})
public @interface SingleDatabaseIntegrationTest {
}
