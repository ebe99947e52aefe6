package dev.lockstep.platform.security.login;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.LockstepIntegrationTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.test.context.TestPropertySource;

/**
 * Failed logins are limited per user name and per client address. Its own context with small limits, so
 * the lockouts it causes cannot reach other test classes; each test speaks HTTP from its own loopback
 * address (127.0.0.x), which is what the server sees as the client address.
 */
@LockstepIntegrationTest
@TestPropertySource(properties = {
        "lockstep.login-throttle.failures-per-user=3",
        "lockstep.login-throttle.failures-per-address=6",
        "lockstep.login-throttle.window=1h"})
class LoginThrottleTest {

    @Autowired Api api;
    @Autowired Environment environment;

    @Test
    void aUserWithTooManyFailedLoginsIsLockedOutEvenWithTheRightPasswordAndOthersAreNot() throws Exception {
        String from = "127.0.0.2";
        double lockoutsBefore = metric("lockstep_login_lockouts_total{scope=\"user\"}");
        for (int i = 0; i < 3; i++) {
            assertThat(get(from, "/api/me", basic("carol", "guess-" + i)).status()).isEqualTo(401);
        }

        Raw locked = get(from, "/api/me", basic("carol", Api.DEMO_PASSWORD));

        assertThat(locked.status()).as(locked.body()).isEqualTo(429);
        assertThat(locked.header("content-type")).startsWith("application/problem+json");
        assertThat(locked.body()).contains("\"code\":\"LOGIN_RATE_LIMITED\"");
        assertThat(Long.parseLong(locked.header("retry-after"))).isBetween(1L, 3600L);
        assertThat(get(from, "/api/me", basic("CAROL", Api.DEMO_PASSWORD)).status())
                .as("the name is case-insensitive at login, so is its lockout").isEqualTo(429);
        assertThat(get(from, "/api/me", basic("dave", Api.DEMO_PASSWORD)).status())
                .as("another user from the same address").isEqualTo(200);
        assertThat(metric("lockstep_login_lockouts_total{scope=\"user\"}")).isEqualTo(lockoutsBefore + 1);
    }

    @Test
    void anAddressTryingManyNamesIsLockedOutForEveryNameOthersAreNot() throws Exception {
        String from = "127.0.0.3";
        double lockoutsBefore = metric("lockstep_login_lockouts_total{scope=\"address\"}");
        for (int i = 0; i < 6; i++) {
            assertThat(get(from, "/api/me", basic("guess" + i, "lockstep")).status()).isEqualTo(401);
        }

        Raw locked = get(from, "/api/me", basic("frank", Api.DEMO_PASSWORD));

        assertThat(locked.status()).as(locked.body()).isEqualTo(429);
        assertThat(locked.body()).contains("\"code\":\"LOGIN_RATE_LIMITED\"", "from this address");
        assertThat(get("127.0.0.4", "/api/me", basic("frank", Api.DEMO_PASSWORD)).status())
                .as("the same user from another address").isEqualTo(200);
        assertThat(metric("lockstep_login_lockouts_total{scope=\"address\"}")).isEqualTo(lockoutsBefore + 1);
        assertThat(get(from, "/actuator/health", null).status()).as("requests without credentials pass").isEqualTo(200);
    }

    /**
     * Issue 29, item 7: the throttle must take its token before the password is checked. Fifty guesses sent at
     * the same moment would otherwise all find a token left and all be checked (401), whatever the allowance.
     */
    @Test
    void fiftyConcurrentWrongPasswordsGetNoMorePasswordChecksThanTheAllowance() throws Exception {
        String from = "127.0.0.6";
        int guesses = 50;
        ExecutorService threads = Executors.newFixedThreadPool(guesses);
        List<Integer> statuses;
        try {
            CyclicBarrier together = new CyclicBarrier(guesses);
            List<Future<Integer>> answers = new java.util.ArrayList<>();
            for (int i = 0; i < guesses; i++) {
                String password = "concurrent-guess-" + i;
                answers.add(threads.submit(() -> {
                    together.await();
                    return get(from, "/api/me", basic("audrey", password)).status();
                }));
            }
            statuses = new java.util.ArrayList<>();
            for (Future<Integer> answer : answers) {
                statuses.add(answer.get());
            }
        } finally {
            threads.shutdownNow();
        }

        long checked = statuses.stream().filter(status -> status == 401).count();
        assertThat(statuses).as("every guess is either checked and refused, or throttled").isSubsetOf(401, 429);
        assertThat(checked).as("guesses that reached the password check (401) of " + statuses)
                .isPositive().isLessThanOrEqualTo(3);
        assertThat(get(from, "/api/me", basic("audrey", Api.DEMO_PASSWORD)).status())
                .as("the allowance is used up: the right password waits too").isEqualTo(429);
    }

    @Test
    void theConsoleLoginFormIsLimitedToo() throws Exception {
        String from = "127.0.0.5";
        String token = cookie(get(from, "/console/login.html", null), "XSRF-TOKEN");
        for (int i = 0; i < 3; i++) {
            Raw failed = postLogin(from, "dba2", "guess-" + i, token);
            assertThat(failed.status()).isEqualTo(302);
            assertThat(failed.header("location")).endsWith("/console/login.html?error");
        }

        Raw locked = postLogin(from, "dba2", Api.DEMO_PASSWORD, token);

        assertThat(locked.status()).as(locked.body()).isEqualTo(429);
        assertThat(locked.body()).contains("\"code\":\"LOGIN_RATE_LIMITED\"");
        assertThat(locked.header("set-cookie")).as("no session for a locked-out login").doesNotContain("JSESSIONID");
    }

    @Test
    void theLockoutMetricCarriesNoUserNames() {
        String metrics = api.get("erin", "/actuator/prometheus", "text/plain").body();

        List<String> lines = metrics.lines().filter(line -> line.startsWith("lockstep_login_")).toList();
        assertThat(lines).isNotEmpty().allSatisfy(line -> assertThat(line).matches("lockstep_login_[a-z_]+\\{scope=\"(user|address)\"\\} .*"));
    }

    private double metric(String series) {
        return api.get("erin", "/actuator/prometheus", "text/plain").body().lines()
                .filter(line -> line.startsWith(series + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1)))
                .findFirst().orElse(0);
    }

    private Raw postLogin(String from, String user, String password, String token) throws IOException {
        String form = "username=" + user + "&password=" + password;
        return send(from, "POST /login", Map.of("Cookie", "XSRF-TOKEN=" + token, "X-XSRF-TOKEN", token,
                "Content-Type", "application/x-www-form-urlencoded"), form);
    }

    private Raw get(String from, String path, String authorization) throws IOException {
        return send(from, "GET " + path, authorization == null ? Map.of() : Map.of("Authorization", authorization), "");
    }

    /** One HTTP/1.1 exchange over a socket bound to {@code from}, which java.net.http cannot do on Java 17. */
    private Raw send(String from, String requestLine, Map<String, String> headers, String body) throws IOException {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(environment.getProperty("local.server.port"))));
            socket.setSoTimeout(30_000);
            StringBuilder request = new StringBuilder(requestLine).append(" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
            headers.forEach((name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
            byte[] content = body.getBytes(StandardCharsets.UTF_8);
            request.append("Content-Length: ").append(content.length).append("\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(content);
            out.flush();
            return Raw.parse(readAll(socket.getInputStream()));
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        in.transferTo(bytes);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static String cookie(Raw response, String name) {
        Matcher matcher = Pattern.compile(name + "=([^;]+)").matcher(response.header("set-cookie"));
        assertThat(matcher.find()).as("cookie " + name + " in " + response.headers()).isTrue();
        return matcher.group(1);
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** Status, headers (names lower case, repeated ones joined by newlines) and body of a raw answer. */
    record Raw(int status, Map<String, String> headers, String body) {

        static Raw parse(String response) {
            int split = response.indexOf("\r\n\r\n");
            List<String> head = response.substring(0, split).lines().toList();
            Map<String, String> headers = new LinkedHashMap<>();
            head.stream().skip(1).forEach(line -> {
                int colon = line.indexOf(':');
                headers.merge(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim(),
                        (a, b) -> a + "\n" + b);
            });
            return new Raw(Integer.parseInt(head.get(0).split(" ")[1]), headers, response.substring(split + 4));
        }

        String header(String name) {
            return headers.getOrDefault(name, "");
        }
    }
}
