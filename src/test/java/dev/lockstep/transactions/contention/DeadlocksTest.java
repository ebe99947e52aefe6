package dev.lockstep.transactions.contention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.platform.web.ApiException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;

/** A deadlock victim, however deeply wrapped, is a retryable 409 and not a 500; other errors are left alone. */
class DeadlocksTest {

    private final Deadlocks deadlocks = new Deadlocks();

    @Test
    void aPostgresqlOrOracleDeadlockIsARetryableConflict() {
        for (SQLException deadlock : new SQLException[] {new SQLException("ERROR: deadlock detected", "40P01"),
                new SQLException("ORA-00060: deadlock detected while waiting for resource", "61000", 60)}) {
            ApiException answer = deadlocks.translate(new CannotAcquireLockException("could not execute statement",
                    new RuntimeException(deadlock))).orElseThrow();
            assertThat(answer.status().value()).isEqualTo(409);
            assertThat(answer.code()).isEqualTo("DEADLOCK_RETRY");
        }
    }

    @Test
    void otherDatabaseErrorsAreNotDeadlocks() {
        assertThat(deadlocks.translate(new SQLException("ERROR: duplicate key", "23505"))).isEmpty();
        assertThat(deadlocks.translate(new SQLException("ORA-00001: unique constraint", "23000", 1))).isEmpty();
        assertThat(deadlocks.translate(new IllegalStateException("no SQL at all"))).isEmpty();
    }
}
