package dev.lockstep.transactions.businessonly;

import dev.lockstep.platform.AreaApi;
import javax.sql.DataSource;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.IllegalTransactionStateException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A read of the business database that one statement answers, outside any transaction: on a plain
 * connection in autocommit, so the statement runs in a snapshot of its own, with no BEGIN, no COMMIT
 * round trip and no EntityManager. A transaction would add nothing to one statement's consistency.
 * Refused inside a transaction, whose reads belong on its own connection, where they see its writes.
 */
@AreaApi
public final class BusinessReads {

    private final JdbcTemplate jdbc;

    public BusinessReads(DataSource plainPool) {
        this.jdbc = new JdbcTemplate(plainPool);
    }

    /** Runs {@code read} on a connection of its own, its one statement committed as it ends. */
    public <T> T read(ConnectionCallback<T> read) {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalTransactionStateException("A one-statement read outside any transaction was asked for inside"
                    + " a transaction; it would not see that transaction's writes. Read on the transaction's own connection.");
        }
        return jdbc.execute(read);
    }
}
