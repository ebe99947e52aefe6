package dev.lockstep.reconciliation;

import dev.lockstep.platform.audit.AuditRecord;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.platform.audit.AuditTrail.Chaining;
import dev.lockstep.transactions.monitoring.TransactionLogContext;
import jakarta.persistence.EntityManager;
import java.util.function.Function;
import org.hibernate.Session;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One XA transaction over both databases for a repair or an incident step, as
 * {@code usecase.UseCaseTransaction} runs a use case. Business SQL, the audit entry and JPA writes share
 * Hibernate's connection, hence one branch: the audit entry commits with the change it records or not at all.
 */
class ReconciliationTransaction {

    private final TransactionTemplate template;
    private final EntityManager entityManager;
    private final AuditTrail audit;

    ReconciliationTransaction(PlatformTransactionManager transactionManager, EntityManager entityManager, AuditTrail audit) {
        this.template = new TransactionTemplate(transactionManager);
        this.entityManager = entityManager;
        this.audit = audit;
    }

    /** What the body of the transaction works with. */
    final class Work {

        private Work() {
        }

        /** Plain SQL on Hibernate's connection, the transaction's business branch (the connection is Hibernate's to release). */
        <T> T sql(Function<JdbcTemplate, T> statements) {
            return entityManager.unwrap(Session.class).doReturningWork(
                    connection -> statements.apply(new JdbcTemplate(new SingleConnectionDataSource(connection, true))));
        }

        /** The application's row lock, the one every action on it takes first; false when there is no such row. */
        boolean lockApplication(long applicationId) {
            return !sql(business -> business.queryForList("select id from application where id = ? for update", Long.class,
                    applicationId)).isEmpty();
        }

        /** The entry of a repair or incident step on {@code applicationId}, chained right after the commit. */
        void audit(String actor, String action, long applicationId, String detail) {
            AuditRecord record = new AuditRecord(actor, AuditRecord.rolesOf(actor), action, applicationId, null, null, null,
                    TransactionLogContext.currentGtrid(), detail);
            entityManager.unwrap(Session.class).doWork(c -> audit.append(c, record, Chaining.AFTER_COMMIT));
        }
    }

    <T> T run(Function<Work, T> body) {
        return template.execute(status -> body.apply(new Work()));
    }
}
