package dev.lockstep.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.PostgresqlOnly;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every statement the service runs has an Oracle form (issue 36 item 3): a new PostgreSQL-only statement fails the build,
 * not a customer's first Oracle deployment. Read from the compiled classes ({@link SqlConstants}); a statement with a
 * PostgreSQL-only construct is allowed only
 * <ul>
 * <li>in the POSTGRESQL constant of a vendor dialect enum whose ORACLE constant overrides the same methods,</li>
 * <li>in a {@code Postgres*} class with an {@code Oracle*} sibling in its package, or</li>
 * <li>in a class or method marked {@link PostgresqlOnly}, which says why it never runs on Oracle.</li>
 * </ul>
 * The constructs are the ones a port meets (casts, upserts, LIMIT, RETURNING, arrays, PostgreSQL's catalogs and
 * functions, row-value comparison): a guard against the usual mistakes, not a parser.
 */
class OracleFormsTest {

    static final Map<String, Pattern> POSTGRESQL_ONLY = Map.ofEntries(
            Map.entry("a :: cast", Pattern.compile("\\w::\\w|\\)::\\w|\\?::\\w")),
            Map.entry("ON CONFLICT", Pattern.compile("(?i)\\bon\\s+conflict\\b")),
            Map.entry("RETURNING", Pattern.compile("(?i)\\breturning\\b")),
            Map.entry("LIMIT", Pattern.compile("(?i)\\blimit\\s+(\\?|\\d|%[sd]|$)")),
            Map.entry("a row-value comparison", Pattern.compile("\\)\\s*[<>]=?\\s*\\(\\?")),
            Map.entry("an array", Pattern.compile("(?i)\\b(string_to_array|unnest|array_agg|array_length)\\b|\\barray\\[|=\\s*any\\s*\\(|text\\[\\]")),
            Map.entry("ILIKE", Pattern.compile("(?i)\\bilike\\b")),
            Map.entry("now()", Pattern.compile("(?i)\\bnow\\(\\)")),
            Map.entry("interval arithmetic", Pattern.compile("(?i)\\binterval\\s+'|make_interval|extract\\s*\\(\\s*epoch|date_trunc")),
            Map.entry("a PostgreSQL catalog or function", Pattern.compile(
                    "(?i)\\bpg_\\w+|current_database\\(\\)|current_setting|set_config|generate_series|\\bshow\\s+\\w+$")),
            Map.entry("jsonb", Pattern.compile("(?i)\\bjsonb\\b|->>")),
            Map.entry("DISTINCT ON or FILTER", Pattern.compile("(?i)distinct\\s+on\\s*\\(|filter\\s*\\(\\s*where")),
            Map.entry("IS DISTINCT FROM", Pattern.compile("(?i)\\bis\\s+(not\\s+)?distinct\\s+from\\b")),
            Map.entry("a PostgreSQL type", Pattern.compile("(?i)\\bas\\s+(bigint|int8|int4|text|timestamptz|bytea)\\b")),
            Map.entry("FOR UPDATE after FETCH FIRST", Pattern.compile("(?is)\\bfetch\\s+first\\b.*\\bfor\\s+update\\b")));

    @Test
    void everyStatementTheServiceRunsHasAnOracleForm() {
        List<String> violations = violations(Path.of("target/classes"), "dev.lockstep.");
        assertThat(violations).as("PostgreSQL-only SQL without an Oracle form: put it in a vendor dialect (e.g."
                + " TaskProjectionDialect) with its Oracle form beside it, or write SQL both accept").isEmpty();
    }

    @Test
    void theRuleHoldsInBothDirectionsOnTheFixtures() {
        List<String> violations = violations(Path.of("target/test-classes"), "dev.lockstep.architecture.oracleforms.");
        assertThat(violations).containsExactlyInAnyOrder(
                "dev.lockstep.architecture.oracleforms.PortableStore.save: ON CONFLICT in"
                        + " 'insert into t (k, v) values (?, ?) on conflict (k) do update set v = excluded.v'",
                "dev.lockstep.architecture.oracleforms.FixtureDialect$2.page: LIMIT in 'select * from t order by k limit ?'",
                "dev.lockstep.architecture.oracleforms.PortableStore.page: LIMIT in 'select v from t where ? order by k limit ?'");
    }

    @Test
    void theServiceHoldsStatementsToCheck() {
        // a scan that reads nothing would pass everything
        assertThat(SqlConstants.in(Path.of("target/classes"), "dev.lockstep.", PostgresqlOnly.class).stream()
                .map(SqlConstants.Found::owner).distinct().count()).isGreaterThan(30);
    }

    static List<String> violations(Path root, String prefix) {
        return SqlConstants.in(root, prefix, PostgresqlOnly.class).stream()
                .filter(found -> !found.marked() && !hasOracleSibling(found.holder()))
                .flatMap(found -> POSTGRESQL_ONLY.entrySet().stream().filter(only -> only.getValue().matcher(found.sql()).find())
                        .map(only -> found.holder() + (found.method() == null ? "" : "." + found.method()) + ": " + only.getKey()
                                + " in '" + found.sql().strip().replaceAll("\\s+", " ") + "'"))
                .distinct().toList();
    }

    /** The POSTGRESQL constant of a dialect enum with an ORACLE constant, or a Postgres* class with an Oracle* sibling. */
    private static boolean hasOracleSibling(String holder) {
        Class<?> type = load(holder).orElseThrow();
        if (type.getSuperclass() != null && type.getSuperclass().isEnum()) {
            Class<?> dialect = type.getSuperclass();
            Map<String, Class<?>> bodies = Arrays.stream(dialect.getEnumConstants())
                    .collect(Collectors.toMap(constant -> ((Enum<?>) constant).name(), Object::getClass));
            return type.equals(bodies.get("POSTGRESQL")) && bodies.containsKey("ORACLE")
                    && signatures(bodies.get("ORACLE")).containsAll(signatures(type));
        }
        String simpleName = holder.substring(holder.lastIndexOf('.') + 1);
        return simpleName.startsWith("Postgres")
                && load(holder.substring(0, holder.lastIndexOf('.') + 1) + "Oracle" + simpleName.substring("Postgres".length()))
                        .isPresent();
    }

    private static Set<String> signatures(Class<?> body) {
        return Arrays.stream(body.getDeclaredMethods()).filter(method -> !method.isSynthetic())
                .map(method -> method.getName() + Arrays.toString(method.getParameterTypes())).collect(Collectors.toSet());
    }

    private static Optional<Class<?>> load(String name) {
        try {
            return Optional.of(Class.forName(name, false, OracleFormsTest.class.getClassLoader()));
        } catch (ClassNotFoundException e) {
            return Optional.empty();
        }
    }
}
