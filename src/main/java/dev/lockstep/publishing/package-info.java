/**
 * An approval reaching the outside world exactly once: the outbox written in the approval's own
 * transaction and the publisher that drains it after the commit ({@code outbox}), the only code that
 * makes HTTP calls ({@code delivery}), and the reference asset catalog that receives them, a separate
 * application shipped in the same jar ({@code catalog}).
 */
package dev.lockstep.publishing;
