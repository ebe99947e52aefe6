package dev.lockstep.transactions.workflow;

import java.io.Reader;
import java.util.Properties;
import org.activiti.spring.SpringProcessEngineConfiguration;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.ExecutorType;

/**
 * The engine's MyBatis sessions reuse a prepared statement for the same SQL within one engine command
 * (MyBatis's REUSE executor) instead of preparing it anew for every execution. Each prepared statement
 * costs the driver's and the pool's wrappers and bookkeeping (under XA also pgjdbc's proxy of it), so fewer
 * of them cost less CPU in both deployments (docs/performance.md).
 */
class StatementReusingEngineConfiguration extends SpringProcessEngineConfiguration {

    @Override
    public Configuration initMybatisConfiguration(Environment environment, Reader reader, Properties properties) {
        Configuration mybatis = super.initMybatisConfiguration(environment, reader, properties);
        mybatis.setDefaultExecutorType(ExecutorType.REUSE);
        return mybatis;
    }
}
