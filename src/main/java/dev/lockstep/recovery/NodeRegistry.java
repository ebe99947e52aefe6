package dev.lockstep.recovery;

import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Which transaction managers are alive. Every node renews a heartbeat row (its name's lease, {@link
 * TransactionManagerLease#renewEvery}) in the business database; a node whose heartbeat is older than the timeout is
 * gone, and so is its recovery log as far as this node can tell.
 */
public class NodeRegistry {

    private final String selfTm;
    private final JdbcTemplate business;
    private final RecoveryProperties properties;
    private final Clock clock;

    NodeRegistry(String selfTm, JdbcTemplate business, RecoveryProperties properties, Clock clock) {
        this.selfTm = selfTm;
        this.business = business;
        this.properties = properties;
        this.clock = clock;
    }

    public String selfTm() {
        return selfTm;
    }

    /** Every node we know of (configured or ever seen) with its last heartbeat, if any. */
    public Map<String, Optional<Instant>> nodes() {
        Map<String, Optional<Instant>> nodes = new HashMap<>();
        nodes.put(selfTm, Optional.of(clock.instant()));
        properties.knownNodes().forEach(name -> nodes.putIfAbsent(name, Optional.empty()));
        business.query("select tm_name, heartbeat_at from recovery_node", row -> {
            if (!row.getString(1).equals(selfTm)) {
                nodes.put(row.getString(1), Optional.of(row.getTimestamp(2).toInstant()));
            }
        });
        return nodes;
    }

    /** This node plus every node whose heartbeat is fresh. */
    public Set<String> liveNodes() {
        Instant cutoff = clock.instant().minus(properties.heartbeatTimeout());
        Set<String> live = new TreeSet<>();
        nodes().forEach((name, heartbeat) -> {
            if (heartbeat.filter(at -> at.isAfter(cutoff)).isPresent()) {
                live.add(name);
            }
        });
        return live;
    }
}
