package dev.lockstep.platform;

import java.sql.SQLException;

/**
 * Whether a failure means the database connection itself ended: SQLState class 08 (a connection exception: the
 * server was not reached or the connection broke), or the server ending the session (57P01 administrator command,
 * 57P02 crash of another backend, 57P03 not accepting connections yet: a restart).
 */
public final class ConnectionLoss {

    private ConnectionLoss() {
    }

    public static boolean isConnectionState(String sqlState) {
        return sqlState != null && (sqlState.startsWith("08") || sqlState.equals("57P01") || sqlState.equals("57P02")
                || sqlState.equals("57P03"));
    }

    /** Whether this failure or one of its causes is such an SQLException. */
    public static boolean in(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SQLException sql && isConnectionState(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
