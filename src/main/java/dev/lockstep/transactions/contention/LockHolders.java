package dev.lockstep.transactions.contention;

import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.DatabaseSettings;
import dev.lockstep.platform.DatabaseVendor;
import dev.lockstep.transactions.xa.DecodedXid;
import dev.lockstep.transactions.xa.PgGidCodec;
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
 * Which prepared (in-doubt) transactions hold locks on a table, asked on a plain connection of each
 * database outside any transaction. A prepared transaction has no backend (its locks show no pid);
 * its locks share one virtual transaction id with the lock on its own xid, the xid
 * {@code pg_prepared_xacts} shows. (That virtual id is the preparing session's since PostgreSQL 16,
 * {@code -1/<xid>} after a restart, so the join goes through the xid lock rather than the id's shape.)
 */
@Component
class LockHolders {

    private static final Logger log = LoggerFactory.getLogger(LockHolders.class);
    private static final int LOOKUP_TIMEOUT_SECONDS = 2;
    private static final String PREPARED_HOLDERS = """
            select p.gid, p.prepared from pg_prepared_xacts p
             where p.database = current_database()
               and exists (select 1 from pg_locks own
                             join pg_locks held on held.virtualtransaction = own.virtualtransaction and held.pid is null
                            where own.locktype = 'transactionid' and own.transactionid = p.transaction and own.pid is null
                              and held.locktype = 'relation' and held.relation = to_regclass(?))
             order by p.prepared
            """;

    /** A prepared transaction seen holding a lock on the table: where, its gid, its gtrid if pgjdbc made the gid. */
    record PreparedHolder(String database, String gid, Optional<String> gtrid, Instant preparedAt) {

        Map<String, Object> asProblemMember() {
            Map<String, Object> member = new LinkedHashMap<>();
            member.put("database", database);
            member.put("gid", gid);
            member.put("gtrid", gtrid.orElse("unknown"));
            member.put("preparedAt", preparedAt.toString());
            return member;
        }
    }

    private final Map<String, JdbcTemplate> databases = new LinkedHashMap<>();

    LockHolders(DatabaseEndpoints endpoints) {
        add(DatabaseEndpoints.BUSINESS_RESOURCE, endpoints.business());
        // The single-database mode gives one database under both names: ask it once.
        if (endpoints.workflow() != endpoints.business()) {
            add(DatabaseEndpoints.WORKFLOW_RESOURCE, endpoints.workflow());
        }
    }

    private void add(String name, DatabaseSettings settings) {
        if (settings.vendor() == DatabaseVendor.POSTGRESQL && settings.isConfigured()) {
            JdbcTemplate jdbc = new JdbcTemplate(settings.plainDataSource());
            jdbc.setQueryTimeout(LOOKUP_TIMEOUT_SECONDS);
            databases.put(name, jdbc);
        }
    }

    /**
     * The prepared transactions holding a lock on {@code table} in any database that could be asked;
     * empty when none holds one or none could be asked (the caller then says the holder is unknown).
     */
    List<PreparedHolder> preparedHoldersOf(String table) {
        List<PreparedHolder> holders = new ArrayList<>();
        databases.forEach((name, jdbc) -> {
            try {
                jdbc.query(PREPARED_HOLDERS, row -> {
                    String gid = row.getString(1);
                    holders.add(new PreparedHolder(name, gid, PgGidCodec.decode(gid).map(DecodedXid::gtridText),
                            row.getTimestamp(2).toInstant()));
                }, table);
            } catch (DataAccessException e) {
                log.warn("could not ask {} which prepared transactions hold {}: {}", name, table, e.getMessage());
            }
        });
        return holders;
    }
}
