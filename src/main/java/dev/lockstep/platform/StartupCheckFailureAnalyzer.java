package dev.lockstep.platform;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a {@link StartupCheckFailure} into Boot's "APPLICATION FAILED TO START" description and action. */
class StartupCheckFailureAnalyzer extends AbstractFailureAnalyzer<StartupCheckFailure> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, StartupCheckFailure cause) {
        return new FailureAnalysis(cause.getMessage(), "Check the setting " + cause.setting() + ". " + cause.fix(), cause);
    }
}
