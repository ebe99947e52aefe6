package dev.lockstep.support;

import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Declarative flows that the definition tests and the definition benchmark share. */
public final class DeclarativeSamples {

    private DeclarativeSamples() {
    }

    /**
     * Fifty entries, 55 user tasks: every tenth a parallel block of two reviews skipped when {@code urgent} is true, the
     * others a managers' step with a four-hour deadline that may be returned to the first step. Its routable field is
     * {@code urgent}; its groups are managers, legal and finance.
     */
    public static String fiftySteps() {
        return IntStream.range(0, 50).mapToObj(i -> i % 10 == 5
                        ? "{\"id\": \"block" + i + "\", \"when\": \"urgent == false\", \"parallel\": [[{\"id\": \"legal" + i
                                + "\", \"candidateGroups\": [\"legal\"]}], [{\"id\": \"finance" + i + "\", \"candidateGroups\": [\"finance\"]}]]}"
                        : "{\"id\": \"step" + i + "\", \"candidateGroups\": [\"managers\"], \"deadline\": \"PT4H\""
                                + (i > 0 ? ", \"returnTo\": [\"step0\"]" : "") + "}")
                .collect(Collectors.joining(",", "{\"name\": \"Long\", \"steps\": [", "]}"));
    }
}
