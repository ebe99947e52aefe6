package dev.lockstep.chaos;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Cross-database invariants of Lockstep, checked with plain read-only SQL on both databases (never
 * through the service): for each application the business status agrees with the engine, bindings
 * and process instances match one to one, no orphan or duplicate process instance, every approval
 * record points at a finished engine task, the todo projection shows exactly the engine's open tasks,
 * each running process holds its application's action count (the action fence), and no prepared
 * (in-doubt) transaction is left.
 * Plain JDBC only, so reconciliation can reuse it unchanged.
 */
public final class InvariantChecker {

    /** What was found: violations (empty means consistent) and row counts as evidence. */
    public record Result(List<String> violations, Map<String, Object> counts, List<String> preparedTransactions) {
        public boolean consistent() {
            return violations.isEmpty();
        }
    }

    private record App(long id, String status, String processInstanceId, long actionSeq) {
    }

    private record Instance(String id, String businessKey, boolean running, String outcome) {
    }

    /**
     * @param preparedAllowed true only where a scenario expects branches left for a DBA (lost coordinator log)
     */
    public Result check(Connection business, Connection workflow, boolean preparedAllowed) throws SQLException {
        List<String> violations = new ArrayList<>();
        Map<String, Object> counts = new LinkedHashMap<>();

        Map<Long, App> apps = new LinkedHashMap<>();
        try (Statement s = business.createStatement();
                ResultSet r = s.executeQuery("select id, approval_status, process_instance_id, action_seq from application order by id")) {
            while (r.next()) {
                apps.put(r.getLong(1), new App(r.getLong(1), r.getString(2), r.getString(3), r.getLong(4)));
            }
        }
        Map<String, Instance> instances = new HashMap<>();
        try (Statement s = workflow.createStatement();
                ResultSet r = s.executeQuery("select p.id_, p.business_key_, (p.end_time_ is null),"
                        + " (select v.text_ from act_hi_varinst v where v.proc_inst_id_ = p.id_ and v.name_ = 'outcome'"
                        + "  and v.execution_id_ = p.id_ limit 1) from act_hi_procinst p")) {
            while (r.next()) {
                instances.put(r.getString(1), new Instance(r.getString(1), r.getString(2), r.getBoolean(3), r.getString(4)));
            }
        }
        // an archived process has ended; its history moved to the business database (history archival)
        try (Statement s = business.createStatement();
                ResultSet r = s.executeQuery("select process_instance_id, business_key, outcome from archived_process")) {
            while (r.next()) {
                instances.put(r.getString(1), new Instance(r.getString(1), r.getString(2), false, r.getString(3)));
            }
        }
        Set<String> runtimeRoots = new HashSet<>(strings(workflow,
                "select id_ from act_ru_execution where parent_id_ is null"));
        Map<String, Integer> openTasks = new HashMap<>();
        try (Statement s = workflow.createStatement();
                ResultSet r = s.executeQuery("select proc_inst_id_, count(*) from act_ru_task group by proc_inst_id_")) {
            while (r.next()) {
                openTasks.put(r.getString(1), r.getInt(2));
            }
        }
        Map<String, List<String>> bindingsByInstance = new HashMap<>();
        Map<String, String> activeBindingByApp = new HashMap<>();
        try (Statement s = business.createStatement();
                ResultSet r = s.executeQuery("select business_id, process_instance_id, binding_status from business_process_binding")) {
            while (r.next()) {
                bindingsByInstance.computeIfAbsent(r.getString(2), k -> new ArrayList<>()).add(r.getString(1));
                if ("ACTIVE".equals(r.getString(3))) {
                    activeBindingByApp.put(r.getString(1), r.getString(2));
                }
            }
        }

        // business side -> engine side
        for (App app : apps.values()) {
            String key = Long.toString(app.id());
            List<Instance> ofApp = instances.values().stream().filter(i -> key.equals(i.businessKey())).toList();
            long running = ofApp.stream().filter(Instance::running).count();
            switch (app.status()) {
                case "DRAFT" -> {
                    // a step deadline may have returned its last run to the applicant: ended with outcome RETURNED
                    Instance last = app.processInstanceId() == null ? null : instances.get(app.processInstanceId());
                    boolean returned = last != null && !last.running() && "RETURNED".equals(last.outcome());
                    if (running > 0 || (!returned && (!ofApp.isEmpty() || app.processInstanceId() != null))) {
                        violations.add("application " + key + " is DRAFT but the engine has " + ofApp.size()
                                + " process instance(s) for it (process_instance_id=" + app.processInstanceId() + ")");
                    }
                }
                case "APPROVING" -> {
                    Instance current = app.processInstanceId() == null ? null : instances.get(app.processInstanceId());
                    if (current == null || !current.running() || !runtimeRoots.contains(current.id())) {
                        violations.add("application " + key + " is APPROVING but its process instance "
                                + app.processInstanceId() + " is not running in the engine");
                    } else if (openTasks.getOrDefault(current.id(), 0) == 0) {
                        violations.add("application " + key + " is APPROVING but its process instance has no open task");
                    }
                    if (!java.util.Objects.equals(activeBindingByApp.get(key), app.processInstanceId())) {
                        violations.add("application " + key + " is APPROVING but its ACTIVE binding points at "
                                + activeBindingByApp.get(key) + ", not " + app.processInstanceId());
                    }
                }
                case "APPROVED", "REJECTED" -> {
                    Instance last = app.processInstanceId() == null ? null : instances.get(app.processInstanceId());
                    if (last == null || last.running()) {
                        violations.add("application " + key + " is " + app.status() + " but its process instance "
                                + app.processInstanceId() + " has not finished in the engine");
                    } else if (last.outcome() != null && !last.outcome().equals(app.status())) {
                        violations.add("application " + key + " is " + app.status() + " but the engine's outcome is "
                                + last.outcome());
                    }
                }
                default -> {
                    if (running > 0) {
                        violations.add("application " + key + " is " + app.status() + " but the engine still runs a process for it");
                    }
                }
            }
            if (running > 1) {
                violations.add("application " + key + " has " + running + " running process instances (duplicate process)");
            }
        }
        // engine side -> business side: every instance has exactly one binding to an existing application
        for (Instance instance : instances.values()) {
            List<String> bound = bindingsByInstance.getOrDefault(instance.id(), List.of());
            App app = instance.businessKey() == null ? null : apps.get(parseId(instance.businessKey()));
            if (app == null) {
                violations.add("orphan process instance " + instance.id() + ": no application " + instance.businessKey());
            } else if (bound.size() != 1 || !bound.get(0).equals(instance.businessKey())) {
                violations.add("process instance " + instance.id() + " of application " + instance.businessKey()
                        + " has bindings " + bound + " (expected exactly one)");
            } else if (instance.running() && !instance.id().equals(app.processInstanceId())) {
                violations.add("process instance " + instance.id() + " runs for application " + app.id()
                        + " which points at " + app.processInstanceId());
            }
        }
        for (String boundInstance : bindingsByInstance.keySet()) {
            if (!instances.containsKey(boundInstance)) {
                violations.add("binding to process instance " + boundInstance + " which the engine never had");
            }
        }
        // every recorded decision is a completed engine task
        Set<String> finishedTasks = new HashSet<>(strings(workflow,
                "select id_ from act_hi_taskinst where end_time_ is not null"));
        finishedTasks.addAll(strings(business, "select task_id from archived_task"));
        for (String taskId : strings(business, "select task_id from approval_record")) {
            if (!finishedTasks.contains(taskId)) {
                violations.add("approval record for task " + taskId + " but the engine has not completed that task");
            }
        }
        checkApplicationEvents(business, apps, instances, violations);

        // the todo projection is written in the same transaction as the engine's task changes
        Map<String, String> engineOpen = pairs(workflow, "select id_, coalesce(assignee_, '-') || ', owner ' || coalesce(owner_, '-')"
                + " || ', delegation ' || coalesce(delegation_, '-') from act_ru_task");
        Map<String, String> projectedOpen = pairs(business, "select task_id, coalesce(assignee, '-') || ', owner ' || coalesce(owner, '-')"
                + " || ', delegation ' || coalesce(delegation_state, '-') from task_projection where state = 'OPEN'");
        if (!engineOpen.equals(projectedOpen)) {
            Set<String> differing = new java.util.TreeSet<>(engineOpen.keySet());
            differing.addAll(projectedOpen.keySet());
            differing.removeIf(task -> java.util.Objects.equals(engineOpen.get(task), projectedOpen.get(task)));
            for (String task : differing) {
                violations.add("task " + task + ": open in the engine with assignee " + engineOpen.get(task)
                        + "; in the todo projection " + projectedOpen.get(task));
            }
        }
        // the action fence: a running process has seen exactly as many actions as its application counted
        Map<String, String> fenceSeen = pairs(workflow,
                "select proc_inst_id_, cast(long_ as varchar) from act_ru_variable where name_ = 'lockstepActionSeq'"
                        + " and execution_id_ = proc_inst_id_");
        for (App app : apps.values()) {
            if ("APPROVING".equals(app.status()) && app.processInstanceId() != null
                    && !Long.toString(app.actionSeq()).equals(fenceSeen.get(app.processInstanceId()))) {
                violations.add("application " + app.id() + " counts " + app.actionSeq() + " actions but its process "
                        + app.processInstanceId() + " holds " + fenceSeen.get(app.processInstanceId()));
            }
        }

        List<String> prepared = new ArrayList<>();
        prepared.addAll(strings(business, "select 'business: ' || gid from pg_prepared_xacts"));
        prepared.addAll(strings(workflow, "select 'workflow: ' || gid from pg_prepared_xacts"));
        if (!preparedAllowed && !prepared.isEmpty()) {
            violations.add(prepared.size() + " prepared transaction(s) left: " + prepared);
        }

        Map<String, Long> byStatus = new java.util.TreeMap<>();
        apps.values().forEach(a -> byStatus.merge(a.status(), 1L, Long::sum));
        counts.put("applications by status", byStatus);
        counts.put("bindings", bindingsByInstance.values().stream().mapToInt(List::size).sum());
        counts.put("process instances (running/finished)",
                instances.values().stream().filter(Instance::running).count() + "/"
                        + instances.values().stream().filter(i -> !i.running()).count());
        counts.put("open tasks", openTasks.values().stream().mapToInt(Integer::intValue).sum());
        return new Result(violations, counts, prepared);
    }

    /**
     * The trail of withdrawals and terminations: every CANCELED application's last run has exactly one
     * application_event, of the kind the engine recorded as its outcome; no event without the CANCELED state.
     */
    private static void checkApplicationEvents(Connection business, Map<Long, App> apps, Map<String, Instance> instances,
            List<String> violations) throws SQLException {
        Map<String, List<String>> eventsByInstance = new HashMap<>();
        try (Statement s = business.createStatement();
                ResultSet r = s.executeQuery("select application_id, process_instance_id, kind from application_event")) {
            while (r.next()) {
                String instance = r.getString(2);
                String kind = r.getString(3);
                App app = apps.get(r.getLong(1));
                if (!kind.equals("WITHDRAWN") && !kind.equals("TERMINATED")) {
                    checkDeadlineEvent(r.getLong(1), instance, kind, app, instances, violations);
                    continue;
                }
                eventsByInstance.computeIfAbsent(instance, k -> new ArrayList<>()).add(kind);
                if (app == null || !"CANCELED".equals(app.status()) || !instance.equals(app.processInstanceId())) {
                    violations.add("application event " + r.getString(3) + " for application " + r.getLong(1) + " run " + instance
                            + " but that application is " + (app == null ? "missing" : app.status() + " on run " + app.processInstanceId()));
                }
            }
        }
        for (App app : apps.values()) {
            if (!"CANCELED".equals(app.status())) {
                continue;
            }
            List<String> events = eventsByInstance.getOrDefault(app.processInstanceId(), List.of());
            Instance run = instances.get(app.processInstanceId());
            if (events.size() != 1) {
                violations.add("application " + app.id() + " is CANCELED with " + events.size()
                        + " application event(s) for its run " + app.processInstanceId() + " (expected exactly one)");
            } else if (run != null && run.outcome() != null && !run.outcome().equals(events.get(0))) {
                violations.add("application " + app.id() + " has a " + events.get(0) + " event but the engine's outcome is "
                        + run.outcome());
            }
        }
    }

    /**
     * A step deadline's trail entry: a reminder or escalation on any run of the application; a final
     * action only on a run the engine ended with the matching outcome.
     */
    private static void checkDeadlineEvent(long applicationId, String instance, String kind, App app,
            Map<String, Instance> instances, List<String> violations) {
        Instance run = instances.get(instance);
        if (app == null || run == null) {
            violations.add("application event " + kind + " for application " + applicationId + " run " + instance
                    + " but the application or the run does not exist");
            return;
        }
        String expectedOutcome = switch (kind) {
            case "OVERDUE_REJECTED" -> "REJECTED";
            case "OVERDUE_RETURNED" -> "RETURNED";
            default -> null;
        };
        if (expectedOutcome != null && (run.running() || !expectedOutcome.equals(run.outcome()))) {
            violations.add("application event " + kind + " for application " + applicationId + " but its run " + instance
                    + (run.running() ? " still runs" : " ended with outcome " + run.outcome()));
        }
    }

    private static long parseId(String key) {
        try {
            return Long.parseLong(key);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Map<String, String> pairs(Connection c, String sql) throws SQLException {
        Map<String, String> out = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                out.put(r.getString(1), r.getString(2));
            }
        }
        return out;
    }

    private static List<String> strings(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }
}
