package dev.lockstep.platform;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Everything Lockstep needs to know about its two databases and its transaction manager.
 * Bound from {@code lockstep.*} properties or the matching environment variables
 * ({@code LOCKSTEP_DB_BUSINESS_URL}, ...).
 */
@ConfigurationProperties("lockstep")
@AreaApi
public record LockstepProperties(
        @DefaultValue("embedded") Mode mode,
        @DefaultValue("./var") Path home,
        @DefaultValue Tm tm,
        @DefaultValue Db db,
        @DefaultValue Embedded embedded) {

    public enum Mode {
        /** Two PostgreSQL servers started by the service itself under {@code lockstep.home}. */
        EMBEDDED,
        /** Two databases the operator runs; URLs and credentials come from configuration. */
        EXTERNAL,
        /**
         * No XA: business and ACT_* tables in one database under a local transaction
         * ({@code dev.lockstep.transactions.singledatabase}); {@code lockstep.db.single.url}, or one embedded server when unset.
         */
        SINGLE
    }

    /**
     * The Atomikos transaction manager. {@code uniqueName} identifies this node in every XID it
     * creates; recovery claims XIDs by that prefix, so it must be unique across nodes.
     * {@code propertiesFile} is an optional Atomikos properties file (see {@code xa-config/atomikos/})
     * for the settings Lockstep does not set itself; where both set one, these properties win.
     * {@code parallelCommit}: prepare and commit a transaction's branches at once, each on a thread of
     * the transaction manager, instead of one after the other on the committing thread.
     * {@code transactionMode}: XA; LOCAL only as the chaos suite's negative control ({@link TransactionMode}).
     * {@code log}: where the coordinator log is kept, {@code file} or {@code database}; unset, the database in external
     * mode and a file otherwise ({@code GroupCommitLogFactory.storeOf}).
     */
    public record Tm(
            @DefaultValue("lockstep-1.tm") String uniqueName,
            Path logDir,
            @DefaultValue("30s") Duration defaultTimeout,
            @DefaultValue("5m") Duration maxTimeout,
            @DefaultValue("10s") Duration recoveryDelay,
            Path propertiesFile,
            @DefaultValue("true") boolean parallelCommit,
            @DefaultValue("XA") TransactionMode transactionMode,
            String log) {
    }

    public record Db(DatabaseSettings business, DatabaseSettings workflow, DatabaseSettings single) {
        public Db {
            business = business == null ? DatabaseSettings.unset() : business;
            workflow = workflow == null ? DatabaseSettings.unset() : workflow;
            single = single == null ? DatabaseSettings.unset() : single;
        }
    }

    /** Ports of the embedded servers; 0 picks a free port (tests). */
    public record Embedded(
            @DefaultValue("15432") int businessPort,
            @DefaultValue("15433") int workflowPort,
            @DefaultValue("64") int maxPreparedTransactions,
            @DefaultValue("15434") int singlePort) {
    }

    /** True when the service runs the database servers itself (demo data and users belong only there). */
    public boolean runsEmbeddedDatabases() {
        return mode == Mode.EMBEDDED || (mode == Mode.SINGLE && !db.single().isConfigured());
    }

    public Path tmLogDir() {
        return tm.logDir() != null ? tm.logDir() : home.resolve("atomikos");
    }
}
