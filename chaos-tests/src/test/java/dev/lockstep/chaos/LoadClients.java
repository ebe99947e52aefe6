package dev.lockstep.chaos;

import dev.lockstep.chaos.support.LockstepClient.Answer;
import dev.lockstep.chaos.support.LockstepClient;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Concurrent clients doing the real work of the service and remembering every answer they got, so the
 * test can check each one against the databases. Each client takes one new application at a time
 * through a {@link Journey}. Every request that changes something carries an Idempotency-Key.
 *
 * <p>{@link #LoadClients(LockstepClient, int)}: the final-decision journey only, each request sent once
 * (scenario 13: the kill cuts some off for good). {@link #everyUseCase}: every journey, and a request
 * without an answer (the service was killed) or answered 503 / 409 {@code RESOURCE_LOCKED} is sent again
 * with the same key until the service gives a final answer, as a client does across a restart.
 */
public final class LoadClients {

    public enum Kind { CREATE, SUBMIT, COMPLETE, RETURN, WITHDRAW }

    /** One application's way through the use cases: the decisions after its submit. */
    public enum Journey {
        /** Manager, then the final decision that ends the process (APPROVED). */
        FINAL_DECISION,
        /**
         * A sensitive application: manager; the applicant's withdraw, which the service refuses once an approver
         * has decided (409 APPROVAL_ALREADY_STARTED: nothing of it may be stored); legal and finance decided at
         * the same time (the join); final decision.
         */
        PARALLEL_REVIEWS,
        /** As PARALLEL_REVIEWS, but the final step first returns into the review fork, which is decided again. */
        RETURN_INTO_FORK,
        /** An ALL countersign: bob's and carol's votes at the same time, the later one decides the step. */
        COUNTERSIGN_VOTE,
        /** The applicant withdraws before any decision (CANCELED). */
        WITHDRAW
    }

    /**
     * One request: {@code answer} is the last one the client got; {@code earlier} the answers to the same
     * key before it (no answer while the service was down, or an answer that says to retry); {@code sent} what
     * was sent, so that it can be sent again.
     */
    public record Request(Kind kind, Long applicationId, String key, Answer answer, List<Answer> earlier, Sent sent) {

        /** The first attempt got no answer, a later one with the same key did. */
        public boolean unknownThenResolved() {
            return answer.answered() && earlier.stream().anyMatch(a -> !a.answered());
        }

        /** An attempt was cut off after the connection was made (the kill hit it in flight), not refused a connection. */
        public boolean cutOffInFlight() {
            return earlier.stream().anyMatch(a -> !a.answered() && !a.error().startsWith("java.net.ConnectException"));
        }

        /** The same request again, with the same Idempotency-Key, as a client that heard no answer sends it. */
        public Answer sendAgain(LockstepClient client) {
            return client.send(sent.user(), "POST", sent.path(), sent.body(), key);
        }

        @Override
        public String toString() {
            return kind + " app " + applicationId + " key " + key + " -> " + answer
                    + (earlier.isEmpty() ? "" : " (after " + earlier.size() + " earlier attempt(s))");
        }
    }

    /** How long a client keeps resending one request: longer than a restart on a busy machine takes. */
    private static final Duration RESOLVE_WITHIN = Duration.ofMinutes(6);

    private final LockstepClient client;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final boolean resendUntilAnswered;
    /** Sends the second of two decisions taken at the same time. */
    private final ExecutorService parallel = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "chaos-client-parallel");
        t.setDaemon(true);
        return t;
    });

    public LoadClients(LockstepClient client, int clients) {
        this(client, clients, false, i -> () -> Journey.FINAL_DECISION);
    }

    /** {@code clients} clients, each taking journeys in an order drawn from {@code seed} and its number. */
    public static LoadClients everyUseCase(LockstepClient client, int clients, long seed) {
        return new LoadClients(client, clients, true, i -> {
            Random random = new Random(seed + i);
            return () -> Journey.values()[random.nextInt(Journey.values().length)];
        });
    }

    /**
     * {@code clients} clients taking the final-decision journey (create, submit, manager's and final approval), each
     * request sent again with the same Idempotency-Key until it has a final answer, as {@link #everyUseCase} does.
     */
    public static LoadClients finalDecisions(LockstepClient client, int clients) {
        return new LoadClients(client, clients, true, i -> () -> Journey.FINAL_DECISION);
    }

    private interface Journeys {
        Journey next();
    }

    private LoadClients(LockstepClient client, int clients, boolean resendUntilAnswered,
            java.util.function.IntFunction<Journeys> journeys) {
        this.client = client;
        this.resendUntilAnswered = resendUntilAnswered;
        for (int i = 0; i < clients; i++) {
            Journeys own = journeys.apply(i);
            threads.add(new Thread(() -> {
                while (running.get()) {
                    travel(own.next());
                }
            }, "chaos-client-" + i));
        }
    }

    public void start() {
        threads.forEach(Thread::start);
    }

    /** Lets each client finish the request it is on (resending it until answered, where it does), then stops them. */
    public void stopAndJoin() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(RESOLVE_WITHIN.plusMinutes(1).toMillis());
        }
        parallel.shutdown();
    }

    private void travel(Journey journey) {
        boolean reviews = journey == Journey.PARALLEL_REVIEWS || journey == Journey.RETURN_INTO_FORK;
        Long id = create(reviews, journey == Journey.COUNTERSIGN_VOTE);
        if (id == null || !decided(Kind.SUBMIT, id, "alice", "/api/applications/" + id + "/submit", null)) {
            return;
        }
        switch (journey) {
            case FINAL_DECISION -> {
                if (approve(id, "bob", "managerApproval")) {
                    approve(id, "frank", "finalApproval");
                }
            }
            case PARALLEL_REVIEWS -> {
                if (approve(id, "bob", "managerApproval") && withdrawRefused(id) && reviews(id)) {
                    approve(id, "frank", "finalApproval");
                }
            }
            case RETURN_INTO_FORK -> {
                if (approve(id, "bob", "managerApproval") && reviews(id) && returnIntoFork(id) && reviews(id)) {
                    approve(id, "frank", "finalApproval");
                }
            }
            case COUNTERSIGN_VOTE -> both(() -> vote(id, "bob"), () -> vote(id, "carol"));
            case WITHDRAW -> decided(Kind.WITHDRAW, id, "alice", "/api/applications/" + id + "/withdraw", "{\"reason\":\"load\"}");
        }
    }

    private Long create(boolean sensitive, boolean countersign) {
        if (!running.get()) {
            return null;
        }
        String key = LockstepClient.newKey();
        Answer created = resolve("alice", "POST", "/api/applications", "{\"title\":\"load\",\"assetId\":7,\"amount\":10.00,"
                + "\"riskLevel\":\"LOW\",\"sensitive\":" + sensitive
                + (countersign ? ",\"countersign\":{\"signers\":[\"bob\",\"carol\"],\"policy\":\"ALL\"}" : "") + "}", key, Kind.CREATE, null);
        return created.succeeded() ? created.json().get("id").asLong() : null;
    }

    /** Legal and finance decide the application at the same time; the later of the two passes the join. */
    private boolean reviews(long id) {
        return both(() -> approve(id, "carol", "legalReview"), () -> approve(id, "dave", "financeReview"));
    }

    /** A withdraw the service must refuse; false if it succeeded. */
    private boolean withdrawRefused(long id) {
        if (!running.get()) {
            return true;
        }
        Answer answer = resolve("alice", "POST", "/api/applications/" + id + "/withdraw", "{\"reason\":\"too late\"}",
                LockstepClient.newKey(), Kind.WITHDRAW, id);
        return !answer.succeeded();
    }

    private boolean returnIntoFork(long id) {
        String task = awaitOpenTask(id, "finalApproval", null);
        return task != null && decided(Kind.RETURN, id, "frank", "/api/tasks/" + task + "/return",
                "{\"targetActivityId\":\"reviewFork\",\"mode\":\"RERUN\",\"reason\":\"both reviews again\"}");
    }

    private boolean vote(long id, String signer) {
        String task = awaitOpenTask(id, "countersign", signer);
        return task != null && decided(Kind.COMPLETE, id, signer, "/api/tasks/" + task + "/complete",
                "{\"decision\":\"APPROVE\",\"comment\":\"vote\"}");
    }

    private boolean approve(long id, String user, String taskKey) {
        String task = awaitOpenTask(id, taskKey, null);
        return task != null && decided(Kind.COMPLETE, id, user, "/api/tasks/" + task + "/complete",
                "{\"decision\":\"APPROVE\",\"comment\":\"ok\"}");
    }

    /** Both steps at once (the second on another thread); true if both succeeded. */
    private boolean both(BooleanSupplier first, BooleanSupplier second) {
        Future<Boolean> other = parallel.submit(second::getAsBoolean);
        boolean one = first.getAsBoolean();
        try {
            return other.get() && one;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /** A POST with a new Idempotency-Key, recorded; true if it succeeded. */
    private boolean decided(Kind kind, long id, String user, String path, String body) {
        return running.get() && resolve(user, "POST", path, body, LockstepClient.newKey(), kind, id).succeeded();
    }

    private Answer resolve(String user, String method, String path, String body, String key, Kind kind, Long id) {
        List<Answer> earlier = new ArrayList<>();
        long deadline = System.nanoTime() + RESOLVE_WITHIN.toNanos();
        Answer answer = client.send(user, method, path, body, key);
        while (resendUntilAnswered && retryLater(answer) && System.nanoTime() < deadline) {
            earlier.add(answer);
            ChaosHarness.sleep(1000);
            answer = client.send(user, method, path, body, key);
        }
        Long applicationId = id != null ? id : answer.succeeded() ? Long.valueOf(answer.json().get("id").asLong()) : null;
        requests.add(new Request(kind, applicationId, key, answer, List.copyOf(earlier), new Sent(user, path, body)));
        return answer;
    }

    /** No answer (the service is down or was killed mid-request), or an answer that says to try again later. */
    private static boolean retryLater(Answer answer) {
        return !answer.answered() || answer.status() == 503
                || answer.status() == 409 && "RESOURCE_LOCKED".equals(answer.json().path("code").asString());
    }

    /** The open task, reading the application again while the service does not answer (resending clients only). */
    private String awaitOpenTask(long id, String taskKey, String assignee) {
        long deadline = System.nanoTime() + RESOLVE_WITHIN.toNanos();
        while (running.get()) {
            Answer details = client.application(id);
            if (details.succeeded() || !resendUntilAnswered || System.nanoTime() > deadline) {
                return details.succeeded() ? LockstepClient.openTask(details, taskKey, assignee) : null;
            }
            ChaosHarness.sleep(1000);
        }
        return null;
    }

    /** What the business database holds of one request: all of it, none of it, or a part (a defect). */
    /** Who sent a request (all are POSTs), where, and its body. */
    public record Sent(String user, String path, String body) {
    }

    public enum Held { ALL, NONE, PART }

    /**
     * Read with plain SQL: the command record of the request's Idempotency-Key (stored in the use case's own
     * transaction) and the request's effect: the draft, the submit's process binding, the decision's approval
     * record, the withdrawal's application event.
     */
    public static Held held(Connection business, Request r) throws SQLException {
        boolean command = ChaosHarness.one(business, "select count(*) from workflow_command where request_id = ?"
                + " and command_status = 'SUCCEEDED'", r.key()).equals("1");
        String effect = switch (r.kind()) {
            case CREATE -> "select count(*) from application where id = (select cast(business_id as bigint)"
                    + " from workflow_command where request_id = ?)";
            case SUBMIT -> "select count(*) from business_process_binding where business_id = ?";
            case COMPLETE -> "select count(*) from approval_record where request_id = ? and decision = 'APPROVE'";
            case RETURN -> "select count(*) from approval_record where request_id = ? and decision = 'RETURN'";
            case WITHDRAW -> "select count(*) from application_event where request_id = ? and kind = 'WITHDRAWN'";
        };
        Object parameter = r.kind() == Kind.SUBMIT ? String.valueOf(r.applicationId()) : r.key();
        boolean effected = !ChaosHarness.one(business, effect, parameter).equals("0");
        return command && effected ? Held.ALL : !command && !effected ? Held.NONE : Held.PART;
    }

    public List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    /** Waits until the clients have this many acknowledged requests: the service is under real load. */
    public void awaitSucceeded(long count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (succeeded() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + succeeded() + " acknowledged requests after " + timeout + ": " + summary());
            }
            Thread.sleep(100);
        }
    }

    public long succeeded() {
        return requests().stream().filter(r -> r.answer().succeeded()).count();
    }

    public String summary() {
        List<Request> all = requests();
        StringBuilder out = new StringBuilder();
        for (Kind kind : Kind.values()) {
            List<Request> ofKind = all.stream().filter(r -> r.kind() == kind).toList();
            out.append(kind).append(": ").append(ofKind.size()).append(" sent, ")
                    .append(ofKind.stream().filter(r -> r.answer().succeeded()).count()).append(" succeeded, ")
                    .append(ofKind.stream().filter(r -> r.answer().answered() && !r.answer().succeeded()).count()).append(" refused, ")
                    .append(ofKind.stream().filter(r -> !r.answer().answered()).count()).append(" without answer, ")
                    .append(ofKind.stream().filter(Request::unknownThenResolved).count()).append(" answered only after a resend\n");
        }
        return out.toString().trim();
    }

    /**
     * Each request against the business database, and every stored change against the requests: what was acknowledged
     * but is not held in full, what was refused but is held, and changes no client was told of (duplicates, phantoms).
     */
    public record Verdicts(List<String> missing, List<String> leaked, List<String> unasked) {

        @Override
        public String toString() {
            return missing.size() + " acknowledged but not in full, " + leaked.size() + " refused but held, "
                    + unasked.size() + " changes no client was told of";
        }
    }

    /** Reads the business database with plain SQL on {@code b}: see {@link Verdicts}. */
    public static Verdicts verdicts(Connection b, List<Request> requests) throws SQLException {
        List<String> missing = new ArrayList<>();
        List<String> leaked = new ArrayList<>();
        List<String> unasked = new ArrayList<>();
        for (Request r : requests) {
            Held held = held(b, r);
            if (r.answer().succeeded() && held != Held.ALL) {
                missing.add(held + ": " + r);
            } else if (r.answer().answered() && !r.answer().succeeded() && held != Held.NONE) {
                leaked.add(held + ": " + r);
            }
        }
        // every stored request id, and every effect row, belongs to exactly one acknowledged request of its kind
        unasked.addAll(notAcknowledged(b, "select request_id from workflow_command", requests, EnumSet.allOf(Kind.class)));
        unasked.addAll(notAcknowledged(b, "select request_id from approval_record", requests, EnumSet.of(Kind.COMPLETE, Kind.RETURN)));
        unasked.addAll(notAcknowledged(b, "select request_id from application_event", requests, EnumSet.of(Kind.WITHDRAW)));
        unasked.addAll(notAcknowledged(b, "select w.request_id from application a left join workflow_command w"
                + " on w.command_type = 'CREATE' and w.business_id = cast(a.id as varchar)", requests, EnumSet.of(Kind.CREATE)));
        unasked.addAll(notAcknowledged(b, "select w.request_id from business_process_binding p left join workflow_command w"
                + " on w.command_type = 'SUBMIT' and w.business_id = p.business_id", requests, EnumSet.of(Kind.SUBMIT)));
        return new Verdicts(missing, leaked, unasked);
    }

    /** The rows of {@code sql} (one request id each, null for a row no command record explains) that no acknowledged request of those kinds sent. */
    private static List<String> notAcknowledged(Connection b, String sql, List<Request> requests, Set<Kind> kinds) throws SQLException {
        Set<String> acknowledged = requests.stream().filter(r -> r.answer().succeeded() && kinds.contains(r.kind()))
                .map(Request::key).collect(Collectors.toCollection(HashSet::new));
        List<String> out = new ArrayList<>();
        Set<String> seen = new TreeSet<>();
        try (ResultSet rows = b.createStatement().executeQuery(sql)) {
            while (rows.next()) {
                String key = rows.getString(1);
                if (key == null || !acknowledged.contains(key) || !seen.add(key)) {
                    out.add(sql + ": " + key);
                }
            }
        }
        return out;
    }
}
