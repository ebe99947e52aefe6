package dev.lockstep.transactions.workflow;

import javax.el.ExpressionFactory;
import org.activiti.engine.delegate.VariableScope;
import org.activiti.engine.impl.el.ActivitiElContext;
import org.activiti.spring.SpringExpressionManager;
import org.springframework.context.ApplicationContext;

/**
 * The expression manager Activiti's Spring factory would create, with one change: every evaluation
 * context carries the engine's own {@link ExpressionFactory}. Without it, JUEL's {@code BeanELResolver}
 * (a new one per context) calls {@code ExpressionFactory.newInstance()} for each method call in a BPMN
 * expression, and that searches the class path (every nested jar of the executable jar) for its service
 * file and {@code el.properties} each time: 16-24 % of the service's CPU in the benchmark
 * (docs/performance.md).
 */
final class SharedFactoryExpressionManager extends SpringExpressionManager {

    SharedFactoryExpressionManager(ApplicationContext applicationContext) {
        super(applicationContext, null);
    }

    @Override
    protected ActivitiElContext createElContext(VariableScope variableScope) {
        ActivitiElContext context = super.createElContext(variableScope);
        context.putContext(ExpressionFactory.class, expressionFactory);
        return context;
    }
}
