package dev.lockstep.approval;

import static dev.lockstep.approval.ApiFlows.complete;
import static dev.lockstep.approval.ApiFlows.openTaskId;
import static dev.lockstep.approval.ApiFlows.submit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;
import dev.lockstep.support.TestDatabases;
import java.util.List;

/** Request recipes and plain-SQL reads the return-to-an-earlier-step tests share. */
final class ReturnFlows {

    static final String MANAGER = "managerApproval";

    private final Api api;
    private final TestDatabases db;

    ReturnFlows(Api api, TestDatabases db) {
        this.api = api;
        this.db = db;
    }

    /** Submits and has bob approve the manager step; returns the process instance id. */
    String submitAndPassManager(long id) {
        String processInstanceId = submit(api, id);
        approve("bob", processInstanceId, MANAGER);
        return processInstanceId;
    }

    void approve(String user, String processInstanceId, String taskDefinitionKey) {
        Api.Response approved = complete(api, user, openTaskId(db, processInstanceId, taskDefinitionKey), "APPROVE");
        assertThat(approved.status()).as(approved.toString()).isEqualTo(200);
    }

    Api.Response returnTask(String user, String taskId, String target, String mode, String reason) {
        return returnTask(user, taskId, target, mode, reason, ApiFlows.key());
    }

    Api.Response returnTask(String user, String taskId, String target, String mode, String reason, String idempotencyKey) {
        String body = "{\"targetActivityId\":\"%s\",\"mode\":\"%s\",\"reason\":%s}".formatted(target, mode,
                reason == null ? "null" : "\"" + reason + "\"");
        return api.post(user, "/api/tasks/" + taskId + "/return", body, idempotencyKey);
    }

    List<String> returnTargetIds(String user, String taskId) {
        Api.Response targets = api.get(user, "/api/tasks/" + taskId + "/return-targets");
        assertThat(targets.status()).as(targets.toString()).isEqualTo(200);
        return targets.json().get("targets").valueStream().map(target -> target.get("id").asString()).toList();
    }

    List<String> openTaskKeys(String processInstanceId) {
        return db.workflow().queryForList("select task_def_key_ from act_ru_task where proc_inst_id_ = ? order by task_def_key_",
                String.class, processInstanceId);
    }

    /** The outcome the process recorded at its end, from history. */
    String outcome(String processInstanceId) {
        return db.workflow().queryForObject("select text_ from act_hi_varinst where proc_inst_id_ = ? and name_ = 'outcome'",
                String.class, processInstanceId);
    }
}
