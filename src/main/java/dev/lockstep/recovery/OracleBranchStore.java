package dev.lockstep.recovery;

import dev.lockstep.transactions.xa.DecodedXid;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import javax.sql.XAConnection;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Oracle: XIDs from {@code DBA_PENDING_TRANSACTIONS}, the prepare time from {@code DBA_2PC_PENDING}.
 * Resolution goes through the driver's XAResource with the exact XID (the XA equivalent of
 * COMMIT FORCE / ROLLBACK FORCE), so no local transaction id has to be guessed. The recovery user
 * needs the grants listed in xa-config (SELECT on the views, EXECUTE on dbms_xa, FORCE ANY TRANSACTION).
 * Not exercised on machines without Docker (no Oracle container).
 */
class OracleBranchStore implements BranchStore {

    private final String resource;
    private final JdbcTemplate jdbc;
    private final XADataSource xaDataSource;

    OracleBranchStore(String resource, DataSource plain, XADataSource xaDataSource) {
        this.resource = resource;
        this.jdbc = new JdbcTemplate(plain);
        this.xaDataSource = xaDataSource;
    }

    @Override
    public String resource() {
        return resource;
    }

    @Override
    public List<PreparedBranch> scan() {
        return jdbc.query("""
                select t.formatid, t.globalid, t.branchid,
                       (select min(p.fail_time) from dba_2pc_pending p
                         where upper(p.global_tran_id) like '%' || rawtohex(t.globalid) || '%') as fail_time
                from dba_pending_transactions t
                """, (row, n) -> {
            DecodedXid xid = new DecodedXid(row.getInt(1), row.getBytes(2), row.getBytes(3));
            Timestamp failTime = row.getTimestamp(4);
            return new PreparedBranch(resource, rawId(xid), Optional.of(xid),
                    failTime == null ? Instant.now() : failTime.toInstant(), null, List.of());
        });
    }

    static String rawId(DecodedXid xid) {
        HexFormat hex = HexFormat.of();
        return xid.formatId() + "." + hex.formatHex(xid.gtrid()) + "." + hex.formatHex(xid.bqual());
    }

    @Override
    public boolean commit(String rawId) {
        return finish(rawId, true);
    }

    @Override
    public boolean rollback(String rawId) {
        return finish(rawId, false);
    }

    private boolean finish(String rawId, boolean commit) {
        String[] parts = rawId.split("\\.");
        HexFormat hex = HexFormat.of();
        Xid xid = new SimpleXid(Integer.parseInt(parts[0]), hex.parseHex(parts[1]), hex.parseHex(parts[2]));
        XAConnection connection = null;
        try {
            connection = xaDataSource.getXAConnection();
            XAResource xa = connection.getXAResource();
            if (commit) {
                xa.commit(xid, false);
            } else {
                xa.rollback(xid);
            }
            return true;
        } catch (XAException e) {
            if (e.errorCode == XAException.XAER_NOTA) {
                return false;
            }
            throw new IllegalStateException((commit ? "commit" : "rollback") + " failed on " + resource + ": XA error "
                    + e.errorCode, e);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("cannot reach " + resource + ": " + e.getMessage(), e);
        } finally {
            if (connection != null) {
                try {
                    connection.close();
                } catch (java.sql.SQLException ignored) {
                    // the outcome is already decided; a failed close changes nothing
                }
            }
        }
    }

    private record SimpleXid(int getFormatId, byte[] getGlobalTransactionId, byte[] getBranchQualifier) implements Xid {
    }
}
