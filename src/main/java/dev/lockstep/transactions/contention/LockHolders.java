package dev.lockstep.transactions.contention;

import dev.lockstep.platform.PostgresqlOnly;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.transactions.xa.DecodedXid;
import dev.lockstep.transactions.xa.PgGidCodec;
import jakarta.annotation.PreDestroy;
import java.sql.Array;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Which prepared (in-doubt) transactions hold the lock a statement timed out on, asked of each
 * database outside any transaction. A prepared transaction has no backend (its locks show no pid);
 * its locks share one virtual transaction id with the lock on its own xid, the xid
 * {@code pg_prepared_xacts} shows. (That virtual id is the preparing session's since PostgreSQL 16,
 * {@code -1/<xid>} after a restart, so the join goes through the xid lock rather than the id's shape.)
 *
 * <p>A row wait names its table, and any transaction holding a row of it holds a lock on the table:
 * the holders are the prepared transactions with any lock on that table. A wait for a table-level lock
 * is named by nothing, so the candidates are the prepared transactions holding a table lock that stops
 * writes (SHARE or stronger: what {@code LOCK TABLE} and DDL take); a statement that itself asked for
 * a strong lock and waited for a prepared transaction's ordinary write lock is not found this way.
 *
 * <p>Every lock timeout asks, so a flood of them must not become a flood of connections: each database
 * is asked on one pooled connection, and one answer per table serves every timeout for
 * {@link #FRESH_FOR} (a lock timeout has waited seconds already; the answer is that much older at most).
 */
@Component
@PostgresqlOnly("reads pg_locks and pg_prepared_xacts; only PostgreSQL databases are added (add), and on Oracle a lock timeout names no holder (docs/operations.md)")
class LockHolders {

    static final String APPLICATION_NAME = "lockstep-lock-holders";
    static final Duration FRESH_FOR = Duration.ofSeconds(1);
    /** Longer than this for the one connection and the answer is "unknown", not a request held up by diagnostics. */
    private static final Duration BORROW_TIMEOUT = Duration.ofSeconds(1);
    private static final int LOOKUP_TIMEOUT_SECONDS = 2;
    private static final Logger log = LoggerFactory.getLogger(LockHolders.class);
    private static final String PREPARED_HOLDERS = """
            select p.gid, p.prepared, array_agg(distinct held.relation::regclass::text) as tables
              from pg_prepared_xacts p
              join pg_locks own on own.locktype = 'transactionid' and own.transactionid = p.transaction and own.pid is null
              join pg_locks held on held.virtualtransaction = own.virtualtransaction and held.pid is null
             where p.database = current_database()
               and held.locktype = 'relation'
               and held.database = (select oid from pg_database where datname = current_database())
               and (held.relation = to_regclass(?)
                    or ?::text is null and held.mode in ('ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock'))
             group by p.gid, p.prepared
             order by p.prepared
            """;

    /** A prepared transaction seen holding a lock: where, its gid, its gtrid if pgjdbc made the gid, the tables it locks. */
    record PreparedHolder(String database, String gid, Optional<String> gtrid, Instant preparedAt, List<String> tables) {

        Map<String, Object> asProblemMember() {
            Map<String, Object> member = new LinkedHashMap<>();
            member.put("database", database);
            member.put("gid", gid);
            member.put("gtrid", gtrid.orElse("unknown"));
            member.put("preparedAt", preparedAt.toString());
            member.put("tables", tables);
            return member;
        }
    }

    /** What a look found; without an answer from every database, finding nobody proves nothing. */
    record Seen(List<PreparedHolder> holders, boolean everyDatabaseAnswered) {
    }

    private final Map<String, JdbcTemplate> databases = new LinkedHashMap<>();
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final Cache<Optional<String>, Seen> recent = Caffeine.newBuilder().expireAfterWrite(FRESH_FOR).maximumSize(100).build();

    LockHolders(DatabaseEndpoints endpoints) {
        add(DatabaseEndpoints.BUSINESS_RESOURCE, endpoints.business());
        // The single-database mode gives one database under both names: ask it once.
        if (endpoints.workflow() != endpoints.business()) {
            add(DatabaseEndpoints.WORKFLOW_RESOURCE, endpoints.workflow());
        }
    }

    private void add(String name, DatabaseSettings settings) {
        if (settings.vendor() == DatabaseVendor.POSTGRESQL && settings.isConfigured()) {
            HikariConfig config = settings.plainPool("lock-holders-" + name, 1);
            config.setConnectionTimeout(BORROW_TIMEOUT.toMillis());
            // diagnostics only: the service starts whether or not this pool can connect yet
            config.setInitializationFailTimeout(-1);
            config.addDataSourceProperty("ApplicationName", APPLICATION_NAME);
            HikariDataSource pool = new HikariDataSource(config);
            pools.add(pool);
            JdbcTemplate jdbc = new JdbcTemplate(pool);
            jdbc.setQueryTimeout(LOOKUP_TIMEOUT_SECONDS);
            databases.put(name, jdbc);
        }
    }

    /**
     * The prepared transactions holding a lock on {@code table}, or, when the database did not name the
     * table, a table lock that stops writes, in every database that could be asked.
     */
    Seen preparedHoldersOf(Optional<String> table) {
        return recent.get(table, this::ask);
    }

    private Seen ask(Optional<String> table) {
        List<PreparedHolder> holders = new ArrayList<>();
        boolean everyDatabaseAnswered = !databases.isEmpty();
        for (Map.Entry<String, JdbcTemplate> database : databases.entrySet()) {
            try {
                database.getValue().query(PREPARED_HOLDERS, row -> {
                    String gid = row.getString(1);
                    holders.add(new PreparedHolder(database.getKey(), gid, PgGidCodec.decode(gid).map(DecodedXid::gtridText),
                            row.getTimestamp(2).toInstant(), tables(row.getArray(3))));
                }, table.orElse(null), table.orElse(null));
            } catch (DataAccessException e) {
                everyDatabaseAnswered = false;
                log.warn("could not ask {} which prepared transactions hold {}: {}", database.getKey(),
                        table.orElse("a table lock"), e.getMessage());
            }
        }
        return new Seen(List.copyOf(holders), everyDatabaseAnswered);
    }

    private static List<String> tables(Array array) throws SQLException {
        return List.of((String[]) array.getArray());
    }

    @PreDestroy
    void close() {
        pools.forEach(HikariDataSource::close);
    }
}
