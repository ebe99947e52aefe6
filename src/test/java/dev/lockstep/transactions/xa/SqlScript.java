package dev.lockstep.transactions.xa;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** Splits a plain SQL script (no PL/SQL blocks) into statements the way a JDBC client runs them. */
final class SqlScript {

    private SqlScript() {
    }

    static List<String> statements(Path script) throws IOException {
        String withoutComments = Files.readAllLines(script).stream()
                .filter(line -> !line.strip().startsWith("--"))
                .collect(Collectors.joining("\n"));
        return Arrays.stream(withoutComments.split(";"))
                .map(statement -> statement.strip().replaceAll("\\s+", " "))
                .filter(statement -> !statement.isEmpty())
                .toList();
    }
}
