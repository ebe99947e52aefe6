package dev.lockstep.support;

import com.atomikos.datasource.xa.XATransactionalResource;
import com.atomikos.icatch.config.Configuration;
import com.atomikos.icatch.jta.UserTransactionManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * An extra XA participant enlisted last in a global transaction. When the coordinator asks it to
 * prepare, it waits until the two database branches are prepared (Atomikos prepares all branches at
 * once, lockstep.tm.parallel-commit; one after the other, they are prepared before it is asked) and reads
 * pg_prepared_xacts on both servers with plain SQL: evidence from the databases themselves that phase one
 * happened on both before the coordinator decided, which it does only once every branch has voted.
 */
public class PreparedBranchProbe extends PassiveXaResource {

    private static final String RESOURCE_NAME = "lockstep-test-probe";

    private final TestDatabases databases;
    private final List<Map<String, Object>> seenAtPrepare = new ArrayList<>();
    private final Consumer<Xid> atPrepare;
    private volatile Xid xid;
    private volatile boolean committed;

    public PreparedBranchProbe(TestDatabases databases) {
        this(databases, xid -> {
        });
    }

    /**
     * A probe that also runs {@code atPrepare} once both database branches are prepared, before it votes yes:
     * e.g. a branch rolled back by hand while the coordinator goes on to commit.
     */
    public PreparedBranchProbe(TestDatabases databases, Consumer<Xid> atPrepare) {
        this.databases = databases;
        this.atPrepare = atPrepare;
    }

    public List<Map<String, Object>> seenAtPrepare() {
        return seenAtPrepare;
    }

    public Xid xid() {
        return xid;
    }

    public boolean committed() {
        return committed;
    }

    @Override
    public void start(Xid xid, int flags) {
        this.xid = xid;
    }

    @Override
    public int prepare(Xid xid) {
        databases.awaitPrepared(xid, 2, Duration.ofSeconds(10));
        seenAtPrepare.addAll(databases.preparedTransactions());
        atPrepare.accept(xid);
        return XA_OK;
    }

    @Override
    public void commit(Xid xid, boolean onePhase) {
        committed = true;
    }

    /** All probes count as one resource manager, so the one registered recoverable resource covers them. */
    @Override
    public boolean isSameRM(XAResource other) {
        return other instanceof PreparedBranchProbe;
    }

    /** Enlists this probe in the caller's global transaction; call it after both databases are enlisted. */
    public void enlistIn(UserTransactionManager transactionManager) {
        synchronized (PreparedBranchProbe.class) {
            if (Configuration.getResource(RESOURCE_NAME) == null) {
                PreparedBranchProbe recoveryView = new PreparedBranchProbe(databases);
                Configuration.addResource(new XATransactionalResource(RESOURCE_NAME) {
                    @Override
                    protected XAResource refreshXAConnection() {
                        return recoveryView;
                    }
                });
            }
        }
        try {
            transactionManager.getTransaction().enlistResource(this);
        } catch (Exception e) {
            throw new IllegalStateException("could not enlist the probe", e);
        }
    }

}
