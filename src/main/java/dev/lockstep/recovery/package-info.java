/**
 * In-doubt work: prepared branches found on either database, classified against the coordinator log
 * and the intent journal, and resolved by the DBA console with a four-eyes proposal and approval; node
 * identity and the lease on each transaction-manager name; and the branches a node orphaned, rolled
 * back at its own startup ({@code orphans}). Nothing in another area depends on it.
 */
package dev.lockstep.recovery;
