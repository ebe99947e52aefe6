package dev.lockstep.transactions.workflow;

import javax.sql.DataSource;
import org.activiti.engine.ProcessEngine;
import org.activiti.engine.ProcessEngineConfiguration;
import org.activiti.engine.impl.cfg.ProcessEngineConfigurationImpl;
import org.activiti.engine.impl.cfg.StandaloneProcessEngineConfiguration;

/**
 * Marker that the ACT_* schema of the workflow database is in place at the engine's version, with the engine's name
 * for the database's SQL dialect, read while the schema was checked.
 */
public final class WorkflowSchema {

    /**
     * A schema setting the engine does not act on: any value other than its own keywords skips the
     * schema step, which would otherwise run outside a transaction on the strict XA pool.
     */
    static final String ALREADY_MIGRATED = "already-migrated-by-lockstep";

    private final String databaseType;

    private WorkflowSchema(String databaseType) {
        this.databaseType = databaseType;
    }

    /**
     * The engine's dialect name ("postgres", "oracle"): given to the engine up front, it does not borrow a connection
     * outside any transaction at startup to find it out, which the strict XA pool refuses.
     */
    String databaseType() {
        return databaseType;
    }

    static WorkflowSchema createOrUpgrade(DataSource plainWorkflowDataSource) {
        ProcessEngineConfigurationImpl configuration = (ProcessEngineConfigurationImpl) new StandaloneProcessEngineConfiguration()
                .setDataSource(plainWorkflowDataSource)
                .setDatabaseSchemaUpdate(ProcessEngineConfiguration.DB_SCHEMA_UPDATE_TRUE)
                .setAsyncExecutorActivate(false);
        ProcessEngine schemaEngine = configuration.buildProcessEngine();
        schemaEngine.close();
        return new WorkflowSchema(configuration.getDatabaseType());
    }
}
