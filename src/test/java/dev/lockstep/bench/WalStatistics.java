package dev.lockstep.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What a PostgreSQL server spent on durable WAL writes, read with plain SQL from pg_stat_io
 * (PostgreSQL 18): the difference over a window, divided by the cycles in it, is the durable-write
 * cost of one approval cycle on that database.
 */
record WalStatistics(long fsyncs, double fsyncMillis, long commits) {

    /** Turns on the timing of WAL syncs so fsync_time is filled; cheap on a clock with a fast source. */
    static void enableTiming(String jdbcUrl) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl, "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute("alter system set track_wal_io_timing = on");
            statement.execute("select pg_reload_conf()");
        }
    }

    static WalStatistics read(String jdbcUrl) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl, "postgres", "");
                Statement statement = connection.createStatement()) {
            // backends publish their I/O counters lazily; ask for the latest before reading
            statement.execute("select pg_stat_clear_snapshot()");
            try (ResultSet rows = statement.executeQuery("""
                    select (select coalesce(sum(fsyncs), 0) from pg_stat_io where object = 'wal'),
                           (select coalesce(sum(fsync_time), 0) from pg_stat_io where object = 'wal'),
                           (select sum(xact_commit) from pg_stat_database)""")) {
                rows.next();
                return new WalStatistics(rows.getLong(1), rows.getDouble(2), rows.getLong(3));
            }
        }
    }

    WalStatistics plus(WalStatistics other) {
        return new WalStatistics(fsyncs + other.fsyncs, fsyncMillis + other.fsyncMillis, commits + other.commits);
    }

    WalStatistics minus(WalStatistics earlier) {
        return new WalStatistics(fsyncs - earlier.fsyncs, fsyncMillis - earlier.fsyncMillis, commits - earlier.commits);
    }
}
