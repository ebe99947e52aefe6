package dev.lockstep.support;

import dev.lockstep.platform.DatabaseEndpoints;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Another Lockstep node in a JVM of its own, in external mode on the test context's two embedded
 * databases, with its own transaction-manager name and log directory. One DBA user exists on it.
 */
public final class SecondNode {

    public static final String DBA = "dba1";
    public static final String PASSWORD = "second-node";

    private final Process process;
    private final int port;
    private final Path home;

    private SecondNode(Process process, int port, Path home) {
        this.process = process;
        this.port = port;
        this.home = home;
    }

    /**
     * @param jvmOptions e.g. a {@code -javaagent:} for Byteman
     * @param settings further {@code --name=value} arguments (they win over the defaults here)
     */
    public static SecondNode start(DatabaseEndpoints endpoints, String tmName, List<String> jvmOptions, List<String> settings)
            throws IOException {
        Path home = Path.of("target/it-var/" + tmName + "-" + UUID.randomUUID()).toAbsolutePath();
        Files.createDirectories(home);
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classpath, "dev.lockstep.LockstepApplication",
                "--server.port=" + port,
                "--lockstep.mode=external",
                "--lockstep.home=" + home,
                "--lockstep.tm.unique-name=" + tmName,
                // external mode has no demo users
                "--lockstep.security.users[0].name=" + DBA,
                "--lockstep.security.users[0].password={noop}" + PASSWORD,
                "--lockstep.security.users[0].roles[0]=DBA"));
        for (String db : List.of("business", "workflow")) {
            var database = db.equals("business") ? endpoints.business() : endpoints.workflow();
            command.add("--lockstep.db." + db + ".url=" + database.url());
            command.add("--lockstep.db." + db + ".username=" + database.username());
            command.add("--lockstep.db." + db + ".password=" + (database.password() == null ? "" : database.password()));
        }
        command.addAll(settings);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(home.resolve("node.log").toFile());
        // only what the test sets: nothing from the developer's shell
        builder.environment().keySet().removeIf(name -> name.startsWith("LOCKSTEP_") || name.startsWith("SPRING_"));
        return new SecondNode(builder.start(), port, home);
    }

    /** The JVM option that attaches the Byteman agent (a test dependency) with the rules in {@code script}. */
    public static String bytemanAgent(Path script) throws Exception {
        Path jar = Path.of(Class.forName("org.jboss.byteman.agent.Main").getProtectionDomain().getCodeSource().getLocation().toURI());
        return "-javaagent:" + jar + "=script:" + script;
    }

    public Process process() {
        return process;
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    public Path home() {
        return home;
    }

    public String log() throws IOException {
        return Files.readString(home.resolve("node.log"));
    }

    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }
}
