package dev.lockstep.platform.deployment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/** xa-config/container/Containerfile's instructions, so tests run what the image runs instead of a copy of it. */
record Containerfile(List<String[]> instructions) {

    static final Path FILE = Path.of("xa-config/container/Containerfile");

    static Containerfile read() {
        try {
            List<String[]> instructions = new ArrayList<>();
            StringBuilder line = new StringBuilder();
            for (String raw : Files.readAllLines(FILE)) {
                if (raw.isBlank() || raw.stripLeading().startsWith("#")) {
                    continue;
                }
                line.append(raw.strip());
                if (line.charAt(line.length() - 1) == '\\') {
                    line.setLength(line.length() - 1);
                    continue;
                }
                instructions.add(line.toString().split("\\s+", 2));
                line.setLength(0);
            }
            return new Containerfile(instructions);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The arguments of each instruction named {@code keyword}, in order. */
    List<String> all(String keyword) {
        return instructions.stream().filter(i -> i[0].equalsIgnoreCase(keyword)).map(i -> i.length > 1 ? i[1] : "").toList();
    }

    /** The ENTRYPOINT in exec form: the command line the container runs. */
    List<String> entrypoint() {
        List<String> entrypoints = all("ENTRYPOINT");
        return Arrays.asList(JsonMapper.shared().readValue(entrypoints.get(entrypoints.size() - 1), String[].class));
    }

    /** The command line of the RUN that extracts the jar's layers ({@code java -Djarmode=tools ...}). */
    List<String> extractCommand() {
        return all("RUN").stream().filter(run -> run.contains("-Djarmode=tools")).findFirst()
                .map(run -> List.of(run.split("\\s+")))
                .orElseThrow(() -> new AssertionError(FILE + " has no RUN java -Djarmode=tools"));
    }

    /** The final stage's working directory: where the entrypoint runs. */
    String workdir() {
        List<String> workdirs = all("WORKDIR");
        return workdirs.get(workdirs.size() - 1);
    }

    /** The sources of the final stage's COPY --from lines: the extracted layers, in the order they are copied. */
    List<String> copiedFromEarlierStage() {
        return all("COPY").stream().filter(copy -> copy.startsWith("--from=")).map(copy -> copy.split("\\s+")[1]).toList();
    }

    /** ENV NAME=value lines. */
    Map<String, String> environment() {
        Map<String, String> environment = new LinkedHashMap<>();
        for (String env : all("ENV")) {
            String[] nameAndValue = env.split("=", 2);
            environment.put(nameAndValue[0], nameAndValue[1]);
        }
        return environment;
    }

    /** The USER of the final stage. */
    String user() {
        List<String> users = all("USER");
        return users.get(users.size() - 1);
    }
}
