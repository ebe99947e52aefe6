/**
 * Consistency checking, the top area: compares the business database, the engine and the catalog
 * after the fact, repairs what is safe to repair in a transaction audited with its effect, and opens
 * an incident for the rest. It reads every area below it and nothing depends on it.
 */
package dev.lockstep.reconciliation;
