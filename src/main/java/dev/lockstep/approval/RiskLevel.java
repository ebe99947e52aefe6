package dev.lockstep.approval;

public enum RiskLevel {
    LOW, MEDIUM, HIGH
}
