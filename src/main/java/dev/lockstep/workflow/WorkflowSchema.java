package dev.lockstep.workflow;

import javax.sql.DataSource;
import org.activiti.engine.ProcessEngine;
import org.activiti.engine.ProcessEngineConfiguration;
import org.activiti.engine.impl.cfg.StandaloneProcessEngineConfiguration;

/** Marker that the ACT_* schema of the workflow database is in place at the engine's version. */
public final class WorkflowSchema {

    /**
     * A schema setting the engine does not act on: any value other than its own keywords skips the
     * schema step, which would otherwise run outside a transaction on the strict XA pool.
     */
    static final String ALREADY_MIGRATED = "already-migrated-by-lockstep";

    private WorkflowSchema() {
    }

    static WorkflowSchema createOrUpgrade(DataSource plainWorkflowDataSource) {
        ProcessEngineConfiguration configuration = new StandaloneProcessEngineConfiguration()
                .setDataSource(plainWorkflowDataSource)
                .setDatabaseSchemaUpdate(ProcessEngineConfiguration.DB_SCHEMA_UPDATE_TRUE)
                .setAsyncExecutorActivate(false);
        ProcessEngine schemaEngine = configuration.buildProcessEngine();
        schemaEngine.close();
        return new WorkflowSchema();
    }
}
