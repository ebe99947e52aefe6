package dev.lockstep.chaos;

import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.LockstepClient;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Concurrent clients doing the real work of the service (create, submit, approve twice) and
 * remembering every answer they got, so the test can check each one against the databases.
 */
final class LoadClients {

    enum Kind { CREATE, SUBMIT, COMPLETE }

    record Request(Kind kind, Long applicationId, String key, Answer answer) {
        @Override
        public String toString() {
            return kind + " app " + applicationId + " key " + key + " -> " + answer;
        }
    }

    private final LockstepClient client;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean running = new AtomicBoolean(true);

    LoadClients(LockstepClient client, int clients) {
        this.client = client;
        for (int i = 0; i < clients; i++) {
            threads.add(new Thread(this::loop, "chaos-client-" + i));
        }
    }

    void start() {
        threads.forEach(Thread::start);
    }

    void stopAndJoin() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(120_000);
        }
    }

    private void loop() {
        while (running.get()) {
            Answer created = client.send("alice", "POST", "/api/applications",
                    "{\"title\":\"load\",\"assetId\":7,\"amount\":10.00,\"riskLevel\":\"LOW\",\"sensitive\":false}", null);
            Long id = created.succeeded() ? created.json().get("id").asLong() : null;
            requests.add(new Request(Kind.CREATE, id, null, created));
            if (id == null) {
                continue;
            }
            String submitKey = LockstepClient.newKey();
            Answer submitted = client.submit(id, submitKey);
            requests.add(new Request(Kind.SUBMIT, id, submitKey, submitted));
            if (!submitted.succeeded() || !approve(id, "bob", "managerApproval")) {
                continue;
            }
            approve(id, "frank", "finalApproval");
        }
    }

    private boolean approve(long id, String user, String taskKey) {
        String task = client.openTask(id, taskKey);
        if (task == null || !running.get()) {
            return false;
        }
        String key = LockstepClient.newKey();
        Answer answer = client.complete(user, task, key);
        requests.add(new Request(Kind.COMPLETE, id, key, answer));
        return answer.succeeded();
    }

    List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    /** Waits until the clients have this many acknowledged requests: the service is under real load. */
    void awaitSucceeded(long count, java.time.Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (succeeded() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + succeeded() + " acknowledged requests after " + timeout + ": " + summary());
            }
            Thread.sleep(100);
        }
    }

    long succeeded() {
        return requests().stream().filter(r -> r.answer().succeeded()).count();
    }

    String summary() {
        List<Request> all = requests();
        StringBuilder out = new StringBuilder();
        for (Kind kind : Kind.values()) {
            List<Request> ofKind = all.stream().filter(r -> r.kind() == kind).toList();
            out.append(kind).append(": ").append(ofKind.size()).append(" sent, ")
                    .append(ofKind.stream().filter(r -> r.answer().succeeded()).count()).append(" succeeded, ")
                    .append(ofKind.stream().filter(r -> r.answer().answered() && !r.answer().succeeded()).count()).append(" refused, ")
                    .append(ofKind.stream().filter(r -> !r.answer().answered()).count()).append(" without answer\n");
        }
        return out.toString().trim();
    }
}
