package dev.lockstep.approval;

public enum Decision {
    APPROVE, REJECT
}
