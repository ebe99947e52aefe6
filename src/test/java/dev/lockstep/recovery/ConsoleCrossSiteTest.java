package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The console's session cannot be driven by another site: a cross-site POST that rides on the DBA's
 * session cookie (or on Basic credentials the browser cached) is refused and changes nothing, while the
 * console's own call with its CSRF token goes through and API clients with their own Authorization header
 * need no token. Plain HTTP, cookies handled by hand, so every header a browser would send is explicit.
 */
@LockstepIntegrationTest
class ConsoleCrossSiteTest {

    static final String EVIL = "https://evil.example";

    @Autowired TestDatabases databases;
    @Autowired DatabaseEndpoints endpoints;
    @Autowired Api api;

    final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @AfterEach
    void rollBackBranches() {
        PreparedBranches.rollBackAll(databases.business(), databases.workflow());
    }

    @Test
    void aCrossSitePostWithTheSessionCookieIsRefusedAndTheConsolesOwnCallPasses() throws Exception {
        long id = proposedByDba2();
        Session dba1 = logIn("dba1");

        HttpResponse<String> forged = send(HttpRequest.newBuilder(uri("/api/recovery/resolutions/" + id + "/approve"))
                .POST(HttpRequest.BodyPublishers.ofString(""))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Origin", EVIL).header("Sec-Fetch-Site", "cross-site")
                .header("Cookie", dba1.cookies()));

        assertThat(forged.statusCode()).as(forged.body()).isEqualTo(403);
        assertThat(forged.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(forged.body()).contains("\"code\":\"CSRF_TOKEN_INVALID\"");
        assertThat(status(id)).isEqualTo("PROPOSED");

        HttpResponse<String> console = send(HttpRequest.newBuilder(uri("/api/recovery/resolutions/" + id + "/approve"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .header("Origin", api.baseUrl()).header("Sec-Fetch-Site", "same-origin")
                .header("Cookie", dba1.cookies()).header("X-XSRF-TOKEN", dba1.csrfToken()));

        assertThat(console.statusCode()).as(console.body()).isEqualTo(200);
        assertThat(status(id)).isEqualTo("APPROVED");
        assertThat(databases.business().queryForObject("select approved_by from recovery_resolution where id = ?",
                String.class, id)).isEqualTo("dba1");
    }

    @Test
    void aSessionRequestWithoutTheTokenIsRefusedEvenFromTheSameSite() throws Exception {
        long id = proposedByDba2();
        Session dba1 = logIn("dba1");

        HttpResponse<String> noToken = send(HttpRequest.newBuilder(uri("/api/recovery/resolutions/" + id + "/approve"))
                .POST(HttpRequest.BodyPublishers.noBody()).header("Cookie", dba1.cookies()));

        assertThat(noToken.statusCode()).as(noToken.body()).isEqualTo(403);
        assertThat(status(id)).isEqualTo("PROPOSED");
    }

    /** A browser that once answered the Basic dialog attaches the credentials to any request to this host. */
    @Test
    void basicCredentialsCachedByABrowserDoNotMakeACrossSitePostPass() throws Exception {
        long id = proposedByDba2();

        HttpResponse<String> forged = send(HttpRequest.newBuilder(uri("/api/recovery/resolutions/" + id + "/approve"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .header("Authorization", basic("dba1")).header("Origin", EVIL));

        assertThat(forged.statusCode()).as(forged.body()).isEqualTo(403);
        assertThat(status(id)).isEqualTo("PROPOSED");

        // the same call from an API client (no Origin, as curl sends it) needs no token
        assertThat(api.post("dba1", "/api/recovery/resolutions/" + id + "/approve", null).status()).isEqualTo(200);
        assertThat(status(id)).isEqualTo("APPROVED");
    }

    @Test
    void theSessionCookieIsHttpOnlyAndSameSiteStrict() throws Exception {
        HttpResponse<String> login = postLogin("dba1", Api.DEMO_PASSWORD, csrfCookie());

        assertThat(login.statusCode()).isEqualTo(302);
        assertThat(login.headers().firstValue("Location").orElseThrow()).endsWith("/console/");
        String session = login.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("JSESSIONID="))
                .findFirst().orElseThrow();
        assertThat(session).containsIgnoringCase("HttpOnly").containsIgnoringCase("SameSite=Strict");
    }

    @Test
    void theLoginFormItselfNeedsTheToken() throws Exception {
        HttpResponse<String> forged = postLogin("dba1", Api.DEMO_PASSWORD, null);

        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(forged.headers().allValues("Set-Cookie")).noneMatch(c -> c.startsWith("JSESSIONID="));
    }

    @Test
    void anApiAnswerIsNotStoredAndNoPageMayFrameTheConsole() throws Exception {
        Api.Response me = api.get("dba1", "/api/me");
        assertThat(me.header("Cache-Control")).contains("no-store");
        assertThat(me.header("Content-Security-Policy")).contains("frame-ancestors 'none'");

        HttpResponse<String> loginPage = send(HttpRequest.newBuilder(uri("/console/login.html")).GET());
        assertThat(loginPage.statusCode()).isEqualTo(200);
        String policy = loginPage.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertThat(policy).contains("frame-ancestors 'none'", "script-src 'self'", "style-src 'self'")
                .doesNotContain("unsafe-inline", "unsafe-eval");
        assertThat(loginPage.headers().firstValue("X-Frame-Options")).hasValue("DENY");

        HttpResponse<String> console = send(HttpRequest.newBuilder(uri("/console/")).GET());
        assertThat(console.statusCode()).as("a console page without a session goes to the login form").isEqualTo(302);
        assertThat(console.headers().firstValue("Location").orElseThrow()).endsWith("/console/login.html");
    }

    /** The policy forbids inline script and style, so the pages must not rely on any. */
    @Test
    void theConsolePagesHaveNoInlineScriptOrStyle() throws Exception {
        for (String page : List.of("index.html", "login.html")) {
            String html = Files.readString(Path.of("src/main/resources/static/console", page));
            assertThat(html).as(page).doesNotContainPattern("<script(?![^>]*\\bsrc=)[^>]*>")
                    .doesNotContainPattern("(?i)<style|\\sstyle=|\\son[a-z]+=|javascript:");
        }
    }

    private long proposedByDba2() throws Exception {
        String owner = "gone-" + System.nanoTime() % 100000 + ".tm";
        String gtrid = PreparedBranches.newGtrid(owner);
        PreparedBranches prepared = new PreparedBranches(endpoints);
        prepared.prepareOnBusiness(PreparedBranches.atomikosXid(owner, gtrid));
        prepared.prepareOnWorkflow(PreparedBranches.atomikosXid(owner, gtrid));
        Api.Response proposed = api.post("dba2", "/api/recovery/resolutions",
                "{\"gtrid\": \"" + gtrid + "\", \"action\": \"ROLLBACK\", \"reason\": \"node decommissioned\"}");
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(200);
        return proposed.json().get("id").asLong();
    }

    private String status(long id) {
        return databases.business().queryForObject("select status from recovery_resolution where id = ?", String.class, id);
    }

    record Session(String sessionId, String csrfToken) {
        String cookies() {
            return "JSESSIONID=" + sessionId + "; XSRF-TOKEN=" + csrfToken;
        }
    }

    /** What the login page does in a browser: fetch the page (and its token cookie), post the form. */
    private Session logIn(String user) throws Exception {
        String token = csrfCookie();
        HttpResponse<String> login = postLogin(user, Api.DEMO_PASSWORD, token);
        assertThat(login.statusCode()).as(login.body()).isEqualTo(302);
        String sessionId = cookie(login, "JSESSIONID");
        // the token is renewed at login; the console page hands out the new one
        HttpResponse<String> page = send(HttpRequest.newBuilder(uri("/console/")).GET()
                .header("Cookie", "JSESSIONID=" + sessionId));
        assertThat(page.statusCode()).isEqualTo(200);
        return new Session(sessionId, cookie(page, "XSRF-TOKEN"));
    }

    private String csrfCookie() throws Exception {
        return cookie(send(HttpRequest.newBuilder(uri("/console/login.html")).GET()), "XSRF-TOKEN");
    }

    private HttpResponse<String> postLogin(String user, String password, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri("/login"))
                .POST(HttpRequest.BodyPublishers.ofString("username=" + URLEncoder.encode(user, StandardCharsets.UTF_8)
                        + "&password=" + URLEncoder.encode(password, StandardCharsets.UTF_8)))
                .header("Content-Type", "application/x-www-form-urlencoded");
        if (token != null) {
            request.header("Cookie", "XSRF-TOKEN=" + token).header("X-XSRF-TOKEN", token);
        }
        return send(request);
    }

    private static String cookie(HttpResponse<String> response, String name) {
        Pattern pattern = Pattern.compile("^" + name + "=([^;]+)");
        return response.headers().allValues("Set-Cookie").stream()
                .map(pattern::matcher).filter(Matcher::find).map(m -> m.group(1))
                .findFirst().orElseThrow(() -> new AssertionError("no " + name + " cookie in " + response.headers()));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create(api.baseUrl() + path);
    }

    private static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + Api.DEMO_PASSWORD).getBytes(StandardCharsets.UTF_8));
    }
}
