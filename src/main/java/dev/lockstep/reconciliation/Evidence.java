package dev.lockstep.reconciliation;

import dev.lockstep.publishing.delivery.CatalogClient.Lookup;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What both databases say about one application at one moment: its business rows and the engine's
 * runtime, history, tasks and jobs for its business key (the application id), and its {@link Publication}.
 * The rules judge this alone, and it is stored as the evidence snapshot of a repair or an incident.
 */
public record Evidence(long applicationId, String approvalStatus, String processInstanceId, String processDefinitionId,
        int lifecycleNo, long actionSeq, Instant updatedAt, List<Binding> bindings, List<String> decisions, List<StuckCommand> stuckCommands,
        List<Instance> activeInstances, List<EndedInstance> endedInstances, List<Task> openTasks, List<Job> jobs,
        List<Task> projectedOpenTasks, Publication publication) {

    /**
     * The publishing side: {@code application.publish_status}, the application's catalog publications (its
     * {@code ASSET_PUBLISH_REQUESTED} outbox events; a deadline notification is no publication), and what the catalog
     * said about the published ones ({@code catalog}, event id to answer: asked over HTTP before any transaction, empty
     * when not asked). {@code overdueBefore} is the read time minus the outbox SLA: a due time or lease end before it
     * is overdue.
     */
    public record Publication(String status, List<OutboxEvent> events, Map<String, Lookup> catalog, Instant overdueBefore) {

        /** Same business facts (status and events); the catalog's answer and the read time are not compared. */
        boolean sameState(Publication other) {
            return status.equals(other.status) && events.equals(other.events);
        }
    }

    /**
     * An outbox_event row of the application that publishes its asset; {@code payloadSha256} is its payload's
     * {@code PayloadDigest}, what the catalog must hold for the event.
     */
    public record OutboxEvent(String eventId, String eventType, String status, int retryCount, Instant nextRetryAt,
            Instant leaseUntil, String lastErrorCode, Instant updatedAt, String payloadSha256) {
    }

    /** A business_process_binding row. */
    public record Binding(String processInstanceId, String status, int lifecycleNo) {
    }

    /** A workflow_command still PROCESSING beyond the SLA. */
    public record StuckCommand(String requestId, String commandType, Instant createdAt) {
    }

    /**
     * A running process instance with its executions (parallel branches, multi-instance, waits) and the number of the
     * last action on it the workflow database holds ({@code ActionFence}; null for a run started before the fence existed).
     */
    public record Instance(String id, String definitionId, int definitionVersion, boolean suspended, int executions,
            Long actionSeq) {
    }

    /** A finished process instance and the explicit outcome its end recorded (null when none). */
    public record EndedInstance(String id, String definitionId, Instant endedAt, String deleteReason, String outcome) {
    }

    /** An open task: which one and at which step, and its hands (assignee, owner, delegation state). */
    public record Task(String id, String processInstanceId, String taskDefinitionKey, String assignee, String owner,
            String delegationState) {

        /** The same task at the same step, whoever holds it. */
        boolean sameTask(Task other) {
            return id.equals(other.id) && processInstanceId.equals(other.processInstanceId)
                    && taskDefinitionKey.equals(other.taskDefinitionKey);
        }
    }

    /** An executable, timer, suspended or dead-letter job of a running instance. */
    public record Job(String id, String processInstanceId, String kind) {
    }

    public boolean hasStatus(String... statuses) {
        return List.of(statuses).contains(approvalStatus);
    }

    public boolean isActive(String instanceId) {
        return active(instanceId) != null;
    }

    /** The running instance {@code instanceId}, or null when it does not run. */
    public Instance active(String instanceId) {
        return activeInstances.stream().filter(instance -> instance.id().equals(instanceId)).findFirst().orElse(null);
    }

    public boolean isBound(String instanceId) {
        return bindings.stream().anyMatch(binding -> binding.processInstanceId().equals(instanceId));
    }

    public EndedInstance ended(String instanceId) {
        return endedInstances.stream().filter(instance -> instance.id().equals(instanceId)).findFirst().orElse(null);
    }

    /** True when a binding row already holds the application's current lifecycle number. */
    public boolean lifecycleBound() {
        return bindings.stream().anyMatch(binding -> binding.lifecycleNo() == lifecycleNo);
    }

    /**
     * Whether {@code other}, read later, shows the same run facts a repair was decided on: business status,
     * run, lifecycle, bindings and decisions, the running and the ended instances with their outcomes.
     */
    public boolean sameRunState(Evidence other) {
        return approvalStatus.equals(other.approvalStatus) && java.util.Objects.equals(processInstanceId, other.processInstanceId)
                && lifecycleNo == other.lifecycleNo && bindings.equals(other.bindings) && decisions.equals(other.decisions)
                && activeInstances.stream().map(Instance::id).toList().equals(other.activeInstances.stream().map(Instance::id).toList())
                && endedInstances.equals(other.endedInstances) && publication.sameState(other.publication);
    }

    /** This evidence with the catalog's answers about its published events, asked before (never inside) a transaction. */
    public Evidence withCatalog(Map<String, Lookup> answers) {
        return new Evidence(applicationId, approvalStatus, processInstanceId, processDefinitionId, lifecycleNo, actionSeq, updatedAt,
                bindings, decisions, stuckCommands, activeInstances, endedInstances, openTasks, jobs, projectedOpenTasks,
                new Publication(publication.status(), publication.events(), Map.copyOf(answers), publication.overdueBefore()));
    }
}
