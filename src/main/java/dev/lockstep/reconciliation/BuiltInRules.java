package dev.lockstep.reconciliation;

import java.util.List;
import java.util.stream.Stream;

/** The rules this package defines, in the order runs apply them: the application's run, then its publishing. */
final class BuiltInRules {

    static final List<ReconciliationRule> ALL = Stream.concat(Stream.of(ApplicationRule.values()),
            Stream.of(PublicationRule.values())).map(ReconciliationRule.class::cast).toList();

    private BuiltInRules() {
    }

    static ReconciliationRule byId(String ruleId) {
        return ALL.stream().filter(rule -> rule.id().equals(ruleId)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no built-in reconciliation rule " + ruleId));
    }
}
