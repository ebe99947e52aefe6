package dev.lockstep.transactions.xa;

import dev.lockstep.platform.AreaApi;
import java.util.Base64;
import java.util.Optional;

/**
 * pgjdbc's mapping between an XID and PostgreSQL's transaction gid:
 * {@code formatId_base64(gtrid)_base64(bqual)}. Standard Base64 never contains '_', so the gid
 * splits unambiguously; anything that does not split into exactly that shape is not pgjdbc's.
 */
@AreaApi
public final class PgGidCodec {

    private PgGidCodec() {
    }

    public static String encode(DecodedXid xid) {
        return xid.formatId() + "_" + Base64.getEncoder().encodeToString(xid.gtrid()) + "_"
                + Base64.getEncoder().encodeToString(xid.bqual());
    }

    public static Optional<DecodedXid> decode(String gid) {
        if (gid == null) {
            return Optional.empty();
        }
        String[] parts = gid.split("_", -1);
        if (parts.length != 3 || parts[1].isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new DecodedXid(Integer.parseInt(parts[0]), Base64.getDecoder().decode(parts[1]),
                    Base64.getDecoder().decode(parts[2])));
        } catch (IllegalArgumentException notPgjdbc) {
            return Optional.empty();
        }
    }
}
