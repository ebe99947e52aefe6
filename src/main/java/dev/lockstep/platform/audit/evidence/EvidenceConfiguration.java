package dev.lockstep.platform.audit.evidence;

import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.FixedDelay;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.platform.ConditionalOnXaMode;
import dev.lockstep.platform.DatabaseEndpoints;
import dev.lockstep.platform.LockstepProperties;
import dev.lockstep.platform.StartupCheckFailure;
import dev.lockstep.platform.audit.AuditTrail;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Signed checkpoints and export bundles over the audit trail. XA modes, like the trail itself; the single-database
 * mode has no trail bean.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnXaMode
@EnableConfigurationProperties(AuditEvidenceProperties.class)
class EvidenceConfiguration {

    private static final Logger log = LoggerFactory.getLogger(EvidenceConfiguration.class);

    /** Printed at every start: what an auditor pins with {@code verify --key}. */
    @Bean
    SigningKey auditSigningKey(LockstepProperties lockstep, AuditEvidenceProperties settings) {
        SigningKey key = SigningKey.loadOrGenerate(settings.signingKeyFile(lockstep.home()));
        log.info("Audit checkpoints are signed with Ed25519 public key {} (fingerprint {}), from {}={}", key.publicKey(),
                Checkpoint.fingerprint(key.publicKey()), SigningKey.SETTING,
                settings.signingKeyFile(lockstep.home()).toAbsolutePath());
        return key;
    }

    @Bean
    AnchorFile auditAnchorFile(LockstepProperties lockstep, AuditEvidenceProperties settings) {
        AnchorFile anchor = new AnchorFile(settings.anchorFile(lockstep.home()));
        log.info("Audit checkpoints are anchored in {}={}", AnchorFile.SETTING, anchor.file().toAbsolutePath());
        return anchor;
    }

    /** Two connections: one export streaming, one checkpoint. */
    @Bean(destroyMethod = "close")
    EvidenceStore auditEvidenceStore(DatabaseEndpoints endpoints) {
        return new EvidenceStore(new HikariDataSource(endpoints.business().plainPool("audit-evidence", 2)));
    }

    @Bean
    AuditCheckpoints auditCheckpoints(AuditTrail trail, EvidenceStore store, SigningKey key, AnchorFile anchor,
            LockstepProperties lockstep, Clock clock) {
        return new AuditCheckpoints(trail, store, key, anchor, lockstep.tm().uniqueName(), clock);
    }

    @Bean
    AuditExports auditExports(AuditCheckpoints checkpoints, EvidenceStore store, AnchorFile anchor,
            AuditEvidenceProperties settings, Clock clock) {
        if (settings.exportMaxEntries() < 1) {
            throw new StartupCheckFailure("lockstep.audit.export-max-entries", "is " + settings.exportMaxEntries()
                    + "; it must be positive.", "set a positive count such as 1000000.");
        }
        return new AuditExports(checkpoints, store, anchor, settings.exportMaxEntries(), clock);
    }

    /** One node at a time (db-scheduler); nothing is signed while the chain stands still. */
    @Bean
    RecurringTask<Void> auditCheckpointJob(AuditCheckpoints checkpoints, AuditEvidenceProperties settings) {
        StartupCheckFailure.requirePositive("lockstep.audit.checkpoint-interval", settings.checkpointInterval(), "15m");
        return Tasks.recurring("audit-checkpoint", FixedDelay.of(settings.checkpointInterval()))
                .execute((instance, context) -> checkpoints.takeIfAdvanced());
    }
}
