package dev.lockstep.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.support.Api;

/** Small request recipes the approval tests share. */
final class ApiFlows {

    private ApiFlows() {
    }

    static long createDraft(Api api, String riskLevel, boolean sensitive) {
        Api.Response created = api.post("alice", "/api/applications", """
                {"title": "Publish asset", "assetId": 42, "amount": 1200.50, "riskLevel": "%s", "sensitive": %s}
                """.formatted(riskLevel, sensitive));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        return created.json().get("id").asLong();
    }
}
