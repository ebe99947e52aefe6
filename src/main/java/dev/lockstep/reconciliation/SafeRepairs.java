package dev.lockstep.reconciliation;

import dev.lockstep.approval.Application;
import dev.lockstep.approval.ApplicationRepository;
import dev.lockstep.approval.BusinessProcessBinding;
import dev.lockstep.approval.BusinessProcessBindingRepository;
import dev.lockstep.approval.RunningApplications;
import dev.lockstep.approval.todo.TaskProjectionRebuild;
import dev.lockstep.approval.todo.TaskProjectionRefresh;
import dev.lockstep.reconciliation.Evidence.Instance;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.json.JsonMapper;

/**
 * The repairs inside seed 000 section 30's boundary, each one XA transaction: the application's row lock
 * first, then the evidence read again under it; only if the run facts are still those the difference was
 * found on and the rule still calls it repairable does the repair write, through the project's own code
 * (binding and application repositories, {@link RunningApplications#settle}, {@link TaskProjectionRebuild#rewriteApplication} for the
 * application's projection rows, {@link TaskProjectionRefresh} for single tasks).
 * Before/after go to reconciliation_repair and an entry to the audit trail, in the same transaction.
 */
class SafeRepairs {

    static final Set<String> RULES = Set.of(ApplicationRule.SUBMITTING_WITH_INSTANCE.id(),
            ApplicationRule.INSTANCE_WITHOUT_BINDING.id(), ApplicationRule.APPROVING_PROCESS_ENDED.id(),
            ApplicationRule.PROJECTION_DRIFT.id(), ApplicationRule.TASK_HOLDER_DRIFT.id(), PublicationRule.OUTBOX_STUCK.id(),
            PublicationRule.PUBLISHED_NOT_IN_CATALOG.id());

    enum Outcome { APPLIED, EVIDENCE_CHANGED }

    private final ReconciliationTransaction transaction;
    private final EvidenceReader reader;
    private final ApplicationRepository applications;
    private final BusinessProcessBindingRepository bindings;
    private final RunningApplications running;
    private final TaskProjectionRebuild projection;
    private final TaskProjectionRefresh projectedTasks;
    private final JsonMapper json;
    private final Clock clock;

    SafeRepairs(ReconciliationTransaction transaction, EvidenceReader reader, ApplicationRepository applications,
            BusinessProcessBindingRepository bindings, RunningApplications running, TaskProjectionRebuild projection,
            TaskProjectionRefresh projectedTasks, JsonMapper json, Clock clock) {
        this.transaction = transaction;
        this.reader = reader;
        this.applications = applications;
        this.bindings = bindings;
        this.running = running;
        this.projection = projection;
        this.projectedTasks = projectedTasks;
        this.json = json;
        this.clock = clock;
    }

    /**
     * Repairs {@code finding}, found on {@code detected}, in a transaction of its own. The catalog's answers in
     * {@code detected} were asked before it; the transaction never calls the catalog.
     */
    Outcome repair(Finding finding, Evidence detected, Long runId, String actor) {
        return transaction.run(work -> repairIn(work, finding, detected, runId, null, actor));
    }

    /**
     * Inside {@code work}'s transaction (which holds the application's row lock once this returns): re-checks and
     * repairs; {@code incidentId} names the incident on whose approved proposal this runs.
     */
    Outcome repairIn(ReconciliationTransaction.Work work, Finding finding, Evidence detected, Long runId, Long incidentId,
            String actor) {
        long applicationId = detected.applicationId();
        work.lockApplication(applicationId);
        // the publisher claims and marks events without the application's lock: hold its events still too
        work.sql(business -> business.queryForList("select event_id from outbox_event where aggregate_type = ? and aggregate_id = ?"
                + " for update", String.class, Application.BUSINESS_TYPE, Long.toString(applicationId)));
        Optional<Evidence> now = work.sql(business -> reader.read(business, applicationId))
                .map(read -> read.withCatalog(detected.publication().catalog()));
        if (now.isEmpty() || !now.get().sameRunState(detected) || !stillRepairable(finding, now.get())) {
            record(work, runId, incidentId, finding, Outcome.EVIDENCE_CHANGED, now.orElse(detected), null, actor);
            work.audit(actor, "RECONCILIATION_REPAIR_SKIPPED", applicationId, "application " + applicationId + " rule " + finding.ruleId()
                    + ": the evidence changed since detection; nothing written");
            return Outcome.EVIDENCE_CHANGED;
        }
        Evidence before = now.get();
        String command = apply(work, finding, before);
        Evidence after = work.sql(business -> reader.read(business, applicationId)).orElseThrow();
        record(work, runId, incidentId, finding, Outcome.APPLIED, before, after, actor);
        work.audit(actor, "RECONCILIATION_REPAIR", applicationId, "application " + applicationId + " rule " + finding.ruleId() + ": " + command);
        return Outcome.APPLIED;
    }

    private static boolean stillRepairable(Finding finding, Evidence now) {
        return BuiltInRules.byId(finding.ruleId()).check(now)
                .filter(again -> again.classification() == Classification.REPAIRABLE)
                .filter(again -> java.util.Objects.equals(again.processInstanceId(), finding.processInstanceId()))
                .isPresent()
                // another rule now sees something only people may decide: leave it to the incident
                && BuiltInRules.ALL.stream().map(rule -> rule.check(now))
                        .flatMap(Optional::stream).noneMatch(other -> other.classification() == Classification.INCIDENT);
    }

    /** Writes the repair; returns the command used, for the record. */
    private String apply(ReconciliationTransaction.Work work, Finding finding, Evidence evidence) {
        Instant now = clock.instant();
        long applicationId = evidence.applicationId();
        if (finding.ruleId().equals(PublicationRule.OUTBOX_STUCK.id())) {
            return work.sql(business -> OutboxRequeue.overdue(business, evidence, now));
        }
        if (finding.ruleId().equals(PublicationRule.PUBLISHED_NOT_IN_CATALOG.id())) {
            return work.sql(business -> OutboxRequeue.absentFromCatalog(business, evidence, now));
        }
        switch (ApplicationRule.valueOf(finding.ruleId())) {
            case SUBMITTING_WITH_INSTANCE -> {
                Instance instance = evidence.activeInstances().get(0);
                bindings.saveAndFlush(BusinessProcessBinding.active(Long.toString(applicationId), instance.id(),
                        instance.definitionId(), evidence.lifecycleNo(), now));
                applications.markApproving(applicationId, instance.id(), instance.definitionId(), instance.definitionVersion(),
                        null, running.summaryOf(instance.id()), now);
                return "bound " + instance.id() + " as lifecycle " + evidence.lifecycleNo() + " and marked APPROVING";
            }
            case INSTANCE_WITHOUT_BINDING -> {
                Instance instance = evidence.activeInstances().get(0);
                bindings.saveAndFlush(BusinessProcessBinding.active(Long.toString(applicationId), instance.id(),
                        instance.definitionId(), evidence.lifecycleNo(), now));
                return "bound " + instance.id() + " as lifecycle " + evidence.lifecycleNo();
            }
            case APPROVING_PROCESS_ENDED -> {
                Application application = applications.findById(applicationId).orElseThrow();
                running.settle(application, evidence.processInstanceId(), now);
                return "RunningApplications.settle: application takes the outcome " + evidence.ended(evidence.processInstanceId())
                        .outcome() + " of " + evidence.processInstanceId();
            }
            case PROJECTION_DRIFT -> {
                int rows = projection.rewriteApplication(applicationId);
                return "TaskProjectionRebuild.rewriteApplication: the application's " + rows
                        + " rows written again from the engine and the archive, no other row touched";
            }
            case TASK_HOLDER_DRIFT -> {
                List<String> tasks = ApplicationRule.heldOtherwise(evidence).stream().map(Evidence.Task::id).toList();
                tasks.forEach(task -> projectedTasks.refreshTask(Long.toString(applicationId), task));
                return "TaskProjectionRefresh.refreshTask: the rows of " + tasks + " written again from the engine";
            }
            default -> throw new IllegalArgumentException("rule " + finding.ruleId() + " has no safe repair");
        }
    }

    private void record(ReconciliationTransaction.Work work, Long runId, Long incidentId, Finding finding, Outcome outcome,
            Evidence before, Evidence after, String actor) {
        work.sql(business -> business.update("""
                insert into reconciliation_repair (run_id, incident_id, application_id, rule_id, outcome, before_state,
                       after_state, actor, repaired_at)
                values (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, runId, incidentId, before.applicationId(), finding.ruleId(), outcome.name(), json.writeValueAsString(before),
                after == null ? null : json.writeValueAsString(after), actor, java.sql.Timestamp.from(clock.instant())));
    }
}
