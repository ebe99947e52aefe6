package dev.lockstep.transactions.xa;

import dev.lockstep.platform.AreaApi;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An XA transaction id as a resource reports it. For Atomikos XIDs (format id 'ATOM') the global
 * id is the coordinator's tid as text and the branch qualifier starts with the owning node's
 * {@code tm_unique_name}; our startup rule makes those names prefix-free, so the owner is read back
 * unambiguously.
 */
@AreaApi
public record DecodedXid(int formatId, byte[] gtrid, byte[] bqual) {

    /** 'A','T','O','M' as a big-endian int: the format id Atomikos puts in every XID it creates. */
    public static final int ATOMIKOS_FORMAT_ID = 1096044365;
    // The same shape TransactionManagerName enforces: one dot, in the final ".tm".
    private static final Pattern OWNER = Pattern.compile("^([A-Za-z0-9_-]+\\.tm)");

    public boolean isAtomikos() {
        return formatId == ATOMIKOS_FORMAT_ID;
    }

    /** The global id as text when it is printable ASCII (Atomikos), else as 0x-hex. */
    public String gtridText() {
        return printable(gtrid) ? new String(gtrid, StandardCharsets.US_ASCII) : "0x" + HexFormat.of().formatHex(gtrid);
    }

    public String bqualText() {
        return printable(bqual) ? new String(bqual, StandardCharsets.US_ASCII) : "0x" + HexFormat.of().formatHex(bqual);
    }

    /** The tm_unique_name of the node that created this branch, if it is an Atomikos XID. */
    public Optional<String> ownerTm() {
        if (!isAtomikos() || !printable(bqual)) {
            return Optional.empty();
        }
        Matcher matcher = OWNER.matcher(new String(bqual, StandardCharsets.US_ASCII));
        return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
    }

    private static boolean printable(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0x20 || b > 0x7e) {
                return false;
            }
        }
        return bytes.length > 0;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DecodedXid that && formatId == that.formatId && Arrays.equals(gtrid, that.gtrid)
                && Arrays.equals(bqual, that.bqual);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * formatId + Arrays.hashCode(gtrid)) + Arrays.hashCode(bqual);
    }

    @Override
    public String toString() {
        return formatId + ":" + gtridText() + ":" + bqualText();
    }
}
