package dev.lockstep.transactions.xa;

import dev.lockstep.transactions.xa.XaPhaseTimers.Phase;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

/**
 * The driver's XAResource with its prepare, commit and rollback timed (XaPhaseTimers). Everything
 * else, recover and forget included, goes straight to the driver; isSameRM and equality compare the
 * drivers' resources, so Atomikos joins, matches and recovers branches exactly as without the timing.
 */
final class TimedXaResource implements XAResource {

    private final XAResource driver;
    private final String resource;

    TimedXaResource(XAResource driver, String resource) {
        this.driver = driver;
        this.resource = resource;
    }

    @Override
    public int prepare(Xid xid) throws XAException {
        long start = System.nanoTime();
        int vote = driver.prepare(xid);
        long end = System.nanoTime();
        XaPhaseTimers.branch(resource, Phase.PREPARE, start, end);
        XaPhaseTimers.prepared(xid, end);
        return vote;
    }

    @Override
    public void commit(Xid xid, boolean onePhase) throws XAException {
        long start = System.nanoTime();
        if (!onePhase) {
            XaPhaseTimers.secondPhaseStarts(xid, true, start);
        }
        driver.commit(xid, onePhase);
        XaPhaseTimers.branch(resource, onePhase ? Phase.COMMIT_ONE_PHASE : Phase.COMMIT_TWO_PHASE, start, System.nanoTime());
    }

    @Override
    public void rollback(Xid xid) throws XAException {
        long start = System.nanoTime();
        XaPhaseTimers.secondPhaseStarts(xid, false, start);
        driver.rollback(xid);
        XaPhaseTimers.branch(resource, Phase.ROLLBACK, start, System.nanoTime());
    }

    @Override
    public boolean isSameRM(XAResource other) throws XAException {
        return driver.isSameRM(unwrap(other));
    }

    @Override
    public void start(Xid xid, int flags) throws XAException {
        driver.start(xid, flags);
    }

    @Override
    public void end(Xid xid, int flags) throws XAException {
        driver.end(xid, flags);
    }

    @Override
    public void forget(Xid xid) throws XAException {
        driver.forget(xid);
    }

    @Override
    public Xid[] recover(int flag) throws XAException {
        return driver.recover(flag);
    }

    @Override
    public int getTransactionTimeout() throws XAException {
        return driver.getTransactionTimeout();
    }

    @Override
    public boolean setTransactionTimeout(int seconds) throws XAException {
        return driver.setTransactionTimeout(seconds);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TimedXaResource timed ? driver.equals(timed.driver) : driver.equals(other);
    }

    @Override
    public int hashCode() {
        return driver.hashCode();
    }

    @Override
    public String toString() {
        return driver.toString();
    }

    static XAResource unwrap(XAResource resource) {
        return resource instanceof TimedXaResource timed ? timed.driver : resource;
    }
}
