package dev.lockstep.recovery.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.transactions.xa.DecodedXid;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which prepared branches the startup may roll back: only this node's, begun before it started, undecided. */
class OwnOrphanTest {

    private static final String SELF = "lockstep-1.tm";
    private static final Instant STARTED = Instant.parse("2026-11-30T12:00:00Z");
    private static final String BEFORE = SELF + (STARTED.toEpochMilli() - 60_000) + "00042";

    @Test
    void ownBranchBegunBeforeThisProcessWithoutACommittingRecordIsRolledBack() {
        assertThat(OwnOrphan.reasonToRollBack(xid(BEFORE, SELF + "42"), SELF, STARTED, Map.of()))
                .hasValueSatisfying(reason -> assertThat(reason).contains(BEFORE).contains("no record").contains("presumed abort"));
    }

    @Test
    void aCommittingRecordIsCommittedNeverRolledBack() {
        assertThat(OwnOrphan.reasonToRollBack(xid(BEFORE, SELF + "42"), SELF, STARTED, Map.of(BEFORE, "COMMITTING"))).isEmpty();
        assertThat(OwnOrphan.reasonToCommit(xid(BEFORE, SELF + "42"), SELF, STARTED, Map.of(BEFORE, "COMMITTING")))
                .hasValueSatisfying(reason -> assertThat(reason).contains(BEFORE).contains("COMMITTING"));
    }

    @Test
    void onlyACommittingRecordIsCommitted() {
        assertThat(OwnOrphan.reasonToCommit(xid(BEFORE, SELF + "42"), SELF, STARTED, Map.of())).isEmpty();
        assertThat(OwnOrphan.reasonToCommit(xid(BEFORE, SELF + "42"), SELF, STARTED, Map.of(BEFORE, "TERMINATED"))).isEmpty();
        String now = SELF + (STARTED.toEpochMilli() + 1) + "00001";
        assertThat(OwnOrphan.reasonToCommit(xid(now, SELF + "1"), SELF, STARTED, Map.of(now, "COMMITTING")))
                .as("begun since this process started: this process's own coordinator commits it").isEmpty();
    }

    @Test
    void anotherNodesBranchIsNeverTouched() {
        String other = "lockstep-2.tm" + (STARTED.toEpochMilli() - 60_000) + "00042";
        assertThat(OwnOrphan.reasonToRollBack(xid(other, "lockstep-2.tm42"), SELF, STARTED, Map.of())).isEmpty();
        assertThat(OwnOrphan.reasonToCommit(xid(other, "lockstep-2.tm42"), SELF, STARTED, Map.of(other, "COMMITTING"))).isEmpty();
        // a name this one prefixes is another node's (the startup check refuses such pairs; still never taken)
        String longer = "lockstep-1.tmx" + (STARTED.toEpochMilli() - 60_000) + "00042";
        assertThat(OwnOrphan.reasonToRollBack(xid(longer, "lockstep-1.tmx42"), SELF, STARTED, Map.of())).isEmpty();
    }

    @Test
    void aBranchBegunSinceThisProcessStartedMayStillBeRunning() {
        String now = SELF + (STARTED.toEpochMilli() + 1) + "00001";
        assertThat(OwnOrphan.reasonToRollBack(xid(now, SELF + "1"), SELF, STARTED, Map.of())).isEmpty();
    }

    @Test
    void aGtridOfAnotherShapeOrFormatIsLeftAlone() {
        assertThat(OwnOrphan.reasonToRollBack(xid(SELF + "abc", SELF + "1"), SELF, STARTED, Map.of())).isEmpty();
        DecodedXid notAtomikos = new DecodedXid(1, bytes(BEFORE), bytes(SELF + "1"));
        assertThat(OwnOrphan.reasonToRollBack(notAtomikos, SELF, STARTED, Map.of())).isEmpty();
    }

    @Test
    void theBeginTimeIsTheMillisBeforeTheFiveDigitCounter() {
        assertThat(OwnOrphan.beganAt(SELF + "1764504000000" + "31999", SELF)).contains(Instant.ofEpochMilli(1764504000000L));
    }

    private static DecodedXid xid(String gtrid, String bqual) {
        return new DecodedXid(DecodedXid.ATOMIKOS_FORMAT_ID, bytes(gtrid), bytes(bqual));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
