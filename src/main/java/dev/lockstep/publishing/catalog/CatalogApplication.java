package dev.lockstep.publishing.catalog;

import dev.lockstep.platform.web.ProblemHandler;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * The reference catalog as a process of its own, the way a real consumer is deployed: nothing of the
 * approval service (no XA, no engine, no business database), only {@code /catalog} on its own
 * database, which {@code lockstep.catalog.db.url} must name. See docs/publishing.md for the command.
 * Deliberately not a {@code @Configuration}: the service's component scan must not pick it up (its
 * exclusions would switch off the service's JPA and Flyway); {@code @Import} makes it a source all the same.
 */
@EnableAutoConfiguration(excludeName = {
        // the catalog builds its own pool and runs its own migrations (db/catalog) on it
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
        "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration",
        "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
        // callers present lockstep.catalog.token, not users of the approval service
        "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration"})
@Import({CatalogConfiguration.class, CatalogController.class, ProblemHandler.class})
public class CatalogApplication {

    public static void main(String[] args) {
        SpringApplication catalog = new SpringApplication(CatalogApplication.class);
        catalog.setDefaultProperties(Map.of(
                "spring.application.name", "lockstep-catalog",
                "lockstep.catalog.standalone", "true",
                "server.port", "8090"));
        catalog.run(args);
    }
}
