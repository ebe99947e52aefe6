package dev.lockstep.platform.audit;

import dev.lockstep.platform.AreaApi;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * How an entry is hashed: {@code sha256(prev_hash + canonical(entry))}, hex. Pure JDK, so the offline
 * verifier ({@code java -jar lockstep.jar verify}) hashes exactly as the service does.
 *
 * <p>Format 2 writes each field as {@code <length>:<text>} and a null as {@code ~}, one per line, so no two
 * different entries share an encoding (format 1 wrote a null gtrid as {@code -}, the same as the gtrid "-").
 */
@AreaApi
public final class AuditEntryFormat {

    public static final String GENESIS = "0".repeat(64);
    public static final int CURRENT = 2;

    private AuditEntryFormat() {
    }

    public static String canonical(AuditEntry entry) {
        return switch (entry.format()) {
            case 1 -> String.join("\n", Long.toString(entry.seq()), entry.at().toString(), escape(entry.actor()),
                    escape(entry.action()), entry.gtrid() == null ? "-" : escape(entry.gtrid()), escape(entry.detail()));
            case 2 -> String.join("\n", "v2", field(Long.toString(entry.seq())), field(entry.at().toString()),
                    field(entry.clockSource()), field(entry.actor()), field(entry.actorRoles()), field(entry.action()),
                    field(entry.applicationId() == null ? null : entry.applicationId().toString()),
                    field(entry.lifecycleNo() == null ? null : entry.lifecycleNo().toString()),
                    field(entry.definitionVersion()), field(entry.requestId()), field(entry.gtrid()), field(entry.detail()));
            default -> throw new IllegalArgumentException("unknown audit entry format " + entry.format());
        };
    }

    public static String hash(String prevHash, String canonical) {
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha256.digest((prevHash + canonical).getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always present in the JDK", e);
        }
    }

    private static String field(String value) {
        return value == null ? "~" : value.length() + ":" + value;
    }

    /** Format 1: one field per line, {@code \n} inside a field escaped so fields cannot be shifted. */
    private static String escape(String field) {
        return field.replace("\\", "\\\\").replace("\n", "\\n");
    }
}
