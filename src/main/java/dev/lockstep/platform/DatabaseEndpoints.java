package dev.lockstep.platform;

/** The resolved connection settings of the two XA resources, whichever mode produced them. */
@AreaApi
public record DatabaseEndpoints(DatabaseSettings business, DatabaseSettings workflow) {

    public static final String BUSINESS_RESOURCE = "business-db";
    public static final String WORKFLOW_RESOURCE = "workflow-db";
}
