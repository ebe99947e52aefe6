/**
 * The ground every other area stands on, and the only area that depends on none of them: settings and
 * their startup checks ({@code lockstep.*}), the embedded PostgreSQL servers and database endpoints,
 * the cluster-wide scheduler, health components answered from bounded probes ({@code health}), problem answers for HTTP ({@code web}), who the caller is and what they
 * may do ({@code security}), and the hash-chained audit trail every forced or repairing action writes
 * in the same transaction as its effect ({@code audit}).
 */
package dev.lockstep.platform;
