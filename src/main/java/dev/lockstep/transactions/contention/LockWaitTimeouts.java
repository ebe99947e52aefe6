package dev.lockstep.transactions.contention;

import dev.lockstep.platform.security.Caller;
import dev.lockstep.platform.security.Roles;
import dev.lockstep.platform.web.ApiException;
import dev.lockstep.platform.web.ProblemTranslator;
import dev.lockstep.transactions.contention.LockHolders.PreparedHolder;
import dev.lockstep.transactions.contention.LockHolders.Seen;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * A database wait that ran into its bound ({@code lockstep.db.<db>.lock-timeout} or
 * {@code .statement-timeout}) becomes an answer the client can act on instead of a 500: nothing was
 * written (the use case's transaction rolled back), another transaction holds what it needed, whether
 * that one is in doubt, retry after a while. Which prepared transaction it is (gid, gtrid, database)
 * only a DBA is told, who can resolve it in the recovery console; everyone else gets a reference
 * under which the service logs those details.
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

    /** Whether the holder is a prepared transaction, as far as one look could tell. */
    private enum InDoubt {
        YES("in-doubt", "yes"), NO("not-in-doubt", "no"), UNKNOWN("unknown", "unknown");

        /** The problem member {@code holder}. */
        final String holder;
        /** In the detail: "in doubt: yes". */
        final String said;

        InDoubt(String holder, String said) {
            this.holder = holder;
            this.said = said;
        }

        static InDoubt of(Optional<String> table, Seen seen) {
            if (!seen.holders().isEmpty()) {
                return YES;
            }
            // any holder of a row holds a lock on its table, so a complete look at a named table that found no prepared
            // holder rules one out; a table-level wait may be on a prepared transaction's ordinary lock, never looked for
            return table.isPresent() && seen.everyDatabaseAnswered() ? NO : UNKNOWN;
        }
    }

    private ApiException answer(SQLException timeout) {
        boolean lockWait = LOCK_NOT_AVAILABLE.equals(timeout.getSQLState());
        Optional<String> table = relationOf(timeout);
        Seen seen = holders.preparedHoldersOf(table);
        InDoubt inDoubt = InDoubt.of(table, seen);
        String reference = UUID.randomUUID().toString();
        String what = table.map(name -> "a lock on " + name).orElse("a lock or a statement");
        String named = seen.holders().isEmpty() ? "no prepared (in-doubt) transaction was seen holding it"
                : "it is held by the prepared (in-doubt) transaction " + describe(seen.holders());
        // the holder first: the database's message runs over several lines
        log.warn("{} timed out waiting for {} (reference {}): {}; the database said: {}", lockWait ? "lock wait" : "statement",
                what, reference, named, timeout.getMessage());

        boolean dba = Caller.ifAuthenticated().map(caller -> caller.hasRole(Roles.DBA)).orElse(false);
        String holder = dba && inDoubt == InDoubt.YES
                ? "It is held by the prepared (in-doubt) transaction " + describe(seen.holders()) + "; transaction recovery"
                        + " resolves it, or a DBA in the recovery console (/api/recovery/in-doubt)."
                : "Another transaction held it (in doubt: " + inDoubt.said + "); what the service saw of it is in its log"
                        + " under reference " + reference + ", for a DBA.";
        ApiException answer = lockWait
                ? new ApiException(HttpStatus.CONFLICT, "RESOURCE_LOCKED", "The request waited for " + what + " longer than"
                        + " the lock timeout; nothing was written. " + holder + " Retry later with the same Idempotency-Key.",
                        retryAfter(inDoubt))
                : new ApiException(HttpStatus.SERVICE_UNAVAILABLE, "STATEMENT_TIMEOUT", "A database statement ran longer"
                        + " than the statement timeout while waiting for " + what + "; nothing was written. " + holder
                        + " Retry later with the same Idempotency-Key.", retryAfter(inDoubt));
        answer.with("lockedTable", table.orElse("unknown"))
                .with("holder", inDoubt.holder)
                .with("reference", reference);
        if (dba) {
            answer.with("heldBy", seen.holders().stream().map(PreparedHolder::asProblemMember).toList());
        }
        return answer;
    }

    private static Duration retryAfter(InDoubt inDoubt) {
        return inDoubt == InDoubt.YES ? RETRY_AFTER_IN_DOUBT_HOLDER : RETRY_AFTER_RUNNING_HOLDER;
    }

    private static String describe(List<PreparedHolder> prepared) {
        return String.join(", or ", prepared.stream()
                .map(h -> "gtrid " + h.gtrid().orElse("unknown") + " (gid " + h.gid() + " on " + h.database()
                        + ", prepared at " + h.preparedAt() + ", locking " + String.join(", ", h.tables()) + ")")
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
