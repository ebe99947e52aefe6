package dev.lockstep.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine's ACT_* tables change only through the engine's API. The service's own code names them
 * in no SQL string at all, except where reconciliation reads them; tests read them with plain SQL to
 * assert what the workflow database holds, but only the benchmark, on its throwaway databases, writes
 * them.
 */
class EngineTablesTest {

    private static final Pattern STRING_LITERAL = Pattern.compile("\"\"\"(.*?)\"\"\"|\"((?:[^\"\\\\\\n]|\\\\.)*)\"", Pattern.DOTALL);
    private static final Pattern ENGINE_TABLE = Pattern.compile("(?i)\\bact_(ru|hi|re|ge|id|evt|procdef)_?\\w*");
    private static final Pattern ENGINE_TABLE_WRITE = Pattern.compile(
            "(?i)\\b(insert\\s+into|update|delete\\s+from|truncate(\\s+table)?|alter\\s+table|drop\\s+table)\\s+act_\\w+");

    @Test
    void theServiceNamesNoEngineTableInSqlOutsideReconciliation() {
        List<String> found = literalsMatching(Stream.of(Path.of("src/main/java"), Path.of("src/main/resources/db")),
                ENGINE_TABLE, path -> !path.toString().contains("/reconciliation/"));
        assertThat(found).as("SQL naming ACT_* tables in the service; use the engine's API or a Command instead").isEmpty();
    }

    @Test
    void testsWriteEngineTablesOnlyInTheBenchmark() {
        List<String> found = literalsMatching(Stream.of(Path.of("src/test/java"), Path.of("chaos-tests/src")),
                ENGINE_TABLE_WRITE, path -> !path.toString().contains("/bench/"));
        assertThat(found).as("tests writing ACT_* tables with SQL; only the benchmark's throwaway databases may").isEmpty();
    }

    @Test
    void theScanSeesSqlStringsAtAll() {
        // Guards the two rules above against a pattern that matches nothing: tests do read ACT_* to assert.
        assertThat(literalsMatching(Stream.of(Path.of("src/test/java")), ENGINE_TABLE, path -> true)).isNotEmpty();
    }

    private static List<String> literalsMatching(Stream<Path> roots, Pattern pattern, java.util.function.Predicate<Path> scanned) {
        List<String> found = new ArrayList<>();
        roots.filter(Files::isDirectory).forEach(root -> {
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(path -> path.toString().endsWith(".java") || path.toString().endsWith(".sql"))
                        .filter(scanned)
                        .forEach(path -> found.addAll(matches(path, pattern)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return found;
    }

    private static List<String> matches(Path file, Pattern pattern) {
        try {
            String source = Files.readString(file);
            List<String> found = new ArrayList<>();
            if (file.toString().endsWith(".sql")) {
                Matcher table = pattern.matcher(source);
                while (table.find()) {
                    found.add(file + ": " + table.group());
                }
                return found;
            }
            Matcher literal = STRING_LITERAL.matcher(source);
            while (literal.find()) {
                String text = literal.group(1) != null ? literal.group(1) : literal.group(2);
                Matcher table = pattern.matcher(text);
                if (table.find()) {
                    found.add(file + ": " + table.group());
                }
            }
            return found;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
