package dev.lockstep.transactions.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.atomikos.datasource.xa.XAResourceTransaction;
import com.atomikos.icatch.config.Configuration;
import com.atomikos.icatch.imp.CoordinatorImp;
import dev.lockstep.support.LockstepIntegrationTest;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.logging.logback.StructuredLogEncoder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.jta.JtaTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** The MDC carries the real global transaction id while the JTA transaction runs, and nothing after. */
@LockstepIntegrationTest
@ExtendWith(OutputCaptureExtension.class)
class TransactionLogContextTest {

    private static final org.slf4j.Logger log = LoggerFactory.getLogger(TransactionLogContextTest.class);

    @Autowired
    JtaTransactionManager transactionManager;

    @Autowired
    @Qualifier("businessDataSource")
    DataSource business;

    @Autowired
    @Qualifier("workflowDataSource")
    DataSource workflow;

    @AfterEach
    void clearMdc() {
        MDC.clear();
    }

    /** The gtrid in the MDC is the global part of the XIDs Atomikos hands to both databases' drivers. */
    @Test
    void bindsTheGtridOfTheXidsSentToBothDatabasesAndTheBusinessKey(CapturedOutput output) {
        Map<String, String> seen = new HashMap<>();
        Map<String, String> xidGtrids = new HashMap<>();

        new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
            TransactionLogContext.bind("4711");
            new JdbcTemplate(business).queryForObject("select 1", Integer.class);
            new JdbcTemplate(workflow).queryForObject("select 1", Integer.class);
            seen.putAll(MDC.getCopyOfContextMap());
            log.info("inside the use case");
            CoordinatorImp coordinator = (CoordinatorImp) Configuration.getCompositeTransactionManager()
                    .getCompositeTransaction().getCompositeCoordinator();
            coordinator.getParticipants().stream()
                    .filter(XAResourceTransaction.class::isInstance).map(XAResourceTransaction.class::cast)
                    .forEach(branch -> xidGtrids.put(branch.getResourceName(),
                            new String(branch.getXid().getGlobalTransactionId(), StandardCharsets.US_ASCII)));
        });

        String gtrid = seen.get(TransactionLogContext.GTRID);
        assertThat(gtrid).startsWith("lockstep-it.tm");
        assertThat(seen).containsEntry(TransactionLogContext.BUSINESS_KEY, "4711");
        assertThat(xidGtrids).containsOnlyKeys("business-db", "workflow-db").containsValues(gtrid);
        assertThat(xidGtrids.values()).containsOnly(gtrid);
        assertThat(output.getOut()).contains("[gtrid=" + gtrid + " businessKey=4711] ");
        assertThat(MDC.get(TransactionLogContext.GTRID)).as("cleared after commit").isNull();
        assertThat(MDC.get(TransactionLogContext.BUSINESS_KEY)).isNull();
    }

    @Test
    void clearsAfterRollbackAndPutsBackWhatTheThreadHadBefore() {
        MDC.put(TransactionLogContext.BUSINESS_KEY, "set-by-the-caller");

        assertThatThrownBy(() -> new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
            TransactionLogContext.bind("42");
            assertThat(MDC.get(TransactionLogContext.GTRID)).isNotNull();
            throw new IllegalStateException("use case failed");
        })).hasMessage("use case failed");

        assertThat(MDC.get(TransactionLogContext.GTRID)).isNull();
        assertThat(MDC.get(TransactionLogContext.BUSINESS_KEY)).isEqualTo("set-by-the-caller");
    }

    @Test
    void aRequiresNewTransactionHasItsOwnGtridAndTheOuterOneComesBack() {
        TransactionTemplate requiresNew = new TransactionTemplate(transactionManager);
        requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        AtomicReference<String> outer = new AtomicReference<>();
        AtomicReference<String> inner = new AtomicReference<>();
        AtomicReference<String> afterInner = new AtomicReference<>();

        new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
            TransactionLogContext.bind("1");
            outer.set(MDC.get(TransactionLogContext.GTRID));
            requiresNew.executeWithoutResult(innerStatus -> {
                TransactionLogContext.bind("2");
                inner.set(MDC.get(TransactionLogContext.GTRID) + "/" + MDC.get(TransactionLogContext.BUSINESS_KEY));
            });
            afterInner.set(MDC.get(TransactionLogContext.GTRID) + "/" + MDC.get(TransactionLogContext.BUSINESS_KEY));
        });

        assertThat(inner.get()).endsWith("/2").doesNotStartWith(outer.get() + "/");
        assertThat(afterInner.get()).isEqualTo(outer.get() + "/1");
        assertThat(MDC.get(TransactionLogContext.GTRID)).isNull();
    }

    @Test
    void bindingTwiceInOneTransactionReplacesTheBusinessKeyAndStillClears() {
        new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
            TransactionLogContext.bind("first");
            String gtrid = MDC.get(TransactionLogContext.GTRID);
            TransactionLogContext.bind("second");
            assertThat(MDC.get(TransactionLogContext.GTRID)).isEqualTo(gtrid);
            assertThat(MDC.get(TransactionLogContext.BUSINESS_KEY)).isEqualTo("second");
        });

        assertThat(MDC.getCopyOfContextMap()).doesNotContainKeys(TransactionLogContext.GTRID, TransactionLogContext.BUSINESS_KEY);
    }

    @Test
    void refusesToBindOutsideATransaction() {
        assertThatThrownBy(() -> TransactionLogContext.bind("42"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("@Transactional");
        assertThat(MDC.get(TransactionLogContext.BUSINESS_KEY)).isNull();
    }

    /** With LOGGING_STRUCTURED_FORMAT_CONSOLE=ecs each line is JSON; the MDC keys become fields of it. */
    @Test
    void theEcsJsonFormatCarriesGtridAndBusinessKey() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        Logger logger = context.getLogger(TransactionLogContextTest.class);
        ListAppender<ILoggingEvent> captured = new ListAppender<>();
        captured.start();
        logger.addAppender(captured);
        AtomicReference<String> gtrid = new AtomicReference<>();
        try {
            new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
                TransactionLogContext.bind("4711");
                gtrid.set(MDC.get(TransactionLogContext.GTRID));
                log.info("submitted");
            });
        } finally {
            logger.detachAppender(captured);
        }
        StructuredLogEncoder ecs = new StructuredLogEncoder();
        ecs.setContext(context); // Boot's logging system left the application's Environment there
        ecs.setFormat("ecs");
        ecs.start();

        String json = new String(ecs.encode(captured.list.get(0)), StandardCharsets.UTF_8);

        assertThat(json).startsWith("{").contains("\"message\":\"submitted\"")
                .contains("\"gtrid\":\"" + gtrid.get() + "\"").contains("\"businessKey\":\"4711\"");
    }
}
