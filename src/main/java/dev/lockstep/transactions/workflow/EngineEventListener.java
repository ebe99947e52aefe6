package dev.lockstep.transactions.workflow;

import dev.lockstep.platform.AreaApi;
import java.util.List;
import org.activiti.engine.delegate.event.ActivitiEventListener;
import org.activiti.engine.delegate.event.ActivitiEventType;

/**
 * A bean that listens to the engine from inside its commands, so what it writes commits with the
 * engine's change. The engine configuration registers every such bean for the events it names, which
 * keeps the engine's wiring free of the features that listen (the todo projection is one).
 */
@AreaApi
public interface EngineEventListener extends ActivitiEventListener {

    /** The event types this listener is registered for. */
    List<ActivitiEventType> events();
}
