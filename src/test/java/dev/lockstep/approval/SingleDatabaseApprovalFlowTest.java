package dev.lockstep.approval;

import dev.lockstep.support.SingleDatabaseIntegrationTest;

/** The same happy paths and plain-SQL checks as {@link ApprovalFlowTest}, on the single-database deployment. */
@SingleDatabaseIntegrationTest
class SingleDatabaseApprovalFlowTest extends ApprovalFlowTest {
}
