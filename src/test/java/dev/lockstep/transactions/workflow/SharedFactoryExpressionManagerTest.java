package dev.lockstep.transactions.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.UseCaseIntegrationTest;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import org.activiti.engine.ManagementService;
import org.activiti.engine.ProcessEngine;
import org.activiti.engine.impl.cfg.ProcessEngineConfigurationImpl;
import org.activiti.engine.impl.el.NoExecutionVariableScope;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A method call in an engine expression must not make JUEL look up its expression factory on the class
 * path again: each lookup searches every nested jar (the CPU the benchmark found). The lookups go through
 * the thread's context class loader, which this test replaces by one that records them.
 */
class SharedFactoryExpressionManagerTest extends UseCaseIntegrationTest {

    @Autowired
    ProcessEngine engine;
    @Autowired
    ManagementService management;

    @Test
    void aMethodCallInAnEngineExpressionDoesNotSearchTheClassPath() {
        ProcessEngineConfigurationImpl configuration = (ProcessEngineConfigurationImpl) engine.getProcessEngineConfiguration();
        RecordingClassLoader recording = new RecordingClassLoader(Thread.currentThread().getContextClassLoader());
        ClassLoader original = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(recording);
        Object value;
        try {
            value = management.executeCommand(context -> configuration.getExpressionManager()
                    .createExpression("${'lock'.concat('step')}")
                    .getValue(NoExecutionVariableScope.getSharedInstance()));
        } finally {
            Thread.currentThread().setContextClassLoader(original);
        }

        assertThat(value).isEqualTo("lockstep");
        assertThat(recording.lookups).noneMatch(name -> name.contains("javax.el.ExpressionFactory") || name.equals("el.properties"));
    }

    private static final class RecordingClassLoader extends ClassLoader {

        final List<String> lookups = new ArrayList<>();

        RecordingClassLoader(ClassLoader parent) {
            super(parent);
        }

        @Override
        public URL getResource(String name) {
            lookups.add(name);
            return super.getResource(name);
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            lookups.add(name);
            return super.getResourceAsStream(name);
        }
    }
}
