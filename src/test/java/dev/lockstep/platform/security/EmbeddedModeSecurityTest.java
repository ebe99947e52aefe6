package dev.lockstep.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The security rules of the embedded default, over real HTTP against the whole service. */
@LockstepIntegrationTest
class EmbeddedModeSecurityTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient http = HttpClient.newHttpClient();

    @Autowired
    Api api;

    @Test
    void requestWithoutCredentialsGets401ProblemWithBasicChallenge() {
        HttpResponse<String> response = send("GET", "/api/applications", null);

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.headers().allValues("WWW-Authenticate")).containsExactly("Basic realm=\"lockstep\"");
        assertProblem(response, 401, "UNAUTHENTICATED", "/api/applications");
    }

    @Test
    void wrongPasswordGets401Problem() {
        HttpResponse<String> response = send("GET", "/api/me", basic("alice", "not-the-password"));

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.headers().allValues("WWW-Authenticate")).containsExactly("Basic realm=\"lockstep\"");
        assertProblem(response, 401, "UNAUTHENTICATED", "/api/me");
    }

    @Test
    void unknownUserGets401Problem() {
        HttpResponse<String> response = send("GET", "/api/me", basic("mallory", Api.DEMO_PASSWORD));

        assertProblem(response, 401, "UNAUTHENTICATED", "/api/me");
    }

    @Test
    void applicantOnAdminEndpointGets403Problem() {
        HttpResponse<String> response = send("POST", "/api/admin/applications/1/terminate", basic("alice", Api.DEMO_PASSWORD));

        assertProblem(response, 403, "FORBIDDEN", "/api/admin/applications/1/terminate");
    }

    @Test
    void healthIsOpenToAnonymousCallers() {
        assertThat(send("GET", "/actuator/health", null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/actuator/health/liveness", null).statusCode()).isNotIn(401, 403);
        assertThat(send("GET", "/actuator/info", null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/actuator", null).statusCode()).isEqualTo(401);
    }

    @ParameterizedTest(name = "{0} is a demo user with roles [{1}] and groups [{2}]")
    @CsvSource(delimiter = '|', value = {
            "alice  | APPLICANT | ",
            "bob    | APPROVER  | managers",
            "carol  | APPROVER  | legal",
            "dave   | APPROVER  | finance",
            "frank  | APPROVER  | directors",
            "erin   | ADMIN     | ",
            "dba1   | DBA       | ",
            "dba2   | DBA       | ",
            "audrey | AUDITOR   | "})
    void demoUsersLogInWithPasswordLockstep(String user, String role, String group) {
        Api.Response response = api.get(user, "/api/me");

        assertThat(response.status()).as(response.toString()).isEqualTo(200);
        JsonNode me = response.json();
        assertThat(me.get("id").asString()).isEqualTo(user);
        assertThat(strings(me.get("roles"))).containsExactly(role);
        assertThat(strings(me.get("groups"))).isEqualTo(group == null ? List.of() : List.of(group));
    }

    @Test
    void metricsAreForAdminsOnly() {
        assertThat(send("GET", "/actuator/prometheus", basic("erin", Api.DEMO_PASSWORD)).statusCode()).isEqualTo(200);
        assertThat(api.get("erin", "/actuator/metrics").status()).isEqualTo(200);
        assertProblem(send("GET", "/actuator/prometheus", basic("bob", Api.DEMO_PASSWORD)), 403, "FORBIDDEN",
                "/actuator/prometheus");
        assertProblem(send("GET", "/actuator/metrics/jvm.threads.live", basic("dba1", Api.DEMO_PASSWORD)), 403,
                "FORBIDDEN", "/actuator/metrics/jvm.threads.live");
    }

    @Test
    void recoveryAndConsoleAreForDbasAuditorsMayOnlyReadTheAuditTrail() {
        // Not 401/403 means the request passed security; the endpoint itself may not exist on this branch.
        assertThat(api.get("dba1", "/api/recovery/in-doubt").status()).isNotIn(401, 403);
        assertThat(api.post("dba2", "/api/recovery/in-doubt/x/rollback", "{}").status())
                .as("a state-changing call by a DBA passes: no CSRF token is wanted").isNotIn(401, 403);
        assertThat(api.get("dba1", "/console/index.html").status()).isNotIn(401, 403);
        assertThat(api.get("dba1", "/api/recovery/audit/events").status()).isNotIn(401, 403);
        assertThat(api.get("audrey", "/api/recovery/audit/events").status()).isNotIn(401, 403);

        assertThat(api.get("audrey", "/api/recovery/in-doubt").status()).isEqualTo(403);
        assertThat(api.post("audrey", "/api/recovery/audit/events", "{}").status()).isEqualTo(403);
        assertThat(api.get("audrey", "/console/index.html").status()).isEqualTo(403);
        assertThat(api.get("erin", "/api/recovery/in-doubt").status()).isEqualTo(403);
        assertThat(api.get("bob", "/console/index.html").status()).isEqualTo(403);
    }

    @Test
    void apiDescriptionNeedsAnyLogin() {
        assertThat(send("GET", "/v3/api-docs", null).statusCode()).isEqualTo(401);
        assertThat(api.get("alice", "/v3/api-docs").status()).isEqualTo(200);
    }

    @Test
    void noSessionIsCreated() {
        HttpResponse<String> response = send("GET", "/api/me", basic("bob", Api.DEMO_PASSWORD));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().allValues("Set-Cookie")).isEmpty();
    }

    private void assertProblem(HttpResponse<String> response, int status, String code, String instance) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.get("code").asString()).isEqualTo(code);
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("title").asString()).isNotBlank();
        assertThat(problem.get("detail").asString()).isNotBlank();
        assertThat(problem.get("instance").asString()).isEqualTo(instance);
    }

    private static List<String> strings(JsonNode array) {
        return array.valueStream().map(JsonNode::asString).toList();
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private HttpResponse<String> send(String method, String path, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api.baseUrl() + path))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .header("Accept", "*/*");
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
