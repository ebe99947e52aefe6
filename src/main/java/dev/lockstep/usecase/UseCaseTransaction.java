package dev.lockstep.idempotency;

import dev.lockstep.web.ApiException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.hibernate.exception.ConstraintViolationException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs a command at most once per Idempotency-Key. The key is claimed, the work done and the
 * response stored in one XA transaction, so a stored response always belongs to committed work;
 * a retry with the same key and body gets the same status and body, a different body gets 422.
 */
@Component
public class IdempotentCommands {

    public static final String HEADER = "Idempotency-Key";
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    private static final Pattern KEY_SHAPE = Pattern.compile("[\\x21-\\x7E]{1,128}");
    private static final String PRIMARY_KEY = "workflow_command_pkey";

    private final WorkflowCommandRepository commands;
    private final TransactionTemplate transaction;
    private final JsonMapper json;
    private final Clock clock;

    public IdempotentCommands(WorkflowCommandRepository commands, PlatformTransactionManager transactionManager,
            JsonMapper json, Clock clock) {
        this.commands = commands;
        this.transaction = new TransactionTemplate(transactionManager);
        this.json = json;
        this.clock = clock;
    }

    /** For endpoints where the key is optional: without one the command simply runs once in its own transaction. */
    public ResponseEntity<String> executeIfKeyed(CommandRequest request, Supplier<CommandOutcome> command) {
        if (request.idempotencyKey() == null) {
            CommandOutcome outcome = transaction.execute(status -> command.get());
            return ResponseEntity.status(outcome.status()).contentType(MediaType.APPLICATION_JSON)
                    .body(json.writeValueAsString(outcome.body()));
        }
        return execute(request, command);
    }

    public ResponseEntity<String> execute(CommandRequest request, Supplier<CommandOutcome> command) {
        requireValidKey(request.idempotencyKey());
        String fingerprint = fingerprint(request);
        try {
            return transaction.execute(status -> replayOrRun(request, fingerprint, command));
        } catch (DataIntegrityViolationException e) {
            if (!isViolationOf(e, PRIMARY_KEY)) {
                throw e;
            }
            // A concurrent request with the same key committed first: answer with its stored response.
            return transaction.execute(status -> replay(commands.findById(request.idempotencyKey()).orElseThrow(), fingerprint));
        }
    }

    private ResponseEntity<String> replayOrRun(CommandRequest request, String fingerprint, Supplier<CommandOutcome> command) {
        Optional<WorkflowCommand> existing = commands.findById(request.idempotencyKey());
        if (existing.isPresent()) {
            return replay(existing.get(), fingerprint);
        }
        commands.claim(request.idempotencyKey(), request.commandType(), request.businessType(),
                request.businessId() == null ? "" : request.businessId(), request.requestedBy(), fingerprint,
                clock.instant());
        CommandOutcome outcome = command.get();
        String body = json.writeValueAsString(outcome.body());
        String businessId = outcome.businessId() != null ? outcome.businessId() : request.businessId();
        commands.succeed(request.idempotencyKey(), businessId, outcome.status().value(), body,
                outcome.processInstanceId(), outcome.resultCode(), clock.instant());
        return ResponseEntity.status(outcome.status()).contentType(MediaType.APPLICATION_JSON).body(body);
    }

    private static ResponseEntity<String> replay(WorkflowCommand stored, String fingerprint) {
        if (!stored.getRequestFingerprint().equals(fingerprint)) {
            throw new ApiException(HttpStatus.UNPROCESSABLE_CONTENT, "IDEMPOTENCY_KEY_REUSED",
                    "The Idempotency-Key " + stored.getRequestId() + " was already used for a different request ("
                            + stored.getCommandType() + " on " + stored.getBusinessId() + "); use a new key for a new request.");
        }
        return ResponseEntity.status(stored.getResponseStatus()).contentType(MediaType.APPLICATION_JSON)
                .header(REPLAYED_HEADER, "true").body(stored.getResponseBody());
    }

    public static void requireValidKey(String key) {
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
