package dev.lockstep.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseVendor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The vendor choice of reconciliation's SQL: each vendor gets its own form of the two statements that differ, and no
 * other statement of the package uses PostgreSQL-only syntax (the Oracle twin of V350 must be able to run them).
 */
class ReconciliationDialectTest {

    /** PostgreSQL-only forms: limit, casts with ::, now(), interval literals, returning, on conflict, ilike. */
    private static final Pattern POSTGRESQL_ONLY = Pattern.compile(
            "(?i)\\blimit\\s+\\d|::|\\bnow\\(\\)|\\binterval\\s+'|\\breturning\\b|\\bon conflict\\b|\\bilike\\b");

    @Test
    void eachVendorGetsItsOwnForm() {
        assertThat(ReconciliationDialect.of(DatabaseVendor.POSTGRESQL)).isEqualTo(ReconciliationDialect.POSTGRESQL);
        assertThat(ReconciliationDialect.of(DatabaseVendor.ORACLE)).isEqualTo(ReconciliationDialect.ORACLE);
        assertThat(ReconciliationDialect.POSTGRESQL.saveWatermarkSql()).contains("on conflict (scan) do update");
        assertThat(ReconciliationDialect.ORACLE.saveWatermarkSql()).startsWith("merge into reconciliation_watermark")
                .contains("from dual");
        assertThat(POSTGRESQL_ONLY.matcher(ReconciliationDialect.ORACLE.saveWatermarkSql()).find()).isFalse();
    }

    @Test
    void noOtherStatementOfThePackageIsPostgresqlOnly() throws IOException {
        Path sources = Path.of("src/main/java/dev/lockstep/reconciliation");
        List<String> offending;
        try (Stream<Path> files = Files.list(sources)) {
            offending = files.filter(file -> !file.getFileName().toString().equals("ReconciliationDialect.java"))
                    .flatMap(ReconciliationDialectTest::sqlOffences).toList();
        }
        assertThat(offending).isEmpty();
        assertThat(sqlOffences(sources.resolve("ReconciliationDialect.java")))
                .as("only the PostgreSQL constant of the dialect itself").allMatch(offence -> offence.contains("on conflict"));
    }

    /** String literals and text blocks of {@code file} that contain PostgreSQL-only SQL. */
    private static Stream<String> sqlOffences(Path file) {
        try {
            String source = Files.readString(file);
            Matcher literals = Pattern.compile("\"\"\"(.*?)\"\"\"|\"((?:[^\"\\\\\\n]|\\\\.)*)\"", Pattern.DOTALL).matcher(source);
            Stream.Builder<String> found = Stream.builder();
            while (literals.find()) {
                String literal = literals.group(1) != null ? literals.group(1) : literals.group(2);
                if (POSTGRESQL_ONLY.matcher(literal).find()) {
                    found.add(file.getFileName() + ": " + literal.strip());
                }
            }
            return found.build();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
