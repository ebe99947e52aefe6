package dev.lockstep.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jboss.byteman.check.RuleCheck;
import org.jboss.byteman.check.RuleCheckResult;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every Byteman rule file of the chaos suite, the recovery benchmark and the tests parses and type-checks against the
 * classes it instruments. Byteman does not inject a rule that fails its type check, and a service JVM's log does not
 * say so: the rule then never fires, and a scenario or a benchmark stage quietly measures something else (the
 * recovery benchmark once held no transaction after its commit decision for that reason).
 */
class BytemanRulesTest {

    /** Stand-ins for the placeholders the harnesses replace before they hand a rule file to the agent. */
    private static final Map<String, String> PLACEHOLDERS = Map.of("@ARM@", "/nonexistent/armed", "@HOLD@", "2",
            "@WORKFLOW_HOLD@", "1", "@BUSINESS_DB@", "lockstep_business", "@WORKFLOW_DB@", "lockstep_workflow");

    static List<Path> ruleFiles() throws IOException {
        List<Path> files;
        try (Stream<Path> found = Stream.of(Path.of("src/test/resources"), Path.of("chaos-tests/src/test/resources"))
                .flatMap(BytemanRulesTest::walk)) {
            files = found.filter(path -> path.toString().endsWith(".btm")).sorted().toList();
        }
        assertThat(files).as("the rule files of the chaos suite, the benchmark and the tests").hasSizeGreaterThan(15);
        return files;
    }

    @ParameterizedTest
    @MethodSource("ruleFiles")
    void theRulesParseAndTypeCheck(Path file, @TempDir Path work) throws IOException {
        String rules = Files.readString(file);
        for (Map.Entry<String, String> placeholder : PLACEHOLDERS.entrySet()) {
            rules = rules.replace(placeholder.getKey(), placeholder.getValue());
        }
        assertThat(rules).as("every placeholder has a stand-in here").doesNotContainPattern("@[A-Z_]+@");
        Path resolved = Files.writeString(work.resolve(file.getFileName()), rules);

        ByteArrayOutputStream output = new ByteArrayOutputStream();
        RuleCheck check = new RuleCheck();
        check.setPrintStream(new PrintStream(output, true, StandardCharsets.UTF_8));
        assertThat(check.addRuleFile(resolved.toString())).as("the file is read").isTrue();
        check.checkRules();
        RuleCheckResult result = check.getResult();

        String report = output.toString(StandardCharsets.UTF_8);
        assertThat(result.getInfoMessages()).as(report).anyMatch(message -> message.contains("Type checked rule"));
        assertThat(result.hasError()).as(report).isFalse();
        assertThat(result.getParseErrorCount() + result.getTypeErrorCount() + result.getTypeWarningCount()).as(report).isZero();
        assertThat(result.hasWarning()).as(report).isFalse();
    }

    private static Stream<Path> walk(Path root) {
        try {
            return Files.walk(root);
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + root.toAbsolutePath(), e);
        }
    }
}
