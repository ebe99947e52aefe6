package dev.lockstep.transactions.xa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/** Oracle runs its own copy of the business migrations: it must keep up with PostgreSQL's, version by version. */
class BusinessMigrationsTest {

    @Test
    void everyPostgresqlMigrationHasItsOracleCounterpart() throws IOException {
        assertThat(fileNames(XaConfiguration.ORACLE_BUSINESS_MIGRATIONS))
                .isNotEmpty()
                .containsExactlyInAnyOrderElementsOf(fileNames("classpath:db/business"));
    }

    private static List<String> fileNames(String location) throws IOException {
        Resource[] scripts = new PathMatchingResourcePatternResolver().getResources(location + "/*.sql");
        return Arrays.stream(scripts).map(Resource::getFilename).toList();
    }
}
