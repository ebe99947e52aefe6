package dev.lockstep.transactions.xa;

import com.atomikos.icatch.CompositeTransactionManager;
import com.atomikos.icatch.SysException;
import com.atomikos.icatch.TransactionService;
import com.atomikos.icatch.config.Configuration;
import com.atomikos.icatch.event.EventListener;
import com.atomikos.icatch.imp.TransactionServiceImp;
import com.atomikos.icatch.provider.Assembler;
import com.atomikos.icatch.provider.ConfigProperties;
import com.atomikos.icatch.provider.TransactionServiceProvider;
import com.atomikos.icatch.provider.imp.AssemblerImp;
import com.atomikos.persistence.imp.StateRecoveryManagerImp;
import com.atomikos.publish.EventPublisher;
import com.atomikos.recovery.OltpLog;
import com.atomikos.recovery.OltpLogFactory;
import com.atomikos.recovery.RecoveryLog;
import com.atomikos.util.UniqueIdMgr;
import dev.lockstep.platform.StartupCheckFailure;
import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Atomikos's {@link Assembler}, so that a transaction's branches can be prepared and committed at once
 * instead of one after the other. Atomikos 6.0.0 (open source) builds its transaction service in
 * {@code AssemblerImp.assembleTransactionService}, which always passes {@code single_threaded_2pc = true}:
 * every prepare, commit and rollback then runs on the committing thread, branch after branch, and the
 * documented {@code com.atomikos.icatch.threaded_2pc} is read by nothing. The threaded path is still in
 * Atomikos: a coordinator whose transaction service was built with {@code single_threaded_2pc = false}
 * hands each branch's prepare (commit, rollback) to its own thread pool ({@code TaskManager}, threads
 * {@code Atomikos:N}) and waits until every branch has answered before it decides.
 *
 * <p>This assembler reads {@value #THREADED_2PC} (Lockstep sets it from {@code lockstep.tm.parallel-commit},
 * {@link AtomikosSettings}). False: Atomikos's own {@code AssemblerImp} assembles everything, exactly as
 * without this class. True: the same parts, put together here through Atomikos's public API, with
 * {@code single_threaded_2pc = false}: the event listeners of
 * {@code META-INF/services/com.atomikos.icatch.event.EventListener} registered, the coordinator log from
 * the one {@link OltpLogFactory} service (Lockstep's {@code xa.log.GroupCommitLogFactory}), the
 * transaction-id length check. Properties and the composite transaction manager always come from
 * {@code AssemblerImp}.
 *
 * <p>Atomikos finds an assembler through {@code META-INF/services/com.atomikos.icatch.provider.Assembler} and
 * takes the first one the service loader returns ({@code Configuration.loadAssembler}); Lockstep's classes
 * come before the Atomikos jars on the class path (the executable jar's {@code BOOT-INF/classes} before
 * {@code BOOT-INF/lib}, Maven's {@code target/classes} before the dependencies). Whether that held is
 * checked once the transaction service runs: {@link #requireParallelCommit}.
 */
public final class ParallelCommitAssembler implements Assembler {

    /** Atomikos's documented name for the setting; absent means false, its documented default. */
    static final String THREADED_2PC = "com.atomikos.icatch.threaded_2pc";
    static final String SETTING = "lockstep.tm.parallel-commit";
    static final String SERVICE_FILE = "META-INF/services/" + Assembler.class.getName();
    /** The global part of an XID holds at most 64 bytes; Atomikos refuses a name whose transaction ids would not fit. */
    private static final int MAX_TRANSACTION_ID_BYTES = 64;

    private static final Logger log = LoggerFactory.getLogger(ParallelCommitAssembler.class);

    /** The transaction service this class assembled last (Atomikos runs one per JVM), and how it commits. */
    private static volatile Assembled last;

    private final AssemblerImp atomikos = new AssemblerImp();

    /** For the service loader. */
    public ParallelCommitAssembler() {
    }

    @Override
    public ConfigProperties initializeProperties() {
        return atomikos.initializeProperties();
    }

    @Override
    public TransactionServiceProvider assembleTransactionService(ConfigProperties properties) {
        boolean parallel = parallelCommit(properties);
        TransactionServiceProvider service = parallel ? withParallelCommit(properties) : atomikos.assembleTransactionService(properties);
        last = new Assembled(service, parallel);
        return service;
    }

    @Override
    public CompositeTransactionManager assembleCompositeTransactionManager() {
        return atomikos.assembleCompositeTransactionManager();
    }

    static boolean parallelCommit(ConfigProperties properties) {
        return Boolean.parseBoolean(properties.getCompletedProperties().getProperty(THREADED_2PC, "false").trim());
    }

    private static TransactionServiceProvider withParallelCommit(ConfigProperties properties) {
        registerEventListeners();
        log.info("Atomikos settings: {}", new TreeMap<>(properties.getCompletedProperties()));
        String name = properties.getTmUniqueName();
        UniqueIdMgr transactionIds = new UniqueIdMgr(name);
        if (transactionIds.getMaxIdLengthInBytes() > MAX_TRANSACTION_ID_BYTES) {
            throw new SysException("Value too long : " + name);
        }
        OltpLog coordinatorLog = coordinatorLog();
        if (!(coordinatorLog instanceof RecoveryLog recoveryLog)) {
            throw new SysException("the coordinator log " + coordinatorLog.getClass().getName()
                    + " is not also a RecoveryLog: recovery could not read it");
        }
        StateRecoveryManagerImp recoveryManager = new StateRecoveryManagerImp();
        recoveryManager.setOltpLog(coordinatorLog);
        return new TransactionServiceImp(name, recoveryManager, transactionIds, properties.getMaxTimeout(),
                properties.getMaxActives(), false, recoveryLog);
    }

    /** As Atomikos does: every listener named in the class path's service files (heuristic metrics and records). */
    private static void registerEventListeners() {
        for (EventListener listener : ServiceLoader.load(EventListener.class, EventPublisher.class.getClassLoader())) {
            EventPublisher.INSTANCE.registerEventListener(listener);
        }
    }

    /** The one coordinator log on the class path: Lockstep's. More than one is a broken class path, as for Atomikos. */
    private static OltpLog coordinatorLog() {
        List<OltpLogFactory> factories = new ArrayList<>();
        ServiceLoader.load(OltpLogFactory.class, Configuration.class.getClassLoader()).forEach(factories::add);
        if (factories.size() != 1) {
            throw new SysException("expected exactly one " + OltpLogFactory.class.getName() + " service on the class path"
                    + " (Lockstep's dev.lockstep.transactions.xa.log.GroupCommitLogFactory), found " + factories);
        }
        return factories.get(0).createOltpLog();
    }

    /** {@link #requireParallelCommit(TransactionService, ConfigProperties)} for the transaction service Atomikos runs now. */
    static void requireParallelCommit() {
        requireParallelCommit(Configuration.getTransactionService(), Configuration.getConfigProperties());
    }

    /**
     * Refuses to go on when parallel commit is asked for ({@value #THREADED_2PC} true in the running Atomikos's
     * settings) but the running transaction service was not assembled by this class, which means Atomikos took
     * another assembler first and prepares the branches one after the other. Logs how the running service commits.
     */
    static void requireParallelCommit(TransactionService running, ConfigProperties properties) {
        boolean requested = parallelCommit(properties);
        Assembled assembled = last;
        if (assembled != null && assembled.service == running) {
            log.info(assembled.parallel
                    ? "Atomikos prepares and commits the branches of a transaction in parallel ({}=true)"
                    : "Atomikos prepares and commits the branches of a transaction one after the other ({}=false)", SETTING);
            return;
        }
        if (requested) {
            throw new StartupCheckFailure(SETTING, "is true, but Atomikos assembled its transaction service with another"
                    + " assembler than " + ParallelCommitAssembler.class.getName() + " (" + SERVICE_FILE + " on the class path,"
                    + " in this order: " + serviceFiles() + "). Atomikos takes the first one its service loader finds, and its"
                    + " own prepares and commits the branches one after the other whatever " + THREADED_2PC + " says.",
                    "start the service from its executable jar, or put Lockstep's classes before the Atomikos jars on the class"
                            + " path; or set " + SETTING + "=false (env LOCKSTEP_TM_PARALLEL_COMMIT) to run with the branches"
                            + " committed one after the other.");
        }
        log.info("Atomikos prepares and commits the branches of a transaction one after the other ({}=false)", SETTING);
    }

    /** Where the class path holds assembler service files, in the order the service loader reads them. */
    private static List<URL> serviceFiles() {
        try {
            return Collections.list(Configuration.class.getClassLoader().getResources(SERVICE_FILE));
        } catch (IOException e) {
            return List.of();
        }
    }

    private record Assembled(TransactionServiceProvider service, boolean parallel) {
    }
}
