package dev.lockstep.approval;

import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code lockstep.approval.separation.*}. {@code oneStepPerPerson}: the risk levels on which one
 * person decides at most one step of an application's run (default MEDIUM and HIGH; set it empty
 * to turn the rule off). The applicant never deciding and the signers of a countersign being
 * distinct people are not settings: they hold on every risk level.
 */
@ConfigurationProperties("lockstep.approval.separation")
public record SeparationProperties(@DefaultValue({"MEDIUM", "HIGH"}) Set<RiskLevel> oneStepPerPerson) {

    public boolean oneStepPerPerson(RiskLevel riskLevel) {
        return oneStepPerPerson.contains(riskLevel);
    }
}
