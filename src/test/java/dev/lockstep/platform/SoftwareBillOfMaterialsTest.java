package dev.lockstep.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The build's CycloneDX bill of materials ({@code target/bom.json}, written by {@code mvn verify} and
 * {@code mvn package}) names the parts an architecture review asks about first, each at the version of the jar this
 * very build loads: the version is read from where the class came from, not written into the test.
 */
class SoftwareBillOfMaterialsTest {

    private static final Path BOM = Path.of("target", "bom.json");

    @ParameterizedTest(name = "{0}:{1}")
    @CsvSource({
            "org.activiti,              activiti-engine,  org.activiti.engine.ProcessEngine",
            "com.atomikos,              transactions-jta, com.atomikos.icatch.jta.UserTransactionManager",
            "org.postgresql,            postgresql,       org.postgresql.Driver",
            "com.oracle.database.jdbc,  ojdbc11,          oracle.jdbc.OracleDriver"})
    void listsThePartAtTheVersionThisBuildLoads(String group, String name, String loadedClass) throws Exception {
        assertThat(BOM).as("written at generate-resources by cyclonedx-maven-plugin: run mvn verify").exists();
        String loadedVersion = versionOfJarHolding(Class.forName(loadedClass), name);

        List<String> listed = new ArrayList<>();
        for (JsonNode component : JsonMapper.builder().build().readTree(Files.readString(BOM)).path("components")) {
            if (component.path("group").asString().equals(group) && component.path("name").asString().equals(name)) {
                listed.add(component.path("version").asString());
                assertThat(component.path("purl").asString()).startsWith("pkg:maven/" + group + "/" + name + "@" + loadedVersion);
            }
        }
        assertThat(listed).as("%s:%s in %s", group, name, BOM).containsExactly(loadedVersion);
    }

    /** The version part of the Maven repository path the class was loaded from: .../{name}/{version}/{name}-{version}.jar */
    private static String versionOfJarHolding(Class<?> type, String artifact) throws Exception {
        Path jar = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertThat(jar.getFileName().toString()).startsWith(artifact + "-").endsWith(".jar");
        return jar.getParent().getFileName().toString();
    }
}
