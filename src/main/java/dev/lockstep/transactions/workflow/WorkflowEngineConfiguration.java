package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.DatabaseEndpoints;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.activiti.engine.HistoryService;
import org.activiti.engine.ManagementService;
import org.activiti.engine.ProcessEngine;
import org.activiti.engine.RepositoryService;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.TaskService;
import org.activiti.engine.delegate.event.ActivitiEventListener;

import org.activiti.spring.ProcessEngineFactoryBean;
import org.activiti.spring.SpringProcessEngineConfiguration;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The Activiti engine, built by hand on the workflow XA DataSource and the JTA manager so that every
 * engine command joins the caller's global transaction (activiti-spring-boot-starter is Boot 2 era
 * and would not wire this on Boot 4). In the single-database mode both beans are the JPA ones.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({EngineSettings.class, JobExecutorSettings.class})
public class WorkflowEngineConfiguration {

    /**
     * Creates or upgrades the ACT_* schema on a plain connection before the real engine starts: the
     * engine runs schema work outside any transaction, which the strict XA pool rightly refuses.
     */
    @Bean
    WorkflowSchema workflowSchema(DatabaseEndpoints endpoints) {
        return WorkflowSchema.createOrUpgrade(endpoints.workflow().schemaDataSource());
    }

    @Bean
    SpringProcessEngineConfiguration processEngineConfiguration(@Qualifier("workflowDataSource") DataSource workflowDataSource,
            @Qualifier("transactionManager") PlatformTransactionManager transactionManager, WorkflowSchema schema,
            List<EngineEventListener> listeners, EngineSettings settings, JobExecutorSettings jobs,
            ApplicationContext applicationContext) throws IOException {
        SpringProcessEngineConfiguration configuration = new StatementReusingEngineConfiguration();
        configuration.setExpressionManager(new SharedFactoryExpressionManager(applicationContext));
        configuration.setDataSource(workflowDataSource);
        configuration.setTransactionManager(transactionManager);
        configuration.setDatabaseSchemaUpdate(WorkflowSchema.ALREADY_MIGRATED);
        configuration.setDatabaseType(schema.databaseType());
        configuration.setIdGenerator(settings.idGenerator().create());
        configuration.setHistoryLevel(settings.historyLevel().level);
        // Timer jobs (step deadlines): each acquisition and each firing runs through the command executor
        // above, so a firing is one JTA transaction over both databases.
        configuration.setAsyncExecutorActivate(jobs.enabled());
        configuration.setAsyncExecutorTimerLockTimeInMillis((int) jobs.lockTime().toMillis());
        configuration.setAsyncExecutorAsyncJobLockTimeInMillis((int) jobs.lockTime().toMillis());
        configuration.setAsyncExecutorResetExpiredJobsInterval((int) jobs.resetExpiredInterval().toMillis());
        configuration.setAsyncExecutorDefaultTimerJobAcquireWaitTime((int) jobs.acquireWait().toMillis());
        configuration.setAsyncExecutorDefaultAsyncJobAcquireWaitTime((int) jobs.acquireWait().toMillis());
        configuration.setAsyncExecutorNumberOfRetries(jobs.retries());
        configuration.setDeploymentMode("single-resource");
        configuration.setDeploymentName("lockstep");
        configuration.setDeploymentResources(
                new PathMatchingResourcePatternResolver().getResources("classpath*:processes/*.bpmn20.xml"));
        // Runs inside each engine command, so what a listener writes (the todo projection) commits with the change.
        configuration.setTypedEventListeners(listeners.stream()
                .flatMap(listener -> listener.events().stream().map(type -> Map.entry(type.name(), listener)))
                .collect(Collectors.groupingBy(Map.Entry::getKey,
                        Collectors.mapping(entry -> (ActivitiEventListener) entry.getValue(), Collectors.toList()))));
        return configuration;
    }

    @Bean
    ProcessEngineFactoryBean processEngine(SpringProcessEngineConfiguration configuration) {
        ProcessEngineFactoryBean factory = new ProcessEngineFactoryBean();
        factory.setProcessEngineConfiguration(configuration);
        return factory;
    }

    @Bean
    RuntimeService runtimeService(ProcessEngine engine) {
        return engine.getRuntimeService();
    }

    @Bean
    TaskService taskService(ProcessEngine engine) {
        return engine.getTaskService();
    }

    @Bean
    HistoryService historyService(ProcessEngine engine) {
        return engine.getHistoryService();
    }

    @Bean
    ManagementService managementService(ProcessEngine engine) {
        return engine.getManagementService();
    }

    @Bean
    RepositoryService repositoryService(ProcessEngine engine) {
        return engine.getRepositoryService();
    }
}
