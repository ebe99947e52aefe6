package dev.lockstep.recovery;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the in-doubt monitor ({@code lockstep.recovery.*}).
 *
 * @param knownNodes tm names of the other nodes sharing these databases (this node is always known)
 * @param ownerWindow how long a live owner gets to finish its own prepared branches before a DBA may
 *        touch them; Atomikos waits max_timeout after first seeing an unknown XID before it presumes
 *        abort, so this defaults to just above lockstep.tm.max-timeout (5m)
 * @param heartbeatInterval how often this node records that it is alive
 * @param heartbeatTimeout a node whose heartbeat is older than this is gone
 * @param scanInterval how often both resources are scanned
 * @param alertAge orphans or anomalies older than this turn health down and log an alert
 * @param auditChainInterval how often the {@code audit-chain} job chains the decisions' audit entries waiting in
 *        {@code recovery_audit_intake}: how far the chain may trail the decisions (a read or verify chains first)
 * @param takeoverInterval how often this node looks for names whose lease has run out with transactions left to finish
 *        ({@code dev.lockstep.recovery.takeover.PeerTakeover}; the coordinator log in the database only)
 */
@ConfigurationProperties("lockstep.recovery")
public record RecoveryProperties(
        @DefaultValue List<String> knownNodes,
        @DefaultValue("6m") Duration ownerWindow,
        @DefaultValue("10s") Duration heartbeatInterval,
        @DefaultValue("1m") Duration heartbeatTimeout,
        @DefaultValue("15s") Duration scanInterval,
        @DefaultValue("5m") Duration alertAge,
        @DefaultValue("5s") Duration auditChainInterval,
        @DefaultValue("10s") Duration takeoverInterval) {
}
