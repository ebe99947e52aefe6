package dev.lockstep.reconciliation;

import dev.lockstep.platform.DatabaseVendor;
import java.sql.PreparedStatement;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;

/**
 * The two statements of reconciliation that differ by vendor: storing the watermark (an upsert) and opening an incident
 * unless one is open for the application and rule (an insert that may meet the partial unique index). Everything else
 * is SQL both accept ({@code fetch first n rows only}, {@code cast(? as ...)}, generated keys through JDBC).
 */
enum ReconciliationDialect {

    POSTGRESQL("id") {
        @Override
        String saveWatermarkSql() {
            return """
                    insert into reconciliation_watermark (scan, last_application_id, updated_at) values (?, ?, ?)
                    on conflict (scan) do update set last_application_id = excluded.last_application_id, updated_at = excluded.updated_at
                    """;
        }

        @Override
        Optional<Long> insertIncident(JdbcTemplate business, Object... values) {
            // the conflict target names the partial unique index's predicate; nothing inserted, no key returned
            return insertReturningId(business, INSERT_INCIDENT + " on conflict (application_id, rule_id) where state <> 'CLOSED' do nothing",
                    values);
        }
    },

    /** Oracle names an unquoted column in upper case; pgjdbc quotes the name it is given. */
    ORACLE("ID") {
        @Override
        String saveWatermarkSql() {
            return """
                    merge into reconciliation_watermark w
                    using (select ? scan, ? last_application_id, ? updated_at from dual) n on (w.scan = n.scan)
                    when matched then update set w.last_application_id = n.last_application_id, w.updated_at = n.updated_at
                    when not matched then insert (scan, last_application_id, updated_at)
                         values (n.scan, n.last_application_id, n.updated_at)
                    """;
        }

        @Override
        Optional<Long> insertIncident(JdbcTemplate business, Object... values) {
            // Oracle rolls back only the failed statement, so the surrounding transaction goes on
            try {
                return insertReturningId(business, INSERT_INCIDENT, values);
            } catch (DuplicateKeyException alreadyOpen) {
                return Optional.empty();
            }
        }
    };

    private final String keyColumn;

    ReconciliationDialect(String keyColumn) {
        this.keyColumn = keyColumn;
    }

    /** Values: application, process instance, definition, rule, difference, evidence, opened_by, opened_at. */
    private static final String INSERT_INCIDENT = """
            insert into reconciliation_incident (application_id, process_instance_id, process_definition_id, rule_id,
                   difference, evidence, state, opened_by, opened_at)
            values (?, ?, ?, ?, ?, ?, 'OPEN', ?, ?)""";

    /** Values: scan, last application id, updated_at. */
    abstract String saveWatermarkSql();

    /** The new incident's id, or empty when one is already open for the application and rule. */
    abstract Optional<Long> insertIncident(JdbcTemplate business, Object... values);

    static ReconciliationDialect of(DatabaseVendor vendor) {
        return vendor == DatabaseVendor.ORACLE ? ORACLE : POSTGRESQL;
    }

    /** An insert's generated {@code id} through JDBC (PostgreSQL appends RETURNING, Oracle a returning-into). */
    Optional<Long> insertReturningId(JdbcTemplate jdbc, String sql, Object... values) {
        KeyHolder keys = new GeneratedKeyHolder();
        jdbc.update(connection -> {
            PreparedStatement statement = connection.prepareStatement(sql, new String[] {keyColumn});
            new ArgumentPreparedStatementSetter(values).setValues(statement);
            return statement;
        }, keys);
        return keys.getKeyList().isEmpty() ? Optional.empty() : Optional.of(keys.getKeyAs(Number.class).longValue());
    }
}
