package dev.lockstep.transactions.xa;

import dev.lockstep.platform.AreaApi;

/**
 * Startup work that reads the coordinator log through the started transaction service and must finish
 * before its recovery can presume abort of a prepared XID (which it does once it has watched that XID for
 * {@code max-timeout}): run right after the transaction service starts, before the transaction manager
 * is handed to anything. The XA wiring calls it without naming the packages that provide it.
 */
@AreaApi
public interface AfterTransactionServiceStart {

    void transactionServiceStarted();
}
