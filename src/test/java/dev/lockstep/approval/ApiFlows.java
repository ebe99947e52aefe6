package dev.lockstep.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.TestDatabases;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Small request recipes the approval and todo tests share. */
public final class ApiFlows {

    private ApiFlows() {
    }

    public static long createDraft(Api api, String riskLevel, boolean sensitive) {
        return createDraft(api, riskLevel, sensitive, "1200.50");
    }

    public static long createDraft(Api api, String riskLevel, boolean sensitive, String amount) {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "Publish asset", "assetId": 42, "amount": %s, "riskLevel": "%s", "sensitive": %s}
                """.formatted(amount, riskLevel, sensitive));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    /**
     * A draft of a new business type whose approved declarative flow is "release" (managers, with {@code deadline}: an
     * engine timer, as a deployed definition's deadline is), then "confirm" (finance).
     */
    public static long draftOnAFlowWithADeadline(Api api, String deadline) {
        String type = "DEADLINE_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8).toUpperCase(Locale.ROOT);
        Api.Response registered = api.post("erin", "/api/business-types", """
                {"key": "%s", "name": "Payment release", "routableFields": ["amount"], "publishes": false,
                 "schema": {"type": "object", "properties": {"amount": {"type": "number"}}}}""".formatted(type));
        assertThat(registered.status()).as(registered.toString()).isEqualTo(201);
        Api.Response proposed = api.post("erin", "/api/business-types/" + type + "/definitions", """
                {"name": "Quick release", "steps": [
                  {"id": "release", "name": "Release", "candidateGroups": ["managers"], "deadline": "%s"},
                  {"id": "confirm", "name": "Confirm", "candidateGroups": ["finance"]}]}""".formatted(deadline));
        assertThat(proposed.status()).as(proposed.toString()).isEqualTo(201);
        Api.Response approved = api.post("grace", "/api/business-types/" + type + "/definitions/1/approve", null);
        assertThat(approved.status()).as(approved.toString()).isEqualTo(200);
        Api.Response created = api.post("alice", "/api/applications",
                "{\"type\": \"%s\", \"title\": \"Release payment\", \"fields\": {\"amount\": 700}}".formatted(type));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }

    /** Submits as the applicant and returns the process instance id. */
    public static String submit(Api api, long applicationId) {
        Api.Response submitted = api.post("alice", "/api/applications/" + applicationId + "/submit", null, key());
        assertThat(submitted.status()).as(submitted.toString()).isEqualTo(200);
        return submitted.json().get("processInstanceId").asString();
    }

    public static String openTaskId(TestDatabases db, String processInstanceId, String taskDefinitionKey) {
        return db.workflow().queryForObject("select id_ from act_ru_task where proc_inst_id_ = ? and task_def_key_ = ?",
                String.class, processInstanceId, taskDefinitionKey);
    }

    public static Api.Response complete(Api api, String user, String taskId, String decision) {
        return api.post(user, "/api/tasks/" + taskId + "/complete", "{\"decision\":\"" + decision + "\"}", key());
    }

    /** Decides the run's open task of {@code step} as {@code user} and expects it to be accepted. */
    public static void decideStep(Api api, TestDatabases db, String user, String processInstanceId, String step, String decision) {
        Api.Response response = complete(api, user, openTaskId(db, processInstanceId, step), decision);
        assertThat(response.status()).as(response.toString()).isEqualTo(200);
    }

    /** Runs both requests at the same moment on two real threads and returns both responses. */
    public static List<Api.Response> race(Callable<Api.Response> one, Callable<Api.Response> other) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch start = new CountDownLatch(1);
            Future<Api.Response> first = threads.submit(() -> {
                start.await();
                return one.call();
            });
            Future<Api.Response> second = threads.submit(() -> {
                start.await();
                return other.call();
            });
            start.countDown();
            return List.of(first.get(), second.get());
        } finally {
            threads.shutdownNow();
        }
    }

    public static String key() {
        return UUID.randomUUID().toString();
    }
}
