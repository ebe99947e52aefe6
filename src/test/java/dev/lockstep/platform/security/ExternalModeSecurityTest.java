package dev.lockstep.platform.security;

import static dev.lockstep.support.ServiceProcess.basic;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.ServiceProcess;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
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
        Map<String, String> environment = mariaAndPublicKeyTokens(issuer);
        environment.put("LOCKSTEP_SECURITY_USERS_1_NAME", "ops");
        environment.put("LOCKSTEP_SECURITY_USERS_1_PASSWORD", "{noop}ops-only-in-this-test");
        environment.put("LOCKSTEP_SECURITY_USERS_1_ROLES", "ADMIN");

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
            assertThat(pete.get("id").asString()).as("the stable subject, not preferred_username").isEqualTo("subject-of-pete");
            assertThat(strings(pete.get("roles"))).containsExactly("APPLICANT");
            assertThat(strings(pete.get("groups"))).containsExactly("legal");

            String posingAsBasicUser = issuer.sign(new TestTokenIssuer.Claims("maria", "maria", List.of("APPROVER"),
                    List.of("managers"), null, "lockstep", java.time.Instant.now().plusSeconds(600)));
            assertProblem(service.get("/api/me", bearer(posingAsBasicUser)), 401, "UNAUTHENTICATED");

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

    /**
     * The group-membership path, which the demo users cannot show: pete applies and is also in the
     * legal group. His user id is his token's subject, the same id signers name; he is refused as a
     * signer of his own application, and the legal review of it is neither in his todo nor his to decide.
     */
    @Test
    void anApplicantInAnApproverGroupNeverDecidesHisOwnApplication() throws Exception {
        TestTokenIssuer issuer = new TestTokenIssuer("idp-key");
        Map<String, String> environment = mariaAndPublicKeyTokens(issuer);
        String pete = bearer(issuer.sign(TestTokenIssuer.Claims.of("pete", List.of("APPLICANT", "APPROVER"), List.of("legal"))));

        try (ServiceProcess service = ServiceProcess.start(home, environment).awaitUp()) {
            HttpResponse<String> selfSigned = service.post("/api/applications", pete, """
                    {"title": "Self-signed", "assetId": 7, "amount": 10, "riskLevel": "LOW", "sensitive": false,
                     "countersign": {"signers": ["subject-of-pete"], "policy": "ALL"}}""");
            assertProblem(selfSigned, 422, "SIGNER_IS_APPLICANT");
            HttpResponse<String> created = service.post("/api/applications", pete, """
                    {"title": "Own asset", "assetId": 7, "amount": 10, "riskLevel": "HIGH", "sensitive": false}""");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            long id = JSON.readTree(created.body()).get("id").asLong();
            assertThat(JSON.readTree(created.body()).get("applicantId").asString()).isEqualTo("subject-of-pete");
            ok(service.post("/api/applications/" + id + "/submit", pete, null));
            String manager = openTask(service, pete, id, "managerApproval");
            ok(service.post("/api/tasks/" + manager + "/complete", basic("maria", "s3cret"), "{\"decision\":\"APPROVE\"}"));
            String legal = openTask(service, pete, id, "legalReview");

            assertThat(ok(service.get("/api/tasks?size=100", pete)).body()).doesNotContain(legal);
            assertProblem(service.post("/api/tasks/" + legal + "/claim", pete, null), 403, "APPLICANT_CANNOT_DECIDE");
            assertProblem(service.post("/api/tasks/" + legal + "/complete", pete, "{\"decision\":\"APPROVE\"}"), 403,
                    "APPLICANT_CANNOT_DECIDE");
            String lena = bearer(issuer.sign(TestTokenIssuer.Claims.of("lena", List.of("APPROVER"), List.of("legal"))));
            assertProblem(service.post("/api/tasks/" + legal + "/transfer", lena, "{\"userId\":\"subject-of-pete\"}"), 422,
                    "HANDOVER_TO_APPLICANT");

            try (Connection connection = business.getPostgresDatabase().getConnection();
                    Statement statement = connection.createStatement();
                    ResultSet decided = statement.executeQuery(
                            "select string_agg(approver_id, ',') from approval_record where application_id = " + id)) {
                decided.next();
                assertThat(decided.getString(1)).isEqualTo("maria");
            }
            assertThat(openTask(service, pete, id, "legalReview")).isEqualTo(legal);
        }
    }

    private static String openTask(ServiceProcess service, String authorization, long applicationId, String step) {
        JsonNode details = JSON.readTree(ok(service.get("/api/applications/" + applicationId, authorization)).body());
        return details.get("openTasks").valueStream().filter(task -> step.equals(task.get("taskDefinitionKey").asString()))
                .findFirst().orElseThrow().get("id").asString();
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

    /** maria (Basic, managers and directors) and tokens signed by {@code issuer} for the audience lockstep. */
    private Map<String, String> mariaAndPublicKeyTokens(TestTokenIssuer issuer) throws IOException {
        Map<String, String> environment = externalMode();
        environment.put("LOCKSTEP_SECURITY_USERS_0_NAME", "maria");
        environment.put("LOCKSTEP_SECURITY_USERS_0_PASSWORD", MARIA_PASSWORD_HASH);
        environment.put("LOCKSTEP_SECURITY_USERS_0_ROLES", "APPROVER");
        environment.put("LOCKSTEP_SECURITY_USERS_0_GROUPS", "managers,directors");
        environment.put("LOCKSTEP_SECURITY_JWT_PUBLICKEYLOCATION",
                "file:" + issuer.writePublicKeyPem(home.resolve("jwt-public.pem")).toAbsolutePath());
        environment.put("LOCKSTEP_SECURITY_JWT_AUDIENCE", "lockstep");
        return environment;
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
