package dev.lockstep.security;

import static dev.lockstep.support.ServiceProcess.basic;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.ServiceProcess;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * lockstep.mode=external as an operator runs it: the service in its own JVM on two PostgreSQL servers
 * it did not start, configured through environment variables only, never with the demo users.
 */
class ExternalModeSecurityTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    // bcrypt of "s3cret" at cost 10, pasted into the environment as docs/security.md shows.
    private static final String MARIA_PASSWORD_HASH = "{bcrypt}$2y$10$uo34p17fx6Det0DCWD5oPeYLEiMRKUaJgTOnBAe.qIBS8bs9D9p0K";

    private static EmbeddedPostgres business;
    private static EmbeddedPostgres workflow;

    private final Path home = Path.of("target", "sec-test", UUID.randomUUID().toString());

    @BeforeAll
    static void startDatabases() throws IOException {
        business = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
        workflow = EmbeddedPostgres.builder().setServerConfig("max_prepared_transactions", "64").start();
    }

    @AfterAll
    static void stopDatabases() throws IOException {
        if (workflow != null) {
            workflow.close();
        }
        if (business != null) {
            business.close();
        }
    }

    @Test
    void configuredUsersAndPublicKeyTokensLogInDemoUsersDoNot() throws Exception {
        TestTokenIssuer issuer = new TestTokenIssuer("ops-key");
        Map<String, String> environment = externalMode();
        environment.put("LOCKSTEP_SECURITY_USERS_0_NAME", "maria");
        environment.put("LOCKSTEP_SECURITY_USERS_0_PASSWORD", MARIA_PASSWORD_HASH);
        environment.put("LOCKSTEP_SECURITY_USERS_0_ROLES", "APPROVER");
        environment.put("LOCKSTEP_SECURITY_USERS_0_GROUPS", "managers,directors");
        environment.put("LOCKSTEP_SECURITY_USERS_1_NAME", "ops");
        environment.put("LOCKSTEP_SECURITY_USERS_1_PASSWORD", "{noop}ops-only-in-this-test");
        environment.put("LOCKSTEP_SECURITY_USERS_1_ROLES", "ADMIN");
        environment.put("LOCKSTEP_SECURITY_JWT_PUBLICKEYLOCATION",
                "file:" + issuer.writePublicKeyPem(home.resolve("jwt-public.pem")).toAbsolutePath());

        try (ServiceProcess service = ServiceProcess.start(home, environment).awaitUp()) {
            JsonNode maria = JSON.readTree(ok(service.get("/api/me", basic("maria", "s3cret"))).body());
            assertThat(maria.get("id").asString()).isEqualTo("maria");
            assertThat(strings(maria.get("roles"))).containsExactly("APPROVER");
            assertThat(strings(maria.get("groups"))).containsExactlyInAnyOrder("managers", "directors");
            ok(service.get("/actuator/prometheus", basic("ops", "ops-only-in-this-test")));

            assertProblem(service.get("/api/me", basic("alice", "lockstep")), 401, "UNAUTHENTICATED");
            assertProblem(service.get("/api/me", basic("erin", "lockstep")), 401, "UNAUTHENTICATED");
            assertProblem(service.get("/api/me", basic("maria", "lockstep")), 401, "UNAUTHENTICATED");
            assertProblem(service.get("/actuator/prometheus", basic("maria", "s3cret")), 403, "FORBIDDEN");
            HttpResponse<String> anonymous = service.get("/api/me", null);
            assertProblem(anonymous, 401, "UNAUTHENTICATED");
            assertThat(anonymous.headers().allValues("WWW-Authenticate"))
                    .containsExactly("Basic realm=\"lockstep\"", "Bearer realm=\"lockstep\"");

            String admin = issuer.sign(TestTokenIssuer.Claims.of("olga", List.of("ADMIN"), List.of()));
            String applicant = issuer.sign(TestTokenIssuer.Claims.of("pete", List.of("APPLICANT"), List.of("legal")));
            ok(service.get("/actuator/prometheus", bearer(admin)));
            assertProblem(service.get("/actuator/prometheus", bearer(applicant)), 403, "FORBIDDEN");
            JsonNode pete = JSON.readTree(ok(service.get("/api/me", bearer(applicant))).body());
            assertThat(pete.get("id").asString()).isEqualTo("pete");
            assertThat(strings(pete.get("roles"))).containsExactly("APPLICANT");
            assertThat(strings(pete.get("groups"))).containsExactly("legal");

            String forged = new TestTokenIssuer("ops-key").sign(TestTokenIssuer.Claims.of("olga", List.of("ADMIN"), List.of()));
            assertProblem(service.get("/actuator/prometheus", bearer(forged)), 401, "UNAUTHENTICATED");
            assertThat(service.get("/actuator/health", null).statusCode()).isEqualTo(200);
            assertThat(service.output()).doesNotContain("Demo users");
        }
    }

    @Test
    void bearerTokensAloneFromAnOpenIdIssuer() throws Exception {
        try (TestTokenIssuer issuer = new TestTokenIssuer("idp-key")) {
            String issuerUri = issuer.serve();
            Map<String, String> environment = externalMode();
            environment.put("LOCKSTEP_SECURITY_JWT_ISSUERURI", issuerUri);
            environment.put("LOCKSTEP_SECURITY_JWT_AUDIENCE", "lockstep");

            try (ServiceProcess service = ServiceProcess.start(home, environment).awaitUp()) {
                TestTokenIssuer.Claims admin = TestTokenIssuer.Claims.of("olga", List.of("ADMIN"), List.of())
                        .withIssuer(issuerUri);
                ok(service.get("/actuator/prometheus", bearer(issuer.sign(admin))));
                JsonNode serviceAccount = JSON.readTree(ok(service.get("/api/me",
                        bearer(issuer.sign(admin.withoutUsername())))).body());
                assertThat(serviceAccount.get("id").asString()).isEqualTo("subject-of-olga");

                HttpResponse<String> otherAudience = service.get("/actuator/prometheus",
                        bearer(issuer.sign(admin.withAudience("payroll"))));
                assertProblem(otherAudience, 401, "UNAUTHENTICATED");
                assertThat(JSON.readTree(otherAudience.body()).get("detail").asString()).contains("aud");

                HttpResponse<String> demoUser = service.get("/api/me", basic("alice", "lockstep"));
                assertProblem(demoUser, 401, "UNAUTHENTICATED");
                assertThat(demoUser.headers().allValues("WWW-Authenticate")).containsExactly("Bearer realm=\"lockstep\"");
            }
        }
    }

    @Test
    void withoutUsersOrTokensTheStartupStopsNamingTheSetting() throws Exception {
        try (ServiceProcess service = ServiceProcess.start(home, externalMode())) {
            assertThat(service.awaitExit()).isNotZero();
            assertThat(service.output())
                    .contains("APPLICATION FAILED TO START")
                    .contains("lockstep.security.users: is empty and lockstep.security.jwt is not set")
                    .contains("LOCKSTEP_SECURITY_USERS_0_NAME");
        }
    }

    @Test
    void plainTextPasswordStopsTheStartupWithoutBeingPrinted() throws Exception {
        Map<String, String> environment = externalMode();
        environment.put("LOCKSTEP_SECURITY_USERS_0_NAME", "maria");
        environment.put("LOCKSTEP_SECURITY_USERS_0_PASSWORD", "hunter2-plain");
        environment.put("LOCKSTEP_SECURITY_USERS_0_ROLES", "APPROVER");

        try (ServiceProcess service = ServiceProcess.start(home, environment)) {
            assertThat(service.awaitExit()).isNotZero();
            assertThat(service.output())
                    .contains("APPLICATION FAILED TO START")
                    .contains("lockstep.security.users[0].password: is not an encoded password")
                    .doesNotContain("hunter2-plain");
        }
    }

    private static Map<String, String> externalMode() {
        Map<String, String> environment = new HashMap<>();
        environment.put("LOCKSTEP_MODE", "external");
        environment.put("LOCKSTEP_TM_UNIQUENAME", "sec-test.tm");
        environment.put("LOCKSTEP_DB_BUSINESS_URL", business.getJdbcUrl("postgres", "postgres"));
        environment.put("LOCKSTEP_DB_BUSINESS_USERNAME", "postgres");
        environment.put("LOCKSTEP_DB_BUSINESS_PASSWORD", "");
        environment.put("LOCKSTEP_DB_WORKFLOW_URL", workflow.getJdbcUrl("postgres", "postgres"));
        environment.put("LOCKSTEP_DB_WORKFLOW_USERNAME", "postgres");
        environment.put("LOCKSTEP_DB_WORKFLOW_PASSWORD", "");
        return environment;
    }

    private static HttpResponse<String> ok(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    private static void assertProblem(HttpResponse<String> response, int status, String code) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(JSON.readTree(response.body()).get("code").asString()).isEqualTo(code);
    }

    private static List<String> strings(JsonNode array) {
        return array.valueStream().map(JsonNode::asString).toList();
    }

    private static String bearer(String token) {
        return "Bearer " + token;
    }
}
