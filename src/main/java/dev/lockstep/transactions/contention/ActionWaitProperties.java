package dev.lockstep.transactions.contention;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code lockstep.actions.*}: how many actions on one application this node lets hold connections
 * at once while they take its row lock and pass the action fence.
 *
 * @param maxConcurrentPerApplication the acting one plus those queued behind it; more are refused at
 *        once with 503 APPLICATION_BUSY (Retry-After), so a burst on one stuck application holds at most
 *        this many connections of each XA pool, each for at most the lock timeout
 * @param maxRunning use-case transactions that begin at once on this node ({@link RunningTransactions}); unset,
 *        the number of cores with the embedded databases, no bound with databases the operator runs
 */
@ConfigurationProperties("lockstep.actions")
public record ActionWaitProperties(@DefaultValue("4") int maxConcurrentPerApplication, Integer maxRunning) {
}
