package dev.lockstep.transactions.singledatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.LockstepApplication;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.support.Api;
import dev.lockstep.support.InjectedFaults;
import dev.lockstep.support.SingleDatabaseIntegrationTest;
import dev.lockstep.support.TestDatabases;
import java.util.UUID;
import javax.sql.DataSource;
import org.activiti.spring.SpringProcessEngineConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.orm.jpa.JpaTransactionManager;

/**
 * Proof that the single-database mode is one local transaction (seed 000, section 6): the engine
 * and JPA share the DataSource and the manager, both table families sit in one database, nothing
 * of Atomikos is running, and a fault after the engine started the process rolls back both.
 */
@SingleDatabaseIntegrationTest
class SingleDatabaseModeTest {

    @Autowired
    Api api;
    @Autowired
    TestDatabases db;
    @Autowired
    InjectedFaults faults;
    @Autowired
    ApplicationContext context;

    @AfterEach
    void disarm() {
        faults.disarmAll();
    }

    @Test
    void engineAndJpaShareOneDataSourceAndOneLocalTransactionManagerWithoutAtomikos() {
        SpringProcessEngineConfiguration engine = context.getBean(SpringProcessEngineConfiguration.class);
        DataSource jpaDataSource = context.getBean(JpaTransactionManager.class).getDataSource();

        assertThat(context.getBean("transactionManager")).isInstanceOf(JpaTransactionManager.class);
        assertThat(engine.getTransactionManager()).isSameAs(context.getBean("transactionManager"));
        assertThat(((TransactionAwareDataSourceProxy) engine.getDataSource()).getTargetDataSource()).isSameAs(jpaDataSource);
        assertThat(context.getBeanNamesForType(com.atomikos.icatch.jta.UserTransactionManager.class)).isEmpty();
        assertThat(db.business().queryForList("select table_name from information_schema.tables where table_schema = 'public'"
                + " and table_name in ('application', 'approval_record', 'act_ru_task', 'act_hi_procinst')", String.class))
                .containsExactlyInAnyOrder("application", "approval_record", "act_ru_task", "act_hi_procinst");
    }

    @Test
    void aFaultAfterTheProcessStartedRollsBackTheBusinessRowsAndTheEngineRowsTogether() {
        long id = createDraft();
        faults.failAfter("approvalProcess", "start");

        Api.Response submitted = api.post("alice", "/api/applications/" + id + "/submit", null, UUID.randomUUID().toString());

        assertThat(submitted.status()).as(submitted.toString()).isGreaterThanOrEqualTo(500);
        assertThat(db.business().queryForObject("select approval_status from application where id = ?", String.class, id))
                .isEqualTo("DRAFT");
        assertThat(db.business().queryForObject("select count(*) from business_process_binding where business_id = ?",
                Integer.class, Long.toString(id))).isZero();
        assertThat(db.engineRowsForBusinessKey(id)).as("no run, task or history row of the rolled-back start").isZero();
        assertThat(db.workflow().queryForObject("select count(*) from act_ru_task t join act_ru_execution e"
                + " on t.proc_inst_id_ = e.id_ where e.business_key_ = ?", Integer.class, Long.toString(id))).isZero();
    }

    @Test
    void twoDatabaseSettingsInSingleModeStopStartupNamingTheMode() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(LockstepApplication.class).run("--lockstep.mode=single",
                "--server.port=0", "--lockstep.home=target/it-var/" + UUID.randomUUID(),
                "--lockstep.db.business.url=jdbc:postgresql://localhost:1/business"))
                .hasRootCauseInstanceOf(StartupCheckFailure.class)
                .rootCause().hasMessageStartingWith("lockstep.mode:");
    }

    private long createDraft() {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "Publish asset", "assetId": 7, "amount": 10, "riskLevel": "LOW", "sensitive": false}
                """);
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }
}
