package dev.lockstep.support;

import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * A third participant a test enlists in a real global transaction to observe or steer the two-phase
 * commit (a probe that reads the databases during prepare, a branch that answers with a heuristic).
 * It holds nothing: every call succeeds and does nothing unless a subclass says otherwise.
 */
public abstract class PassiveXaResource implements XAResource {

    @Override
    public int prepare(Xid xid) throws javax.transaction.xa.XAException {
        return XA_OK;
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws javax.transaction.xa.XAException {
    }

    @Override
    public void rollback(Xid xid) {
    }

    @Override
    public void start(Xid xid, int flags) {
    }

    @Override
    public void end(Xid xid, int flags) {
    }

    @Override
    public void forget(Xid xid) {
    }

    @Override
    public Xid[] recover(int flag) {
        return new Xid[0];
    }

    @Override
    public boolean isSameRM(XAResource other) {
        return other == this;
    }

    @Override
    public int getTransactionTimeout() {
        return 0;
    }

    @Override
    public boolean setTransactionTimeout(int seconds) {
        return false;
    }
}
