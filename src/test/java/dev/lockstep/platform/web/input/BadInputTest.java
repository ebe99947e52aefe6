package dev.lockstep.platform.web.input;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.approval.ApiFlows;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Bad input is refused at the edge: control characters in any text the service is sent with 400
 * VALIDATION_FAILED naming the field, before a use case runs; query parameters before they reach a
 * statement; requests refused before any controller (firewall, Tomcat) still as problem+json.
 */
@LockstepIntegrationTest
class BadInputTest {

    @Autowired Api api;
    @Autowired TestDatabases databases;

    /** The fuzz run's 500: a NUL in the reason reached PostgreSQL inside an engine listener. */
    @Test
    void aWithdrawWhoseReasonHoldsANulIsRefusedAndChangesNothing() {
        long id = ApiFlows.createDraft(api, "LOW", false);
        ApiFlows.submit(api, id);

        Api.Response refused = api.post("alice", "/api/applications/" + id + "/withdraw",
                "{\"reason\": \"changed my mind\\u0000\"}", ApiFlows.key());

        assertValidationFailed(refused, "reason");
        assertThat(databases.business().queryForObject("select approval_status from application where id = ?",
                String.class, id)).isEqualTo("APPROVING");
        assertThat(databases.business().queryForObject(
                "select count(*) from workflow_command where business_id = ? and command_type = 'WITHDRAW'",
                Integer.class, String.valueOf(id))).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"\\u0001", "\\u001b[31m", "\\u007f", "\\u0085", "\\u009b", "\\ud800"})
    void everyKindOfControlCharacterInATitleIsRefused(String hostile) {
        Api.Response refused = api.post("alice", "/api/applications", """
                {"title": "Publish %s asset", "assetId": 42, "amount": 10, "riskLevel": "LOW", "sensitive": false}
                """.formatted(hostile), ApiFlows.key());

        assertValidationFailed(refused, "title");
    }

    @Test
    void aControlCharacterInANestedListNamesItsPath() {
        Api.Response refused = api.post("alice", "/api/applications", """
                {"title": "Countersign", "assetId": 42, "amount": 10, "riskLevel": "LOW", "sensitive": false,
                 "countersign": {"signers": ["bob", "car\\u0000ol"], "policy": "ALL"}}
                """, ApiFlows.key());

        assertValidationFailed(refused, "countersign.signers[1]");
    }

    @Test
    void tabsAndLineBreaksInFreeTextAreKept() {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "Two\\tcolumns", "description": "line one\\r\\nline two\\n", "assetId": 42, "amount": 10,
                 "riskLevel": "LOW", "sensitive": false}
                """, ApiFlows.key());

        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(databases.business().queryForObject("select description from application where id = ?",
                String.class, created.json().get("id").asLong())).isEqualTo("line one\r\nline two\n");
    }

    @Test
    void aControlCharacterInAQueryParameterIsRefusedBeforeTheQuery() {
        Api.Response refused = api.get("alice", "/api/applications?applicant=al%00ice");

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.json().get("code").asString()).isEqualTo("VALIDATION_FAILED");
        assertThat(refused.json().get("detail").asString()).contains("'applicant'", "U+0000");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/api/recovery/resolutions?limit=-1", "/api/recovery/heuristics?limit=-5",
            "/api/recovery/audit?limit=0", "/api/recovery/resolutions?limit=2147483647", "/api/recovery/audit?limit=1001"})
    void recoveryLimitsOutOfRangeAreRefusedBeforeTheStatement(String path) {
        Api.Response refused = api.get("dba1", path);

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.json().get("code").asString()).isEqualTo("VALIDATION_FAILED");
        assertThat(refused.json().get("detail").asString()).contains("limit");
    }

    /** Found by the fuzz run: the firewall's refusal used to leave as Spring Boot's JSON, without a code. */
    @Test
    void aPathTheFirewallRefusesIsAProblemWithACode() {
        Api.Response refused = api.get("erin", "/api/tasks/../return-targets");

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.json().get("code").asString()).isEqualTo("BAD_REQUEST");
    }

    /**
     * The firewall checks each header the service reads ({@code HeaderCharacters}): a C1 control character, which
     * Tomcat passes on as ISO-8859-1 text, is refused; a tab inside a value is not. Sent on a socket, byte for byte:
     * java.net.http sends header values as US-ASCII and would turn the control character into '?'.
     */
    @Test
    void aControlCharacterInAHeaderTheServiceReadsIsRefusedByTheFirewall() throws IOException {
        String refused = rawGet("/api/applications", "Accept: application/json\u0085");

        assertThat(refused).startsWith("HTTP/1.1 400").contains("application/problem+json").contains("\"code\":\"BAD_REQUEST\"");
        assertThat(rawGet("/api/applications", "Accept: application/json,\tapplication/problem+json")).startsWith("HTTP/1.1 200");
    }

    private String rawGet(String path, String header) throws IOException {
        try (Socket socket = new Socket("localhost", URI.create(api.baseUrl()).getPort())) {
            socket.setSoTimeout(30_000);
            String credentials = Base64.getEncoder().encodeToString(("alice:" + Api.DEMO_PASSWORD).getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic " + credentials
                    + "\r\n" + header + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /** Found by the fuzz run: Tomcat's own refusal of an oversized request line was an HTML page. */
    @Test
    void aRequestLineTooLargeForTheServerIsAProblemWithACode() {
        Api.Response refused = api.get("alice", "/api/applications?applicant=" + "y".repeat(20_000));

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.json().get("code").asString()).isEqualTo("BAD_REQUEST");
    }

    /** Found by the 10,000-request fuzz run: page * size past Integer.MAX_VALUE was a 500 from Spring Data. */
    @Test
    void aPageNumberWhoseOffsetNoQueryCanTakeIsRefused() {
        Api.Response refused = api.get("carol", "/api/applications?status=REJECTED&page=885524884");

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.json().get("code").asString()).isEqualTo("VALIDATION_FAILED");
        assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("page");
    }

    private static void assertValidationFailed(Api.Response refused, String field) {
        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.json().get("code").asString()).isEqualTo("VALIDATION_FAILED");
        assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo(field);
    }
}
