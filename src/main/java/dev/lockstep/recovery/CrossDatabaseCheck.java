package dev.lockstep.recovery;

import dev.lockstep.platform.web.ApiException;
import dev.lockstep.transactions.workflow.ActionFence;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.activiti.engine.HistoryService;
import org.activiti.engine.RuntimeService;
import org.activiti.engine.history.HistoricProcessInstance;
import org.activiti.engine.runtime.ProcessInstance;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Finds applications whose business state and process state disagree — what a silently lost
 * branch leaves behind (Atomikos treats a branch that vanished at commit time as committed). The
 * engine is asked through its API only. Besides the status, each action's count (the action fence) is compared:
 * a run holding another count than its application saw an action commit in one database only. Applications
 * changed within the settle time are skipped, so a commit still travelling between the two databases is not
 * reported.
 */
public class CrossDatabaseCheck {

    private static final int LIMIT = 500;

    private final JdbcTemplate business;
    private final RuntimeService runtime;
    private final HistoryService history;
    private final Duration settle;
    private final Clock clock;

    CrossDatabaseCheck(JdbcTemplate business, RuntimeService runtime, HistoryService history, Duration settle, Clock clock) {
        this.business = business;
        this.runtime = runtime;
        this.history = history;
        this.settle = settle;
        this.clock = clock;
    }

    /** One disagreement: the application's status, what the engine says, and why that cannot both be true. */
    public record Mismatch(long applicationId, String approvalStatus, String processInstanceId, String engineState,
            String problem, Instant updatedAt) {
    }

    public List<Mismatch> check() {
        record Row(long id, String status, String processInstanceId, long actionSeq, Instant updatedAt, boolean archived) {
        }
        // an archived process has ended: its history moved from the engine to archived_process
        List<Row> rows = business.query("""
                select id, approval_status, process_instance_id, action_seq, updated_at,
                       case when exists (select 1 from archived_process h
                                          where h.process_instance_id = application.process_instance_id) then 1 else 0 end
                  from application
                where process_instance_id is not null and updated_at < ? order by updated_at desc fetch first ? rows only
                """, (row, n) -> new Row(row.getLong(1), row.getString(2), row.getString(3), row.getLong(4),
                row.getTimestamp(5).toInstant(), row.getInt(6) == 1), Timestamp.from(clock.instant().minus(settle)), LIMIT);
        if (rows.isEmpty()) {
            return List.of();
        }
        Set<String> ids = new HashSet<>();
        rows.forEach(row -> ids.add(row.processInstanceId()));
        Set<String> running = new HashSet<>();
        Map<String, Boolean> ended = new HashMap<>();
        Map<String, Long> fence;
        try {
            for (ProcessInstance instance : runtime.createProcessInstanceQuery().processInstanceIds(ids).list()) {
                running.add(instance.getId());
            }
            fence = ActionFence.countsHeld(runtime, running);
            for (HistoricProcessInstance instance : history.createHistoricProcessInstanceQuery().processInstanceIds(ids).list()) {
                ended.put(instance.getId(), instance.getEndTime() != null);
            }
        } catch (RuntimeException e) {
            // an unread engine is not "no process instance": every application would be reported, or none
            throw ApiException.retryLater("RECOVERY_CROSS_CHECK_UNAVAILABLE", "the workflow database could not be read ("
                    + e.getMessage() + "): whether business and process state agree is unknown; retry when it is back");
        }
        List<Mismatch> mismatches = new ArrayList<>();
        for (Row row : rows) {
            String engineState = running.contains(row.processInstanceId()) ? "RUNNING"
                    : row.archived() || Boolean.TRUE.equals(ended.get(row.processInstanceId())) ? "ENDED" : "UNKNOWN";
            String problem = problem(row.status(), engineState);
            Long engineActionSeq = fence.get(row.processInstanceId());
            if (problem == null && "RUNNING".equals(engineState) && engineActionSeq != null && engineActionSeq != row.actionSeq()) {
                problem = "the application counts " + row.actionSeq() + " actions but its process holds action " + engineActionSeq
                        + ": an action committed in one database only";
            }
            if (problem != null) {
                mismatches.add(new Mismatch(row.id(), row.status(), row.processInstanceId(), engineState, problem,
                        row.updatedAt()));
            }
        }
        return mismatches;
    }

    static String problem(String approvalStatus, String engineState) {
        boolean finalStatus = Set.of("APPROVED", "REJECTED", "CANCELED").contains(approvalStatus);
        if ("UNKNOWN".equals(engineState)) {
            return "the workflow database has no process instance the application points to";
        }
        if (finalStatus && "RUNNING".equals(engineState)) {
            return "the application is " + approvalStatus + " but its process is still running: the engine never moved";
        }
        if ("APPROVING".equals(approvalStatus) && "ENDED".equals(engineState)) {
            return "the process has ended but the application is still APPROVING";
        }
        return null;
    }
}
