package dev.lockstep.transactions.xa;

import io.agroal.api.transaction.TransactionAware;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * One pooled connection's branch of a JTA transaction, as Atomikos sees it: the driver's XAResource, telling the
 * pool when the branch starts and completes, and naming the database so that Atomikos finds the resource that
 * recovers it ({@link RecoverableDatabase#usesXAResource}).
 */
record EnlistedBranch(String resourceName, TransactionAware connection, XAResource driver) implements XAResource {

    /**
     * A resume after a suspend (a REQUIRES_NEW transaction ran in between, e.g. the engine's timer-job acquisition)
     * joins the ended branch again: pgjdbc implements no suspend or resume, but lets the connection that ended a
     * branch join it; the connection stays out of the pool meanwhile, so nothing else runs on it.
     */
    @Override
    public void start(Xid xid, int flags) throws XAException {
        try {
            connection.transactionStart();
        } catch (Exception e) {
            connection.setFlushOnly();
            throw failure("start", e);
        }
        call(() -> driver.start(xid, flags == TMRESUME ? TMJOIN : flags));
    }

    /** A suspend ends the branch; see {@link #start}. */
    @Override
    public void end(Xid xid, int flags) throws XAException {
        call(() -> driver.end(xid, flags == TMSUSPEND ? TMSUCCESS : flags));
    }

    @Override
    public int prepare(Xid xid) throws XAException {
        try {
            return driver.prepare(xid);
        } catch (XAException e) {
            connection.setFlushOnly();
            throw e;
        }
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        connection.transactionBeforeCompletion(true);
        call(() -> driver.commit(xid, onePhase));
    }

    @Override
    public void rollback(Xid xid) throws XAException {
        connection.transactionBeforeCompletion(false);
        call(() -> driver.rollback(xid));
    }

    @Override
    public void forget(Xid xid) throws XAException {
        call(() -> driver.forget(xid));
    }

    @Override
    public Xid[] recover(int flag) throws XAException {
        return driver.recover(flag);
    }

    @Override
    public boolean isSameRM(XAResource other) throws XAException {
        return other instanceof EnlistedBranch branch ? driver.isSameRM(branch.driver) : driver.isSameRM(other);
    }

    @Override
    public int getTransactionTimeout() throws XAException {
        return driver.getTransactionTimeout();
    }

    @Override
    public boolean setTransactionTimeout(int seconds) throws XAException {
        return driver.setTransactionTimeout(seconds);
    }

    private void call(XaCall call) throws XAException {
        try {
            call.run();
        } catch (XAException e) {
            connection.setFlushOnly();
            throw e;
        }
    }

    private static XAException failure(String what, Exception cause) {
        XAException failure = new XAException(XAException.XAER_RMFAIL);
        failure.initCause(new IllegalStateException("XA " + what + " failed", cause));
        return failure;
    }

    @FunctionalInterface
    private interface XaCall {
        void run() throws XAException;
    }
}
