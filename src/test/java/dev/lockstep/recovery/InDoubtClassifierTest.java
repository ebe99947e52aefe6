package dev.lockstep.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.transactions.xa.DecodedXid;
import dev.lockstep.transactions.xa.PgGidCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InDoubtClassifierTest {

    static final String SELF = "lockstep-1.tm";
    static final String OTHER = "lockstep-2.tm";
    static final Instant NOW = Instant.parse("2026-11-29T22:00:00Z");
    static final Duration WINDOW = Duration.ofMinutes(6);

    @Test
    void aYoungTransactionOfThisNodeIsInFlight() {
        InDoubtTransaction tx = classify(both(SELF, "g1", ago(10)), facts(Map.of(), Map.of()));
        assertThat(tx.classification()).isEqualTo(InDoubtClass.IN_FLIGHT);
        assertThat(tx.recommendation()).isEqualTo(Recommendation.ROLLBACK);
        assertThat(tx.protectedByLiveOwner(WINDOW)).isTrue();
    }

    @Test
    void aLoggedCommitDecisionIsBeingRecoveredAndRecommendsCommit() {
        InDoubtTransaction tx = classify(List.of(branch("business-db", SELF, "g1", ago(900))),
                facts(Map.of(SELF + "g1", "COMMITTING"), Map.of()));
        assertThat(tx.classification()).isEqualTo(InDoubtClass.BEING_RECOVERED);
        assertThat(tx.recommendation()).isEqualTo(Recommendation.COMMIT);
        assertThat(tx.missingResources()).containsExactly("workflow-db");
        assertThat(tx.evidence()).anyMatch(line -> line.contains("records the decision COMMITTING"));
    }

    @Test
    void ownBranchPastTheWindowWithoutADecisionIsAnOrphanToRollBack() {
        InDoubtTransaction tx = classify(both(SELF, "g1", ago(3600)), facts(Map.of(), Map.of()));
        assertThat(tx.classification()).isEqualTo(InDoubtClass.ORPHAN);
        assertThat(tx.recommendation()).isEqualTo(Recommendation.ROLLBACK);
        assertThat(tx.protectedByLiveOwner(WINDOW)).isFalse();
    }

    @Test
    void aGoneOwnerMakesAnOrphanThatNeedsADba() {
        InDoubtTransaction tx = classify(both("lockstep-9.tm", "g1", ago(30)), facts(Map.of(), Map.of()));
        assertThat(tx.classification()).isEqualTo(InDoubtClass.ORPHAN);
        assertThat(tx.recommendation()).isEqualTo(Recommendation.MANUAL);
        assertThat(tx.ownerAlive()).isFalse();
    }

    @Test
    void aLiveOtherNodePastTheWindowIsItsToRecover() {
        InDoubtTransaction tx = classify(both(OTHER, "g1", ago(3600)), facts(Map.of(), Map.of()));
        assertThat(tx.classification()).isEqualTo(InDoubtClass.BEING_RECOVERED);
        assertThat(tx.recommendation()).isEqualTo(Recommendation.MANUAL);
        InDoubtTransaction young = classify(both(OTHER, "g2", ago(5)), facts(Map.of(), Map.of()));
        assertThat(young.classification()).isEqualTo(InDoubtClass.IN_FLIGHT);
    }

    @Test
    void aCommittedSiblingMakesAnAnomalyToCommit() {
        InDoubtTransaction tx = classify(List.of(branch("workflow-db", "lockstep-9.tm", "g1", ago(600))),
                facts(Map.of(), Map.of("lockstep-9.tmg1", Map.of("business-db", "COMMITTED"))));
        assertThat(tx.classification()).isEqualTo(InDoubtClass.ANOMALY);
        assertThat(tx.recommendation()).isEqualTo(Recommendation.COMMIT);
    }

    @Test
    void aRolledBackSiblingRecommendsRollback() {
        InDoubtTransaction tx = classify(List.of(branch("workflow-db", "lockstep-9.tm", "g1", ago(600))),
                facts(Map.of(), Map.of("lockstep-9.tmg1", Map.of("business-db", "ROLLED_BACK"))));
        assertThat(tx.classification()).isEqualTo(InDoubtClass.ORPHAN);
        assertThat(tx.recommendation()).isEqualTo(Recommendation.ROLLBACK);
    }

    @Test
    void aHeuristicOutcomeIsAnAnomalyForADba() {
        InDoubtTransaction tx = classify(both(SELF, "g1", ago(10)), facts(Map.of(SELF + "g1", "HEUR_MIXED"), Map.of()));
        assertThat(tx.classification()).isEqualTo(InDoubtClass.ANOMALY);
        assertThat(tx.recommendation()).isEqualTo(Recommendation.MANUAL);
    }

    @Test
    void aHeuristicEventReportedEarlierMakesAnAnomaly() {
        InDoubtClassifier.Facts facts = new InDoubtClassifier.Facts(SELF, Set.of(SELF), Map.of(), Map.of(),
                Map.of("lockstep-9.tmg1", "HEUR_HAZARD"), Set.of("business-db", "workflow-db"), Map.of(), WINDOW, NOW);
        InDoubtTransaction tx = classify(both("lockstep-9.tm", "g1", ago(10)), facts);
        assertThat(tx.classification()).isEqualTo(InDoubtClass.ANOMALY);
        assertThat(tx.evidence()).anyMatch(line -> line.contains("HEUR_HAZARD"));
    }

    @Test
    void aCommitDecisionAgainstARolledBackSiblingIsAnAnomaly() {
        InDoubtTransaction tx = classify(List.of(branch("workflow-db", SELF, "g1", ago(10))),
                facts(Map.of(SELF + "g1", "COMMITTING"), Map.of(SELF + "g1", Map.of("business-db", "ROLLED_BACK"))));
        assertThat(tx.classification()).isEqualTo(InDoubtClass.ANOMALY);
        assertThat(tx.recommendation()).isEqualTo(Recommendation.MANUAL);
    }

    @Test
    void noLogRecordAndAMissingSiblingIsManualNotRollback() {
        // prepared on workflow only, no decision logged: the business branch was never prepared, or it
        // committed and the log record is gone; rollback would split the second case
        InDoubtTransaction tx = classify(List.of(branch("workflow-db", SELF, "g1", ago(3600))), facts(Map.of(), Map.of()));
        assertThat(tx.recommendation()).isEqualTo(Recommendation.MANUAL);
        assertThat(tx.missingResources()).containsExactly("business-db");
        assertThat(tx.evidence()).anyMatch(line -> line.contains("no commit decision is logged, but [business-db] has no"
                + " prepared branch") && line.contains("rollback splits"));
    }

    @Test
    void anUnscannedDatabaseIsUnknownNotMissingAndBlocksRollback() {
        InDoubtTransaction tx = classify(List.of(branch("workflow-db", SELF, "g1", ago(3600))),
                facts(Map.of(), Map.of(), Map.of("business-db", "Connection refused")));
        assertThat(tx.missingResources()).isEmpty();
        assertThat(tx.unknownResources()).containsEntry("business-db", "Connection refused");
        assertThat(tx.evidence()).anyMatch(line -> line.contains("the branch on business-db is UNKNOWN")
                && line.contains("Connection refused"));
        assertThat(tx.evidence()).noneMatch(line -> line.contains("no prepared branch on business-db"));
        assertThat(tx.recommendation()).isEqualTo(Recommendation.MANUAL);
    }

    @Test
    void anUnreadableCoordinatorLogNeverYieldsPresumedAbort() {
        InDoubtTransaction tx = classify(both(SELF, "g1", ago(3600)),
                facts(Map.of(), Map.of(), Map.of("coordinator log", "disk error")));
        assertThat(tx.recommendation()).isEqualTo(Recommendation.MANUAL);
        assertThat(tx.evidence()).anyMatch(line -> line.contains("coordinator log could not be read (disk error)"));
    }

    @Test
    void aLoggedCommitStillRecommendsCommitWhileADatabaseIsUnscanned() {
        InDoubtTransaction tx = classify(List.of(branch("workflow-db", SELF, "g1", ago(900))),
                facts(Map.of(SELF + "g1", "COMMITTING"), Map.of(), Map.of("business-db", "timeout")));
        assertThat(tx.recommendation()).isEqualTo(Recommendation.COMMIT);
    }

    @Test
    void aGidThatIsNotOursIsAnOrphanForManualWork() {
        PreparedBranch raw = new PreparedBranch("business-db", "by-hand", Optional.empty(), ago(5), "postgres", List.of());
        InDoubtTransaction tx = InDoubtClassifier.classify(raw.groupKey(), List.of(raw), facts(Map.of(), Map.of()));
        assertThat(tx.gtrid()).isEqualTo("raw:business-db:by-hand");
        assertThat(tx.classification()).isEqualTo(InDoubtClass.ORPHAN);
        assertThat(tx.recommendation()).isEqualTo(Recommendation.MANUAL);
        assertThat(tx.ownerTm()).isNull();
    }

    private static InDoubtTransaction classify(List<PreparedBranch> branches, InDoubtClassifier.Facts facts) {
        return InDoubtClassifier.classify(branches.get(0).groupKey(), branches, facts);
    }

    private static InDoubtClassifier.Facts facts(Map<String, String> log, Map<String, Map<String, String>> prior) {
        return facts(log, prior, Map.of());
    }

    private static InDoubtClassifier.Facts facts(Map<String, String> log, Map<String, Map<String, String>> prior,
            Map<String, String> unknowns) {
        return new InDoubtClassifier.Facts(SELF, Set.of(SELF, OTHER), log, prior, Map.of(), Set.of("business-db", "workflow-db"),
                unknowns, WINDOW, NOW);
    }

    private static Instant ago(long seconds) {
        return NOW.minusSeconds(seconds);
    }

    private static List<PreparedBranch> both(String owner, String suffix, Instant preparedAt) {
        return List.of(branch("business-db", owner, suffix, preparedAt), branch("workflow-db", owner, suffix, preparedAt));
    }

    static PreparedBranch branch(String resource, String owner, String suffix, Instant preparedAt) {
        DecodedXid xid = new DecodedXid(DecodedXid.ATOMIKOS_FORMAT_ID, (owner + suffix).getBytes(StandardCharsets.US_ASCII),
                (owner + resource.length()).getBytes(StandardCharsets.US_ASCII));
        return new PreparedBranch(resource, PgGidCodec.encode(xid), Optional.of(xid), preparedAt, "postgres", List.of());
    }
}
