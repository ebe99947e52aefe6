package dev.lockstep.recovery.takeover;

import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.recovery.InDoubtMonitor;
import dev.lockstep.recovery.RecoveryProperties;
import dev.lockstep.transactions.xa.log.GroupCommitLogFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Nodes whose own coordinator log is the database take over dead nodes' names; only names whose holder logged there
 * are taken ({@code recovery_node.log_store}): a file log is on its node's own disk, out of every other node's reach.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
public class PeerTakeoverConfiguration {

    /** The lease a takeover holds while it finishes the name's transactions: as long as a node's own lease. */
    @Bean(destroyMethod = "stop")
    PeerTakeover peerTakeover(LockstepProperties lockstep, RecoveryProperties recovery, InDoubtMonitor monitor,
            @Qualifier("recoveryBusinessDataSource") HikariDataSource business, DatabaseEndpoints endpoints, AuditTrail audit,
            MeterRegistry meters) {
        String self = lockstep.tm().uniqueName();
        PeerTakeover takeover = new PeerTakeover(self, "peer-takeover by " + self,
                List.of(monitor.store(DatabaseEndpoints.BUSINESS_RESOURCE).orElseThrow(),
                        monitor.store(DatabaseEndpoints.WORKFLOW_RESOURCE).orElseThrow()),
                business, endpoints.business().vendor(), audit, recovery.heartbeatTimeout(), Clock.systemUTC(), meters);
        // its metrics exist on every node; the passes run where the node itself logs to the database
        if (GroupCommitLogFactory.DATABASE.equals(GroupCommitLogFactory.storeOf(lockstep))) {
            takeover.runEvery(recovery.takeoverInterval());
        }
        return takeover;
    }
}
