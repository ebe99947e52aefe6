package dev.lockstep.transactions.xa;

import com.atomikos.datasource.xa.jdbc.JdbcTransactionalResource;
import javax.sql.XADataSource;
import javax.transaction.xa.XAResource;

/** Atomikos's recovery of one database, and the resource its branches from the pool belong to. */
final class RecoverableDatabase extends JdbcTransactionalResource {

    RecoverableDatabase(String resourceName, XADataSource xaDataSource) {
        super(resourceName, xaDataSource);
    }

    @Override
    public boolean usesXAResource(XAResource xaResource) {
        if (xaResource instanceof LocalCommitNegativeControl local) {
            return usesXAResource(local.wrapped());
        }
        return xaResource instanceof EnlistedBranch branch && branch.resourceName().equals(getName());
    }
}
