package dev.lockstep.recovery;

import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.audit.AuditEntry;
import dev.lockstep.platform.audit.AuditTrail;
import dev.lockstep.platform.security.Caller;
import dev.lockstep.transactions.xa.DecodedXid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The DBA's REST surface; the console at {@code /console} is a client of exactly this. */
@RestController
@ConditionalOnXaMode
@RequestMapping("/api/recovery")
class RecoveryController {

    private final InDoubtMonitor monitor;
    private final ResolutionService resolutions;
    private final AuditTrail audit;
    private final NodeRegistry nodes;
    private final HeuristicEventRecorder heuristics;
    private final CrossDatabaseCheck crossDatabase;

    RecoveryController(InDoubtMonitor monitor, ResolutionService resolutions, AuditTrail audit, NodeRegistry nodes,
            HeuristicEventRecorder heuristics, CrossDatabaseCheck crossDatabase) {
        this.heuristics = heuristics;
        this.crossDatabase = crossDatabase;
        this.monitor = monitor;
        this.resolutions = resolutions;
        this.audit = audit;
        this.nodes = nodes;
    }

    record BranchView(String resource, String rawId, Integer formatId, String gtrid, String bqual, Instant preparedAt,
            String dbOwner, List<PreparedBranch.BranchLock> locks) {

        static BranchView of(PreparedBranch branch) {
            return new BranchView(branch.resource(), branch.rawId(), branch.xid().map(DecodedXid::formatId).orElse(null),
                    branch.xid().map(DecodedXid::gtridText).orElse(null), branch.xid().map(DecodedXid::bqualText).orElse(null),
                    branch.preparedAt(), branch.dbOwner(), branch.locks());
        }
    }

    record TransactionView(String gtrid, String ownerTm, boolean ownerAlive, InDoubtClass classification,
            Recommendation recommendation, List<String> evidence, Instant oldestPreparedAt, long ageSeconds,
            String coordinatorState, List<BranchView> branches, List<String> missingResources,
            Map<String, String> unknownResources, List<Map<String, Object>> intent) {

        static TransactionView of(InDoubtTransaction tx) {
            return new TransactionView(tx.gtrid(), tx.ownerTm(), tx.ownerAlive(), tx.classification(), tx.recommendation(),
                    tx.evidence(), tx.oldestPreparedAt(), tx.age().toSeconds(), tx.coordinatorState(),
                    tx.branches().stream().map(BranchView::of).toList(), tx.missingResources(), tx.unknownResources(),
                    tx.intent());
        }
    }

    record SnapshotView(Instant scannedAt, String selfTm, Set<String> liveNodes, Map<String, String> scanErrors,
            List<TransactionView> transactions) {
    }

    /** {@code override} may be left out: it is an exception, not a default. */
    record ProposalRequest(String gtrid, String resource, String rawId, ResolutionService.Action action, String reason,
            Boolean override, String justification) {
    }

    /** The latest scheduled scan; {@code refresh=true} scans both databases now. */
    @GetMapping("/in-doubt")
    SnapshotView inDoubt(@RequestParam(defaultValue = "false") boolean refresh) {
        InDoubtMonitor.Snapshot snapshot = refresh ? monitor.scan() : monitor.latest();
        return new SnapshotView(snapshot.scannedAt(), nodes.selfTm(), snapshot.liveNodes(), snapshot.scanErrors(),
                snapshot.transactions().stream().map(TransactionView::of).toList());
    }

    record NodesView(String self, Set<String> live, Map<String, Instant> lastHeartbeats) {
    }

    @GetMapping("/nodes")
    NodesView nodes() {
        Map<String, Instant> heartbeats = new TreeMap<>();
        nodes.nodes().forEach((name, heartbeat) -> heartbeats.put(name, heartbeat.orElse(null)));
        return new NodesView(nodes.selfTm(), nodes.liveNodes(), heartbeats);
    }

    /** Heuristic outcomes Atomikos reported on this node, newest first. */
    @GetMapping("/heuristics")
    List<Map<String, Object>> heuristics(@RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
        return heuristics.recent(limit);
    }

    /** Applications whose business status and process state disagree (checked now). */
    @GetMapping("/mismatches")
    List<CrossDatabaseCheck.Mismatch> mismatches() {
        return crossDatabase.check();
    }

    @GetMapping("/resolutions")
    List<ResolutionService.Resolution> resolutions(@RequestParam(defaultValue = "50") @Min(1) @Max(500) int limit) {
        return resolutions.recent(limit);
    }

    @PostMapping("/resolutions")
    ResolutionService.Resolution propose(@RequestBody ProposalRequest request) {
        return resolutions.propose(Caller.current().id(), new ResolutionService.Proposal(request.gtrid(), request.resource(),
                request.rawId(), request.action(), request.reason(), Boolean.TRUE.equals(request.override()),
                request.justification()));
    }

    @PostMapping("/resolutions/{id}/approve")
    ResolutionService.Resolution approve(@PathVariable long id) {
        return resolutions.approve(Caller.current().id(), id);
    }

    @PostMapping("/resolutions/{id}/execute")
    ResolutionService.Resolution execute(@PathVariable long id) {
        return resolutions.execute(Caller.current().id(), id);
    }

    @GetMapping("/audit")
    List<AuditEntry> audit(@RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
        return audit.entries(limit);
    }

    @GetMapping("/audit/verify")
    AuditTrail.Verification verify() {
        return audit.verify();
    }
}
