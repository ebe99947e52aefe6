package dev.lockstep.recovery;

import dev.lockstep.transactions.xa.PgGidCodec;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * PostgreSQL: {@code pg_prepared_xacts} of the connected database, with the locks each prepared
 * transaction holds. A prepared transaction's locks have no pid in {@code pg_locks}; they share the
 * virtual transaction of the lock on its own transaction id, which is how they are found. Uses plain autocommit connections: COMMIT PREPARED cannot run
 * inside a transaction block, and the XA pool must not be involved.
 */
class PostgresBranchStore implements BranchStore {

    private final String resource;
    private final DataSource dataSource;
    private final JdbcTemplate jdbc;

    PostgresBranchStore(String resource, DataSource dataSource) {
        this.resource = resource;
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
    }

    @Override
    public String resource() {
        return resource;
    }

    @Override
    public List<PreparedBranch> scan() {
        Map<String, List<PreparedBranch.BranchLock>> locks = new LinkedHashMap<>();
        jdbc.query("""
                select p.gid, l.locktype, l.mode, c.relname
                from pg_prepared_xacts p
                join pg_locks x on x.locktype = 'transactionid' and x.transactionid = p.transaction and x.pid is null
                join pg_locks l on l.virtualtransaction = x.virtualtransaction and l.pid is null
                    and not (l.locktype = 'transactionid' and l.transactionid = p.transaction)
                left join pg_class c on c.oid = l.relation
                where p.database = current_database()
                order by p.gid, c.relname nulls last, l.locktype
                """, row -> {
            locks.computeIfAbsent(row.getString(1), gid -> new ArrayList<>())
                    .add(new PreparedBranch.BranchLock(row.getString(2), row.getString(3), row.getString(4)));
        });
        return jdbc.query("""
                select gid, prepared, owner from pg_prepared_xacts
                where database = current_database() order by prepared
                """, (row, n) -> new PreparedBranch(resource, row.getString(1), PgGidCodec.decode(row.getString(1)),
                row.getTimestamp(2).toInstant(), row.getString(3), List.copyOf(locks.getOrDefault(row.getString(1), List.of()))));
    }

    @Override
    public boolean commit(String rawId) {
        return finish("commit prepared ", rawId);
    }

    @Override
    public boolean rollback(String rawId) {
        return finish("rollback prepared ", rawId);
    }

    private boolean finish(String command, String gid) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            // COMMIT/ROLLBACK PREPARED takes no bind parameters: quote the gid as a literal.
            statement.execute(command + "'" + gid.replace("'", "''") + "'");
            return true;
        } catch (SQLException e) {
            if ("42704".equals(e.getSQLState())) { // undefined_object: no prepared transaction with that gid
                return false;
            }
            throw new IllegalStateException(command + "failed on " + resource + ": " + e.getMessage(), e);
        }
    }
}
