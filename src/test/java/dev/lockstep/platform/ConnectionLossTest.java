package dev.lockstep.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;

/** Which SQLStates mean the connection itself ended, wherever in a failure's causes they sit. */
class ConnectionLossTest {

    @Test
    void connectionExceptionsAndSessionsTheServerEndedAreConnectionLosses() {
        // 08006 a broken connection; 57P01 a terminated backend or a fast shutdown; 57P02 a crash elsewhere; 57P03 starting up
        for (String state : new String[] {"08000", "08003", "08006", "57P01", "57P02", "57P03"}) {
            assertThat(ConnectionLoss.in(new DataAccessResourceFailureException("wrapped", new SQLException("lost", state))))
                    .as(state).isTrue();
        }
    }

    @Test
    void otherFailuresAreNot() {
        // 57014 a statement timeout or cancel, 40001 a serialization failure, 57P04 a dropped database, none given
        for (String state : new String[] {"57014", "40001", "57P04", "23505"}) {
            assertThat(ConnectionLoss.in(new SQLException("other", state))).as(state).isFalse();
        }
        assertThat(ConnectionLoss.in(new SQLException("Connection is closed"))).isFalse();
        assertThat(ConnectionLoss.in(new IllegalStateException("no SQL at all"))).isFalse();
    }
}
