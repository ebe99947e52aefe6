package dev.lockstep.chaos.report;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The facts one scenario run produced, in the order an auditor reads them. */
public final class ScenarioRecord {

    public final int number;
    public final String title;
    public final String faultPoint;
    public final String injection;
    public final String expectedOutcome;
    /** The use case the fault interrupted, from the fixed vocabulary in docs/compliance.md ("Use cases and halt points"). */
    public String useCase = "submit";
    /**
     * Where the JVM was halted: a {@code HaltPoint} name for the five two-phase-commit points, the name of a
     * second-phase or publishing halt otherwise (docs/compliance.md); null when the fault is not a halt.
     */
    public String haltPoint;
    /** XA, or LOCAL for a negative control: the service committed the two databases as two local transactions. */
    public String transactionMode = "XA";
    /** Whether the databases disagreed at the scenario's last invariant check; null when none ran. */
    public Boolean diverged;
    /** A negative control's XA twin: the scenario number of the same crash under XA. */
    public Integer xaTwin;
    /** The reconciliation rule whose incident named a negative control's split; null when none did. */
    public String foundByRule;
    /** Machine-checked evidence that the fault hit at the claimed point; empty when none was required or seen. */
    public String faultFired = "";
    public String observedOutcome = "";
    public String clientAnswer = "";
    public Long timeToRecoveryMillis;
    public String result = "NOT RUN";
    public String failure;
    public long durationMillis;
    public final Map<String, Object> rowsBefore = new LinkedHashMap<>();
    public final Map<String, Object> rowsAfterFault = new LinkedHashMap<>();
    public final Map<String, Object> rowsAfterRecovery = new LinkedHashMap<>();
    public List<String> preparedAfterFault = new ArrayList<>();
    public List<String> preparedAfterRecovery = new ArrayList<>();
    public List<String> coordinatorLogAfterFault = new ArrayList<>();
    public List<String> invariantViolations = new ArrayList<>();
    public final List<String> notes = new ArrayList<>();

    /** Also how a report of another JVM of the same run is read back (ComplianceReport's parts). */
    @JsonCreator
    ScenarioRecord(@JsonProperty("number") int number, @JsonProperty("title") String title, @JsonProperty("faultPoint") String faultPoint,
            @JsonProperty("injection") String injection, @JsonProperty("expectedOutcome") String expectedOutcome) {
        this.number = number;
        this.title = title;
        this.faultPoint = faultPoint;
        this.injection = injection;
        this.expectedOutcome = expectedOutcome;
    }

    public ScenarioRecord note(String text) {
        notes.add(text);
        return this;
    }
}
