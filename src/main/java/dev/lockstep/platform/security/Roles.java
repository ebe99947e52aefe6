package dev.lockstep.platform.security;

import dev.lockstep.platform.AreaApi;

/** The roles Lockstep knows. Approvers also carry the candidate groups their tasks are offered to. */
@AreaApi
public final class Roles {

    public static final String APPLICANT = "APPLICANT";
    public static final String APPROVER = "APPROVER";
    public static final String ADMIN = "ADMIN";
    public static final String DBA = "DBA";
    public static final String AUDITOR = "AUDITOR";

    private Roles() {
    }
}
