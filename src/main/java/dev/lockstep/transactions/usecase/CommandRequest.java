package dev.lockstep.transactions.usecase;

/**
 * What identifies one client command for replay: its key, what it does, to which object, by whom,
 * and the request body (part of the fingerprint, so a reused key with another body is refused).
 */
record CommandRequest(String idempotencyKey, String commandType, String businessType, String businessId,
        String requestedBy, Object body) {
}
