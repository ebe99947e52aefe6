package dev.lockstep.approval;

import dev.lockstep.workflow.ActionFence;
import java.time.Clock;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * The lock every action on a running application takes first: the application's business row lock,
 * which serializes actions (parallel tasks meet at a join), and then the {@link ActionFence}, so that
 * what the action reads from the workflow includes everything its predecessor committed.
 */
@Component
class RunningStepLock {

    private final ApplicationRepository applications;
    private final ActionFence fence;
    private final Clock clock;

    RunningStepLock(ApplicationRepository applications, ActionFence fence, Clock clock) {
        this.applications = applications;
        this.fence = fence;
        this.clock = clock;
    }

    /** The application as locked, or empty when it is no longer being approved under this run. */
    Optional<Application> lock(long applicationId, String processInstanceId) {
        if (applications.lockRunningStep(applicationId, processInstanceId, clock.instant()) == 0) {
            return Optional.empty();
        }
        Application locked = applications.findById(applicationId).orElseThrow();
        fence.enter(processInstanceId, locked.getActionSeq());
        return Optional.of(locked);
    }
}
