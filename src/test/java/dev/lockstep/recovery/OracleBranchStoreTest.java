package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.transactions.xa.DecodedXid;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import javax.sql.XAConnection;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import oracle.jdbc.xa.client.OracleXADataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.oracle.OracleContainer;

/**
 * The Oracle scanner against a real Oracle Free container. Needs Docker: on machines without it
 * (these build machines) the class is skipped by Testcontainers, not failed.
 */
@Testcontainers(disabledWithoutDocker = true)
class OracleBranchStoreTest {

    @Container
    static final OracleContainer ORACLE = new OracleContainer("gvenzl/oracle-free:23-slim-faststart");

    @Test
    void findsDecodesAndRollsBackAPreparedBranch() throws Exception {
        try (Connection app = xaDataSource(ORACLE.getUsername()).getXAConnection().getConnection();
                Statement ddl = app.createStatement()) {
            ddl.execute("create table indoubt_probe (x number)");
        }
        Xid xid = PreparedBranches.xid(DecodedXid.ATOMIKOS_FORMAT_ID, "ora-1.tm1732000000000001", "ora-1.tm7");
        XAConnection xaConnection = xaDataSource(ORACLE.getUsername()).getXAConnection();
        XAResource resource = xaConnection.getXAResource();
        resource.start(xid, XAResource.TMNOFLAGS);
        try (Statement insert = xaConnection.getConnection().createStatement()) {
            insert.execute("insert into indoubt_probe values (1)");
        }
        resource.end(xid, XAResource.TMSUCCESS);
        resource.prepare(xid);
        xaConnection.close();

        // the recovery user: SELECT on the pending views and FORCE ANY TRANSACTION (system has both)
        OracleBranchStore store = new OracleBranchStore("business-db",
                new DriverManagerDataSource(ORACLE.getJdbcUrl(), "system", ORACLE.getPassword()), xaDataSource("system"));
        List<PreparedBranch> branches = store.scan();

        assertThat(branches).singleElement().satisfies(branch -> {
            DecodedXid decoded = branch.xid().orElseThrow();
            assertThat(decoded.gtridText()).isEqualTo("ora-1.tm1732000000000001");
            assertThat(decoded.ownerTm()).contains("ora-1.tm");
            assertThat(new String(decoded.bqual(), StandardCharsets.US_ASCII)).isEqualTo("ora-1.tm7");
        });
        assertThat(store.rollback(branches.get(0).rawId())).isTrue();
        assertThat(store.scan()).isEmpty();
        assertThat(store.rollback(branches.get(0).rawId())).isFalse();
    }

    private static OracleXADataSource xaDataSource(String user) throws Exception {
        OracleXADataSource dataSource = new OracleXADataSource();
        dataSource.setURL(ORACLE.getJdbcUrl());
        dataSource.setUser(user);
        dataSource.setPassword(ORACLE.getPassword());
        return dataSource;
    }
}
