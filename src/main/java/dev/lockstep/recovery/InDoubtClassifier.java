package dev.lockstep.recovery;

import dev.lockstep.transactions.xa.DecodedXid;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Classifies the branches of one global transaction from what can be known about it. Pure: every
 * fact comes in through {@link Facts}, so each rule is tested without a database.
 *
 * <p>Atomikos prepares every branch before it logs a decision, logs COMMITTING, commits each
 * branch, then forgets. So: a logged COMMITTING means commit; an intact log without a record
 * means no decision was reached and presumed abort applies; a committed sibling means the global
 * outcome already is commit. Without the owner's log (another node's disk) nothing proves either.
 */
public final class InDoubtClassifier {

    private InDoubtClassifier() {
    }

    /**
     * What is known around one scan.
     *
     * @param coordinatorStates this node's recovery log: coordinator id (gtrid) to state
     * @param priorOutcomes per gtrid, per resource, how a DBA already ended a branch (COMMITTED, ROLLED_BACK)
     * @param heuristics per gtrid, the heuristic state Atomikos reported for it (HEUR_MIXED, ...)
     * @param unknowns what could not be read at this scan, with the reason: a resource (its branches are
     *        unknown, not absent) or a source of the other facts (the coordinator log, the recovery records)
     */
    public record Facts(String selfTm, Set<String> liveNodes, Map<String, String> coordinatorStates,
            Map<String, Map<String, String>> priorOutcomes, Map<String, String> heuristics, Set<String> resources,
            Map<String, String> unknowns, Duration ownerWindow, Instant now) {
    }

    public static InDoubtTransaction classify(String gtrid, List<PreparedBranch> branches, Facts facts) {
        List<String> evidence = new ArrayList<>();
        Instant oldest = branches.stream().map(PreparedBranch::preparedAt).min(Comparator.naturalOrder()).orElse(facts.now());
        Duration age = Duration.between(oldest, facts.now());
        Set<String> missing = new TreeSet<>(facts.resources());
        branches.forEach(branch -> missing.remove(branch.resource()));
        missing.removeAll(facts.unknowns().keySet());
        Map<String, String> unknown = new TreeMap<>(facts.unknowns());
        unknown.forEach((what, reason) -> evidence.add(facts.resources().contains(what)
                ? "the branch on " + what + " is UNKNOWN: the database could not be scanned (" + reason + ")"
                : what + " could not be read (" + reason + "): the evidence below is incomplete"));

        Optional<String> owner = owner(branches);
        if (owner.isEmpty()) {
            evidence.add("the transaction id is not an Atomikos XID of a Lockstep node (raw id "
                    + branches.get(0).rawId() + "): no transaction manager of ours will ever finish it");
            return result(gtrid, null, false, InDoubtClass.ORPHAN, Recommendation.MANUAL, evidence, oldest, age, null,
                    branches, missing, unknown);
        }
        String ownerTm = owner.get();
        boolean self = ownerTm.equals(facts.selfTm());
        boolean alive = facts.liveNodes().contains(ownerTm);
        evidence.add(self ? "owner " + ownerTm + " is this node (alive)"
                : alive ? "owner " + ownerTm + " is alive (fresh heartbeat)"
                        : "owner " + ownerTm + " is gone: no heartbeat within the timeout, its recovery log is not reachable");

        String state = self ? facts.coordinatorStates().get(gtrid) : null;
        if (self) {
            evidence.add(state != null ? "this node's recovery log records the decision " + state
                    : "this node's recovery log has no record of it: no commit decision was logged (presumed abort)");
        } else {
            evidence.add("the decision, if any, is in " + ownerTm + "'s recovery log, not readable here");
        }
        for (String resource : missing) {
            evidence.add("no prepared branch on " + resource + ": already committed, rolled back, or never prepared");
        }
        Map<String, String> prior = facts.priorOutcomes().getOrDefault(gtrid, Map.of());
        prior.forEach((resource, outcome) -> evidence.add("the branch on " + resource + " was already " + outcome
                + " by a DBA resolution"));
        boolean siblingCommitted = prior.containsValue("COMMITTED");
        boolean siblingRolledBack = prior.containsValue("ROLLED_BACK");

        String heuristic = state != null && state.startsWith("HEUR") ? state : facts.heuristics().get(gtrid);
        if (heuristic != null) {
            evidence.add("the transaction manager reported a heuristic outcome " + heuristic
                    + ": a resource decided on its own, the databases may disagree");
            return result(gtrid, ownerTm, alive, InDoubtClass.ANOMALY, Recommendation.MANUAL, evidence, oldest, age, state,
                    branches, missing, unknown);
        }
        if (siblingCommitted && (siblingRolledBack || "ABORTING".equals(state))) {
            evidence.add("branches of this transaction already ended differently: manual repair needed");
            return result(gtrid, ownerTm, alive, InDoubtClass.ANOMALY, Recommendation.MANUAL, evidence, oldest, age, state,
                    branches, missing, unknown);
        }
        if (siblingCommitted) {
            evidence.add("a sibling branch is committed while this one is prepared: commit completes the global outcome");
            return result(gtrid, ownerTm, alive, InDoubtClass.ANOMALY, Recommendation.COMMIT, evidence, oldest, age, state,
                    branches, missing, unknown);
        }
        if ("COMMITTING".equals(state) && siblingRolledBack) {
            evidence.add("the logged decision is commit but a sibling branch was rolled back: manual repair needed");
            return result(gtrid, ownerTm, alive, InDoubtClass.ANOMALY, Recommendation.MANUAL, evidence, oldest, age, state,
                    branches, missing, unknown);
        }

        Recommendation recommendation;
        if ("COMMITTING".equals(state)) {
            recommendation = Recommendation.COMMIT;
        } else if (siblingRolledBack || (self && "ABORTING".equals(state))) {
            recommendation = Recommendation.ROLLBACK;
        } else if (!unknown.isEmpty()) {
            // an unscanned sibling may be committed, an unread log may hold COMMITTING: rollback could split it
            evidence.add("no ROLLBACK advised while part of the evidence is unknown: a sibling branch may have committed");
            recommendation = Recommendation.MANUAL;
        } else if (self && state == null && !missing.isEmpty()) {
            evidence.add("no commit decision is logged, but " + missing + " has no prepared branch: either it was never"
                    + " prepared (then rollback is right) or it committed and the log record is gone (then rollback splits"
                    + " the transaction); check the intent and the rows on " + missing + " before choosing");
            recommendation = Recommendation.MANUAL;
        } else if (self && state == null) {
            recommendation = Recommendation.ROLLBACK;
        } else {
            recommendation = Recommendation.MANUAL;
        }

        InDoubtClass classification;
        boolean young = age.compareTo(facts.ownerWindow()) < 0;
        if (alive && "COMMITTING".equals(state)) {
            classification = InDoubtClass.BEING_RECOVERED;
            evidence.add("Atomikos recovery replays the logged commit");
        } else if (alive && young) {
            classification = InDoubtClass.IN_FLIGHT;
            evidence.add("younger than the owner window " + facts.ownerWindow() + ": the owner will finish it");
        } else if (alive && !self) {
            classification = InDoubtClass.BEING_RECOVERED;
            evidence.add("past the owner window: " + ownerTm + "'s recovery is responsible; check that node if it stays");
        } else if (alive) {
            classification = InDoubtClass.ORPHAN;
            evidence.add("past the owner window and still prepared: Atomikos's presumed abort did not happen"
                    + " (recovery log lost or replaced?) — check the business intent before acting");
        } else {
            classification = InDoubtClass.ORPHAN;
        }
        return result(gtrid, ownerTm, alive, classification, recommendation, evidence, oldest, age, state, branches,
                missing, unknown);
    }

    private static Optional<String> owner(List<PreparedBranch> branches) {
        Set<String> owners = new TreeSet<>();
        for (PreparedBranch branch : branches) {
            Optional<String> owner = branch.xid().filter(DecodedXid::isAtomikos).flatMap(DecodedXid::ownerTm);
            if (owner.isEmpty()) {
                return Optional.empty();
            }
            owners.add(owner.get());
        }
        // Atomikos gives every branch of one gtrid the same owner prefix; anything else is not ours.
        return owners.size() == 1 ? Optional.of(owners.iterator().next()) : Optional.empty();
    }

    private static InDoubtTransaction result(String gtrid, String owner, boolean alive, InDoubtClass classification,
            Recommendation recommendation, List<String> evidence, Instant oldest, Duration age, String state,
            List<PreparedBranch> branches, Set<String> missing, Map<String, String> unknown) {
        return new InDoubtTransaction(gtrid, owner, alive, classification, recommendation, List.copyOf(evidence), oldest,
                age, state, List.copyOf(branches), List.copyOf(missing), Map.copyOf(unknown), List.of());
    }
}
