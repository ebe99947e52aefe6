package dev.lockstep.support;

import dev.lockstep.platform.DatabaseEndpoints;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Another Lockstep node in a JVM of its own ({@link ServiceJvm}), in external mode on the test
 * context's two embedded databases, with its own transaction-manager name and log directory. One DBA
 * user exists on it.
 */
public final class SecondNode {

    public static final String DBA = "dba1";
    public static final String PASSWORD = "second-node";

    private final ServiceJvm jvm;
    private final Path home;

    private SecondNode(ServiceJvm jvm, Path home) {
        this.jvm = jvm;
        this.home = home;
    }

    /**
     * @param jvmOptions e.g. a {@code -javaagent:} for Byteman
     * @param settings further {@code --name=value} arguments (they win over the defaults here)
     */
    public static SecondNode start(DatabaseEndpoints endpoints, String tmName, List<String> jvmOptions, List<String> settings) {
        return start(endpoints, tmName, jvmOptions, settings, ServiceJvm.testClasspath());
    }

    /** As {@link #start(DatabaseEndpoints, String, List, List)}, launched with {@code launch} (e.g. a reordered class path). */
    public static SecondNode start(DatabaseEndpoints endpoints, String tmName, List<String> jvmOptions, List<String> settings,
            List<String> launch) {
        Path home = Path.of("target/it-var/" + tmName + "-" + UUID.randomUUID()).toAbsolutePath();
        int port = ServiceJvm.freePort();
        List<String> jvm = new ArrayList<>(List.of("-Xmx384m"));
        jvm.addAll(jvmOptions);
        List<String> arguments = new ArrayList<>(List.of(
                "--server.port=" + port,
                "--lockstep.mode=external",
                "--lockstep.home=" + home,
                // the file log, which external mode no longer defaults to, stays tested by these nodes (the chaos
                // suite runs on the database log); a test may choose the database (CoordinatorLogInDatabaseTest)
                "--lockstep.tm.log=file",
                "--lockstep.tm.log-dir=" + home.resolve("atomikos"),
                "--lockstep.tm.unique-name=" + tmName,
                "--lockstep.reconciliation.enabled=false",
                // the test context publishes nothing by itself, so events its tests leave PENDING must not turn this
                // node's health OUT_OF_SERVICE once they are 5 min old (as LockstepIntegrationTest says for its own):
                // a node started late in a long run then never answered 200 (CI, twice)
                "--lockstep.publish.stuck-after=1h",
                // external mode has no demo users
                "--lockstep.security.users[0].name=" + DBA,
                "--lockstep.security.users[0].password={noop}" + PASSWORD,
                "--lockstep.security.users[0].roles[0]=DBA"));
        for (String db : List.of("business", "workflow")) {
            var database = db.equals("business") ? endpoints.business() : endpoints.workflow();
            arguments.add("--lockstep.db." + db + ".url=" + database.url());
            arguments.add("--lockstep.db." + db + ".username=" + database.username());
            arguments.add("--lockstep.db." + db + ".password=" + (database.password() == null ? "" : database.password()));
        }
        // Spring joins a repeated --name=value into "a,b": drop each default a setting here replaces
        List<String> replaced = settings.stream().map(SecondNode::name).toList();
        arguments.removeIf(argument -> replaced.contains(name(argument)));
        arguments.addAll(settings);
        return new SecondNode(ServiceJvm.start(jvm, launch, arguments, Map.of(), home.resolve("node.log"), port),
                home);
    }

    private static String name(String argument) {
        int equals = argument.indexOf('=');
        return equals < 0 ? argument : argument.substring(0, equals);
    }

    /**
     * Settings for more users beside the DBA, each {@code {name, role, group or null}}, with the demo password (external
     * mode has no demo users).
     */
    public static List<String> users(String[]... users) {
        List<String> settings = new ArrayList<>();
        for (int i = 0; i < users.length; i++) {
            String prefix = "--lockstep.security.users[" + (i + 1) + "].";
            settings.add(prefix + "name=" + users[i][0]);
            settings.add(prefix + "password={noop}" + Api.DEMO_PASSWORD);
            settings.add(prefix + "roles[0]=" + users[i][1]);
            if (users[i][2] != null) {
                settings.add(prefix + "groups[0]=" + users[i][2]);
            }
        }
        return settings;
    }

    /** The JVM option that attaches the Byteman agent (a test dependency) with the rules in {@code script}. */
    public static String bytemanAgent(Path script) throws Exception {
        Path jar = Path.of(Class.forName("org.jboss.byteman.agent.Main").getProtectionDomain().getCodeSource().getLocation().toURI());
        return "-javaagent:" + jar + "=script:" + script;
    }

    public ServiceJvm jvm() {
        return jvm;
    }

    public String baseUrl() {
        return jvm.baseUrl();
    }

    public Path home() {
        return home;
    }

    public String log() {
        return jvm.output();
    }

    public void kill() {
        jvm.kill9();
    }
}
