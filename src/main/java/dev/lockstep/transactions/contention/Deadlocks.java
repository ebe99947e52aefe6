package dev.lockstep.transactions.contention;

import dev.lockstep.platform.web.ApiException;
import dev.lockstep.platform.web.ProblemTranslator;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * The database broke a deadlock by failing this request's statement (e.g. two deciders and a firing deadline on one
 * application): the use case's transaction rolled back, nothing was written, and the same request sent again will
 * most likely pass. An answer the client can act on instead of a 500.
 */
@Component
class Deadlocks implements ProblemTranslator {

    /** PostgreSQL's deadlock_detected. */
    static final String DEADLOCK_DETECTED = "40P01";
    /** Oracle's ORA-00060, deadlock detected while waiting for resource. */
    static final int ORA_DEADLOCK = 60;
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(Deadlocks.class);

    @Override
    public Optional<ApiException> translate(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLException sql && isDeadlock(sql)) {
                log.warn("the database chose this request to break a deadlock: {}", sql.getMessage());
                return Optional.of(new ApiException(HttpStatus.CONFLICT, "DEADLOCK_RETRY", "The database broke a deadlock"
                        + " between this request and concurrent work on the same data by rolling this request back; nothing was"
                        + " written. Send it again with the same Idempotency-Key.", RETRY_AFTER));
            }
        }
        return Optional.empty();
    }

    private static boolean isDeadlock(SQLException sql) {
        return DEADLOCK_DETECTED.equals(sql.getSQLState()) || (sql.getErrorCode() == ORA_DEADLOCK && "61000".equals(sql.getSQLState()));
    }
}
