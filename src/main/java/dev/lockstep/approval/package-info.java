/**
 * The approval domain: the application aggregate and its separation-of-duties rules (this package),
 * and the features built on it: drafting, submitting, withdrawing and terminating ({@code application}), deciding and
 * returning ({@code decision}), delegation and transfer ({@code handover}), countersign signers
 * ({@code countersign}), the application's event trail ({@code trail}), step deadlines and their
 * reminders ({@code deadlines}), and each user's todo and done lists, a projection of the engine's
 * tasks ({@code todo}).
 */
package dev.lockstep.approval;
