package dev.lockstep.chaos;

/**
 * The five points of a two-phase commit at which the suite halts the service JVM (design.md §5), each
 * with its Byteman rule, the number of branches that must be prepared at that moment, and what
 * recovery must then do: roll back (no commit decision logged) or commit (decision logged). Atomikos
 * prepares the two branches at the same time, and commits them at the same time
 * (lockstep.tm.parallel-commit): "first" and "second" are the order the rules make, business first, by
 * holding the workflow branch's call at its entry until the business branch's call has returned.
 */
public enum HaltPoint {
    BEFORE_FIRST_PREPARE("halt-before-first-prepare.btm", "before any prepare", 0, false),
    AFTER_FIRST_PREPARE("halt-after-first-prepare.btm", "after the first prepare, before the second", 1, false),
    BEFORE_DECISION_LOGGED("halt-before-commit-decision.btm", "after both prepares, before the commit decision is logged", 2, false),
    AFTER_DECISION_LOGGED("halt-after-commit-decision.btm", "after the commit decision is logged, before any commit", 2, true),
    BETWEEN_COMMITS("halt-after-first-commit.btm", "after the first commit, before the second", 1, true);

    public final String rule;
    public final String moment;
    public final int preparedAtHalt;
    public final boolean commits;

    HaltPoint(String rule, String moment, int preparedAtHalt, boolean commits) {
        this.rule = rule;
        this.moment = moment;
        this.preparedAtHalt = preparedAtHalt;
        this.commits = commits;
    }

    /** The two points CI runs for every use case: just before and just after the coordinator logs its decision. */
    public boolean aroundTheCommitDecision() {
        return this == BEFORE_DECISION_LOGGED || this == AFTER_DECISION_LOGGED;
    }
}
