package dev.lockstep.recovery;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Scans both XA resources for prepared branches, groups them by global transaction, classifies
 * each group and keeps the latest picture for the console, the metrics and the health check.
 */
public class InDoubtMonitor {

    private static final Logger log = LoggerFactory.getLogger(InDoubtMonitor.class);

    private final List<BranchStore> stores;
    private final NodeRegistry nodes;
    private final CoordinatorLog coordinatorLog;
    private final IntentJournal intents;
    private final HeuristicEventRecorder heuristics;
    private final JdbcTemplate business;
    private final RecoveryProperties properties;
    private final Clock clock;
    private volatile Snapshot latest;

    /**
     * One scan: the in-doubt transactions, oldest first, and what could not be read (a resource, or a
     * source of evidence such as the coordinator log) with the reason.
     */
    public record Snapshot(Instant scannedAt, List<InDoubtTransaction> transactions, Map<String, String> scanErrors,
            Set<String> liveNodes) {
    }

    InDoubtMonitor(List<BranchStore> stores, NodeRegistry nodes, CoordinatorLog coordinatorLog, IntentJournal intents,
            HeuristicEventRecorder heuristics, JdbcTemplate business, RecoveryProperties properties, Clock clock, MeterRegistry meters) {
        this.stores = List.copyOf(stores);
        this.nodes = nodes;
        this.coordinatorLog = coordinatorLog;
        this.intents = intents;
        this.heuristics = heuristics;
        this.business = business;
        this.properties = properties;
        this.clock = clock;
        this.latest = new Snapshot(clock.instant(), List.of(), Map.of(), Set.of(nodes.selfTm()));
        for (BranchStore store : stores) {
            String resource = store.resource();
            Gauge.builder("lockstep.recovery.indoubt", () -> unscanned(resource) ? Double.NaN : branches(resource, tx -> true).size())
                    .tag("resource", resource).description("prepared branches on the resource").register(meters);
            Gauge.builder("lockstep.recovery.indoubt.oldest.age", () -> oldestAgeSeconds(resource))
                    .tag("resource", resource).baseUnit("seconds").description("age of the oldest prepared branch")
                    .register(meters);
            Gauge.builder("lockstep.recovery.orphans",
                    () -> branches(resource, tx -> tx.classification() == InDoubtClass.ORPHAN).size())
                    .tag("resource", resource).description("prepared branches of orphaned transactions").register(meters);
            Gauge.builder("lockstep.recovery.anomalies",
                    () -> branches(resource, tx -> tx.classification() == InDoubtClass.ANOMALY).size())
                    .tag("resource", resource).description("prepared branches of anomalous transactions").register(meters);
        }
    }

    public Snapshot latest() {
        return latest;
    }

    @Scheduled(fixedDelayString = "${lockstep.recovery.scan-interval:15s}", initialDelay = 0)
    public void scheduledScan() {
        try {
            scan();
        } catch (RuntimeException e) {
            log.warn("in-doubt scan failed: {}", e.getMessage());
        }
    }

    public synchronized Snapshot scan() {
        Instant now = clock.instant();
        Map<String, List<PreparedBranch>> groups = new LinkedHashMap<>();
        Map<String, String> errors = new LinkedHashMap<>();
        Set<String> resources = new LinkedHashSet<>();
        for (BranchStore store : stores) {
            resources.add(store.resource());
            try {
                for (PreparedBranch branch : store.scan()) {
                    groups.computeIfAbsent(branch.groupKey(), key -> new ArrayList<>()).add(branch);
                }
            } catch (RuntimeException e) {
                errors.put(store.resource(), String.valueOf(e.getMessage()));
            }
        }
        // Each source of facts may fail on its own (the business database down, the log unreadable): what
        // could not be read is named in the evidence and never passed on as "nothing there".
        Set<String> live = read("node heartbeats", errors, nodes::liveNodes, Set.of(nodes.selfTm()));
        Map<String, String> coordinatorStates = read("coordinator log", errors, coordinatorLog::pendingStates, Map.of());
        Map<String, Map<String, String>> priorOutcomes = read("recovery records", errors, this::priorOutcomes, Map.of());
        Map<String, String> heuristicStates = read("heuristic events", errors, heuristics::statesByGtrid, Map.of());
        InDoubtClassifier.Facts facts = new InDoubtClassifier.Facts(nodes.selfTm(), live, coordinatorStates, priorOutcomes,
                heuristicStates, resources, Map.copyOf(errors), properties.ownerWindow(), now);
        List<InDoubtTransaction> transactions = new ArrayList<>();
        groups.forEach((gtrid, branches) -> transactions.add(InDoubtClassifier.classify(gtrid, branches, facts)
                .withIntent(read("intent journal", errors, () -> intents.forGtrid(gtrid), List.of()))));
        transactions.sort(Comparator.comparing(InDoubtTransaction::oldestPreparedAt));
        Snapshot snapshot = new Snapshot(now, List.copyOf(transactions), Map.copyOf(errors), live);
        latest = snapshot;
        alert(snapshot);
        return snapshot;
    }

    private static <T> T read(String what, Map<String, String> errors, Supplier<T> source, T unknown) {
        try {
            return source.get();
        } catch (RuntimeException e) {
            errors.put(what, String.valueOf(e.getMessage()));
            return unknown;
        }
    }

    public Optional<InDoubtTransaction> find(String gtrid) {
        return scan().transactions().stream().filter(tx -> tx.gtrid().equals(gtrid)).findFirst();
    }

    public Optional<BranchStore> store(String resource) {
        return stores.stream().filter(store -> store.resource().equals(resource)).findFirst();
    }

    public Duration alertAge() {
        return properties.alertAge();
    }

    /** Orphans and anomalies at least {@code alertAge} old: what health and the alert log line report. */
    public static List<InDoubtTransaction> overdue(Snapshot snapshot, Duration alertAge) {
        return snapshot.transactions().stream()
                .filter(tx -> tx.classification() == InDoubtClass.ORPHAN || tx.classification() == InDoubtClass.ANOMALY)
                .filter(tx -> tx.age().compareTo(alertAge) >= 0)
                .toList();
    }

    /** Stable shape: log-based alerting matches on the prefix and the key=value pairs. */
    static String alertLine(InDoubtTransaction tx) {
        return "LOCKSTEP-INDOUBT-ALERT class=" + tx.classification() + " gtrid=" + tx.gtrid() + " age=" + tx.age().toSeconds()
                + "s owner=" + tx.ownerTm() + " recommendation=" + tx.recommendation() + " branches=" + tx.branches().size();
    }

    private void alert(Snapshot snapshot) {
        overdue(snapshot, properties.alertAge()).forEach(tx -> log.error(alertLine(tx)));
    }

    private Map<String, Map<String, String>> priorOutcomes() {
        Map<String, Map<String, String>> outcomes = new HashMap<>();
        business.query("select gtrid, resource, outcome from recovery_branch_outcome where outcome <> 'ALREADY_GONE' order by id",
                row -> {
                    outcomes.computeIfAbsent(row.getString(1), key -> new HashMap<>()).put(row.getString(2), row.getString(3));
                });
        return outcomes;
    }

    private List<PreparedBranch> branches(String resource, Predicate<InDoubtTransaction> which) {
        return latest.transactions().stream().filter(which).flatMap(tx -> tx.branches().stream())
                .filter(branch -> branch.resource().equals(resource)).toList();
    }

    /** A resource the latest scan could not read: its gauges say NaN (unknown), not 0. */
    private boolean unscanned(String resource) {
        return latest.scanErrors().containsKey(resource);
    }

    private double oldestAgeSeconds(String resource) {
        if (unscanned(resource)) {
            return Double.NaN;
        }
        Instant scannedAt = latest.scannedAt();
        return branches(resource, tx -> true).stream().map(PreparedBranch::preparedAt).min(Comparator.naturalOrder())
                .map(oldest -> Duration.between(oldest, scannedAt).toMillis() / 1000.0).orElse(0.0);
    }
}
