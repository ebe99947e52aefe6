/**
 * Two databases committing as one: the Atomikos XA wiring and its coordinator log ({@code xa}), the
 * use-case transaction every request runs in ({@code usecase}), the Activiti engine that owns the
 * workflow database ({@code workflow}), work on the business database alone ({@code businessonly}),
 * the single-database deployment ({@code singledatabase}), what a request does when it waits on a lock
 * or a busy application ({@code contention}), and the transaction manager's health and metrics
 * ({@code monitoring}). Depends on the platform only.
 */
package dev.lockstep.transactions;
