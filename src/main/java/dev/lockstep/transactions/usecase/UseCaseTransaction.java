package dev.lockstep.transactions.usecase;

import dev.lockstep.platform.AreaApi;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.security.Roles;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.businessonly.BusinessOnlyTransactions;
import dev.lockstep.transactions.contention.RunningTransactions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.hibernate.exception.ConstraintViolationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.transaction.HeuristicCompletionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Where every use case begins and commits: one JTA transaction over both databases (two-phase commit
 * at the end of {@link #run}), with the Idempotency-Key's command record and the intent journal in
 * it; a use case that touches the business database alone ({@link UseCase#businessOnly()}) runs the
 * same way in a local transaction of that database. A use case runs at most once per key: the key is
 * claimed, the work done and the response stored in the same transaction, so a stored response always belongs to committed work; a retry with the
 * same key and body gets the same status and body, a different body gets 422.
 */
@Component
@AreaApi
public class UseCaseTransaction {

    public static final String HEADER = "Idempotency-Key";
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    private static final Pattern KEY_SHAPE = Pattern.compile("[\\x21-\\x7E]{1,128}");
    private static final String PRIMARY_KEY = "workflow_command_pkey";
    private static final Logger log = LoggerFactory.getLogger(UseCaseTransaction.class);

    private final WorkflowCommandRepository commands;
    private final TransactionTemplate transaction;
    private final TransactionTemplate businessOnlyTransaction;
    private final Optional<IntentJournaling> journal;
    private final RunningTransactions running;
    private final JsonMapper json;
    private final Clock clock;

    public UseCaseTransaction(WorkflowCommandRepository commands, PlatformTransactionManager transactionManager,
            @Qualifier(BusinessOnlyTransactions.MANAGER) PlatformTransactionManager businessOnly,
            ObjectProvider<IntentJournaling> journal, RunningTransactions running, JsonMapper json, Clock clock) {
        this.commands = commands;
        this.transaction = new TransactionTemplate(transactionManager);
        this.businessOnlyTransaction = new TransactionTemplate(businessOnly);
        this.journal = Optional.ofNullable(journal.getIfAvailable());
        this.running = running;
        this.json = json;
        this.clock = clock;
    }

    /**
     * Runs {@code work} as the use case {@code useCase} of the current caller on {@code target}, in one
     * JTA transaction that commits (two-phase where both databases took part) before this returns.
     * Where the use case takes an Idempotency-Key, {@code idempotencyKey} and {@code body} identify the
     * request for replay; a use case that only may take one runs once without it. It begins in its turn among the
     * transactions running on this node ({@link RunningTransactions}).
     */
    public ResponseEntity<String> run(UseCase useCase, Target target, String idempotencyKey, Object body,
            Function<UseCaseCall, UseCaseResult> work) {
        return running.inTurn(() -> runInTurn(useCase, target, idempotencyKey, body, work));
    }

    private ResponseEntity<String> runInTurn(UseCase useCase, Target target, String idempotencyKey, Object body,
            Function<UseCaseCall, UseCaseResult> work) {
        Caller caller = Caller.current();
        String key = useCase.key() == UseCase.Key.NONE ? null : idempotencyKey;
        UseCaseCall call = new UseCaseCall(useCase, key, caller, journal);
        Supplier<UseCaseResult> command = () -> call.running(() -> work.apply(call));
        TransactionTemplate transaction = useCase.businessOnly() ? businessOnlyTransaction : this.transaction;
        try {
            if (key == null && useCase.key() != UseCase.Key.REQUIRED) {
                UseCaseResult outcome = transaction.execute(status -> command.get());
                return ResponseEntity.status(outcome.status()).contentType(MediaType.APPLICATION_JSON)
                        .body(json.writeValueAsString(outcome.body()));
            }
            return runOnce(transaction, caller, new CommandRequest(key, useCase.commandType(), target.type(), target.id(),
                    caller.id(), body), command);
        } catch (HeuristicCompletionException e) {
            if (e.getOutcomeState() != HeuristicCompletionException.STATE_ROLLED_BACK) {
                call.endedHeuristically(HeuristicCompletionException.getStateString(e.getOutcomeState()));
            }
            throw e;
        }
    }

    private ResponseEntity<String> runOnce(TransactionTemplate transaction, Caller caller, CommandRequest request,
            Supplier<UseCaseResult> command) {
        requireValidKey(request.idempotencyKey());
        refuseWhileOutcomeIsBeingResolved(request.idempotencyKey());
        String fingerprint = fingerprint(request);
        try {
            return transaction.execute(status -> replayOrRun(caller, request, fingerprint, command));
        } catch (DataIntegrityViolationException e) {
            if (!isViolationOf(e, PRIMARY_KEY)) {
                throw e;
            }
            // A concurrent request with the same key committed first: answer with its stored response.
            return transaction.execute(status -> replay(commands.findById(request.idempotencyKey()).orElseThrow(), fingerprint,
                    caller));
        }
    }

    private ResponseEntity<String> replayOrRun(Caller caller, CommandRequest request, String fingerprint,
            Supplier<UseCaseResult> command) {
        Optional<WorkflowCommand> existing = commands.findById(request.idempotencyKey());
        if (existing.isPresent()) {
            return replay(existing.get(), fingerprint, caller);
        }
        commands.claim(request.idempotencyKey(), request.commandType(), request.businessType(),
                request.businessId() == null ? "" : request.businessId(), request.requestedBy(), fingerprint,
                clock.instant());
        UseCaseResult outcome = command.get();
        String body = json.writeValueAsString(outcome.body());
        String businessId = outcome.businessId() != null ? outcome.businessId() : request.businessId();
        commands.succeed(request.idempotencyKey(), businessId, outcome.status().value(), body,
                outcome.processInstanceId(), outcome.resultCode(), clock.instant());
        return ResponseEntity.status(outcome.status()).contentType(MediaType.APPLICATION_JSON).body(body);
    }

    /**
     * The stored response of the same request, or 422 for another request under the key. What the key was used for is
     * told only to its owner and to administrators and DBAs: a key seen in a log or a proxy must not tell a stranger
     * what another user did.
     */
    private static ResponseEntity<String> replay(WorkflowCommand stored, String fingerprint, Caller caller) {
        if (!stored.getRequestFingerprint().equals(fingerprint)) {
            String usedFor = stored.getCommandType() + " on " + stored.getBusinessId();
            log.info("Idempotency-Key {} of {} ({}) sent by {} with another request", stored.getRequestId(),
                    stored.getRequestedBy(), usedFor, caller.id());
            boolean mayKnow = caller.id().equals(stored.getRequestedBy()) || caller.hasRole(Roles.ADMIN)
                    || caller.hasRole(Roles.DBA);
            throw new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "IDEMPOTENCY_KEY_REUSED",
                    "The Idempotency-Key " + stored.getRequestId() + " was already used for a different request"
                            + (mayKnow ? " (" + usedFor + ")" : "") + "; use a new key for a new request.");
        }
        return ResponseEntity.status(stored.getResponseStatus()).contentType(MediaType.APPLICATION_JSON)
                .header(REPLAYED_HEADER, "true").body(stored.getResponseBody());
    }

    /**
     * After a heuristic outcome the stored response may belong to a half-committed change (or none is
     * stored although part of it committed): neither a replay nor a new run would tell the truth.
     * Checked before the transaction begins, on the journal's own connection.
     */
    private void refuseWhileOutcomeIsBeingResolved(String key) {
        if (journal.isPresent() && journal.get().endedHeuristically(key)) {
            throw ApiException.conflict("TRANSACTION_OUTCOME_BEING_RESOLVED", "The request with Idempotency-Key " + key
                    + " ended with a heuristic outcome: the databases may disagree about it, and a DBA resolves it in the"
                    + " recovery console. Neither its stored result nor a new run is given; read the application to see"
                    + " its state.");
        }
    }

    private static void requireValidKey(String key) {
        if (key == null || key.isBlank()) {
            throw ApiException.badRequest("IDEMPOTENCY_KEY_MISSING",
                    "The header " + HEADER + " is required: send a unique key per request and reuse it on retry.");
        }
        if (!KEY_SHAPE.matcher(key).matches()) {
            throw ApiException.badRequest("IDEMPOTENCY_KEY_INVALID",
                    "The header " + HEADER + " must be 1 to 128 visible ASCII characters.");
        }
    }

    private String fingerprint(CommandRequest request) {
        String canonical = String.join("\n", request.commandType(), request.businessType(),
                String.valueOf(request.businessId()), request.requestedBy(), json.writeValueAsString(request.body()));
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static boolean isViolationOf(Throwable error, String constraint) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConstraintViolationException violation && constraint.equals(violation.getConstraintName())) {
                return true;
            }
        }
        return false;
    }
}
