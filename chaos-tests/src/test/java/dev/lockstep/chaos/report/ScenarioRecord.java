package dev.lockstep.chaos.report;

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
    /** The use case the fault interrupted: submit, final decision, join decision, return, countersign vote, withdraw, ... */
    public String useCase = "submit";
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

    ScenarioRecord(int number, String title, String faultPoint, String injection, String expectedOutcome) {
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
