/**
 * What is kept and for how long: the archive of finished runs moved out of the engine's history and
 * the job that moves them ({@code archive}), and the purge of old rows of the operational tables
 * ({@code retention}). The approval area reads finished runs from the archive.
 */
package dev.lockstep.history;
