package dev.lockstep.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The stages after the XA/single comparison add their results to the report.json and summary.md it wrote. */
final class ReportFiles {

    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private ReportFiles() {
    }

    /** Sets each of {@code sections} as a top-level member of report.json and appends {@code markdown} to summary.md. */
    static void append(Path outputDir, Map<String, Object> sections, String markdown) throws IOException {
        Path report = outputDir.resolve("report.json");
        ObjectNode json = Files.exists(report) ? (ObjectNode) JSON.readTree(report.toFile()) : JSON.createObjectNode();
        sections.forEach((name, value) -> json.set(name, JSON.valueToTree(value)));
        Files.writeString(report, JSON.writeValueAsString(json));
        Path summary = outputDir.resolve("summary.md");
        Files.writeString(summary, (Files.exists(summary) ? Files.readString(summary) + "\n" : "") + markdown);
    }
}
