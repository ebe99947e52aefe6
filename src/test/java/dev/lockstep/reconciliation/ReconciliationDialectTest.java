package dev.lockstep.reconciliation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseVendor;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The vendor choice of reconciliation's SQL: each vendor gets its own form of the two statements that differ. That no
 * other statement is PostgreSQL-only is OracleFormsTest's rule, for the whole service.
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
}
