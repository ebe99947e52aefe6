package dev.lockstep.transactions.xa;

import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.TransactionMode;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;

/**
 * The chaos suite's negative control ({@link TransactionMode#LOCAL}): a branch that commits on its own when the
 * transaction manager asks it to prepare, and then votes read-only, so the coordinator logs no decision and sends no
 * second phase. The two databases of a use case thus commit as two local transactions, one after the other: a crash
 * between them leaves one committed and the other not, which the compliance report sets beside the same crash under
 * XA. It wraps the enlisted branch, so the pool sees an ordinary one-phase commit. Everything else goes to the
 * wrapped resource.
 */
final class LocalCommitNegativeControl implements XAResource {

    private static final Logger log = LoggerFactory.getLogger(LocalCommitNegativeControl.class);
    static final String SETTING = "lockstep.tm.transaction-mode";
    static final String PROFILE = "chaos";

    private final XAResource branch;

    private LocalCommitNegativeControl(XAResource branch) {
        this.branch = branch;
    }

    /** The branch as the transaction manager gets it in {@code mode}: unchanged under XA. */
    static XAResource inMode(TransactionMode mode, XAResource branch) {
        return mode == TransactionMode.LOCAL ? new LocalCommitNegativeControl(branch) : branch;
    }

    /** Refuses LOCAL outside the chaos suite: it gives up atomicity on purpose and must never run in production. */
    static void verify(LockstepProperties properties, Environment environment) {
        if (properties.tm().transactionMode() != TransactionMode.LOCAL) {
            return;
        }
        if (!environment.matchesProfiles(PROFILE)) {
            throw new StartupCheckFailure(SETTING, "LOCAL commits the two databases as two local transactions, with no"
                    + " atomicity across them; it exists only as the chaos suite's negative control (Spring profile '"
                    + PROFILE + "').", "remove the setting (XA is the default), or set it to XA.");
        }
        log.warn("NEGATIVE CONTROL: {}=LOCAL, the business and workflow databases commit as two local transactions with"
                + " no two-phase commit; a crash between them splits them. Only for the chaos suite.", SETTING);
    }

    /** The enlisted branch this one commits locally: recovery finds its database by it. */
    XAResource wrapped() {
        return branch;
    }

    @Override
    public int prepare(Xid xid) throws XAException {
        branch.commit(xid, true);
        return XA_RDONLY;
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        branch.commit(xid, onePhase);
    }

    @Override
    public void rollback(Xid xid) throws XAException {
        branch.rollback(xid);
    }

    @Override
    public void start(Xid xid, int flags) throws XAException {
        branch.start(xid, flags);
    }

    @Override
    public void end(Xid xid, int flags) throws XAException {
        branch.end(xid, flags);
    }

    @Override
    public void forget(Xid xid) throws XAException {
        branch.forget(xid);
    }

    @Override
    public Xid[] recover(int flag) throws XAException {
        return branch.recover(flag);
    }

    @Override
    public boolean isSameRM(XAResource other) throws XAException {
        return branch.isSameRM(other instanceof LocalCommitNegativeControl local ? local.branch : other);
    }

    @Override
    public int getTransactionTimeout() throws XAException {
        return branch.getTransactionTimeout();
    }

    @Override
    public boolean setTransactionTimeout(int seconds) throws XAException {
        return branch.setTransactionTimeout(seconds);
    }
}
