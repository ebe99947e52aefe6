package dev.lockstep.transactions.contention;

import dev.lockstep.platform.web.ApiException;
import dev.lockstep.platform.web.ProblemTranslator;
import dev.lockstep.transactions.contention.LockHolders.PreparedHolder;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * A database wait that ran into its bound ({@code lockstep.db.<db>.lock-timeout} or
 * {@code .statement-timeout}) becomes an answer the client can act on instead of a 500: nothing was
 * written (the use case's transaction rolled back), here is what held it, retry after a while. When
 * the holder is a prepared transaction its gid and gtrid are named, so an operator can find it in the
 * recovery console; when it cannot be seen, the answer says "unknown" rather than guess.
 */
@Component
class LockWaitTimeouts implements ProblemTranslator {

    static final String LOCK_NOT_AVAILABLE = "55P03";
    static final String QUERY_CANCELED = "57014";
    static final Duration RETRY_AFTER_RUNNING_HOLDER = Duration.ofSeconds(1);
    /** A prepared holder waits for transaction recovery, which passes every lockstep.tm.recovery-delay (10 s). */
    static final Duration RETRY_AFTER_IN_DOUBT_HOLDER = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(LockWaitTimeouts.class);
    // PostgreSQL's context line of a lock wait: "while updating tuple (0,1) in relation "application"".
    private static final Pattern RELATION = Pattern.compile("in relation \"([^\"]+)\"");

    private final LockHolders holders;

    LockWaitTimeouts(LockHolders holders) {
        this.holders = holders;
    }

    @Override
    public Optional<ApiException> translate(Throwable error) {
        return timedOut(error).map(this::answer);
    }

    private ApiException answer(SQLException timeout) {
        boolean lockWait = LOCK_NOT_AVAILABLE.equals(timeout.getSQLState());
        Optional<String> table = relationOf(timeout);
        List<PreparedHolder> prepared = table.map(holders::preparedHoldersOf).orElse(List.of());
        String what = table.map(name -> "a lock on " + name).orElse("a lock or a statement");
        String holder = prepared.isEmpty()
                ? "Its holder is unknown: no prepared (in-doubt) transaction was seen holding it, so it was a running"
                        + " transaction or has finished since."
                : "It is held by the prepared (in-doubt) transaction " + describe(prepared) + "; transaction recovery"
                        + " resolves it, or a DBA in the recovery console (/api/recovery/in-doubt).";
        log.warn("{} timed out waiting for {}: {} — {}", lockWait ? "lock wait" : "statement", what, timeout.getMessage(),
                holder);
        ApiException answer = lockWait
                ? new ApiException(HttpStatus.CONFLICT, "RESOURCE_LOCKED", "The request waited for " + what + " longer than"
                        + " the lock timeout; nothing was written. " + holder + " Retry later with the same Idempotency-Key.",
                        retryAfter(prepared))
                : new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "STATEMENT_TIMEOUT", "A database statement ran longer"
                        + " than the statement timeout while waiting for " + what + "; nothing was written. " + holder
                        + " Retry later with the same Idempotency-Key.", retryAfter(prepared));
        answer.with("lockedTable", table.orElse("unknown"))
                .with("holder", prepared.isEmpty() ? "unknown" : "in-doubt")
                .with("heldBy", prepared.stream().map(PreparedHolder::asProblemMember).toList());
        return answer;
    }

    private static Duration retryAfter(List<PreparedHolder> prepared) {
        return prepared.isEmpty() ? RETRY_AFTER_RUNNING_HOLDER : RETRY_AFTER_IN_DOUBT_HOLDER;
    }

    private static String describe(List<PreparedHolder> prepared) {
        return String.join(", or ", prepared.stream()
                .map(h -> "gtrid " + h.gtrid().orElse("unknown") + " (gid " + h.gid() + " on " + h.database()
                        + ", prepared at " + h.preparedAt() + ")")
                .toList());
    }

    /** The lock or statement timeout anywhere in the cause chain (JPA, the engine and Atomikos each wrap it). */
    static Optional<SQLException> timedOut(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLException sql
                    && (LOCK_NOT_AVAILABLE.equals(sql.getSQLState()) || QUERY_CANCELED.equals(sql.getSQLState()))) {
                return Optional.of(sql);
            }
        }
        return Optional.empty();
    }

    private static Optional<String> relationOf(SQLException timeout) {
        Matcher matcher = RELATION.matcher(String.valueOf(timeout.getMessage()));
        return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
    }
}
