package dev.lockstep.platform.audit.evidence;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code lockstep.audit.*} (docs/operations.md, "Audit signing key and anchor file"). The two files default to
 * {@code ${lockstep.home}/audit/}; {@code exportMaxEntries} caps one export's span (entries in full and links).
 */
@ConfigurationProperties("lockstep.audit")
record AuditEvidenceProperties(Path signingKeyFile, Path anchorFile, @DefaultValue("15m") Duration checkpointInterval,
        @DefaultValue("1000000") long exportMaxEntries) {

    Path signingKeyFile(Path home) {
        return signingKeyFile != null ? signingKeyFile : home.resolve("audit").resolve("signing-key.pem");
    }

    Path anchorFile(Path home) {
        return anchorFile != null ? anchorFile : home.resolve("audit").resolve("checkpoints.jsonl");
    }
}
