package dev.lockstep.support;

import org.junit.jupiter.api.AfterEach;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The preamble of a test that drives use cases over HTTP against the shared embedded context: the
 * API client, plain-SQL access to both databases, and fault injection that is disarmed after each test.
 */
@LockstepIntegrationTest
public abstract class UseCaseIntegrationTest {

    @Autowired
    protected Api api;
    @Autowired
    protected TestDatabases db;
    @Autowired
    protected InjectedFaults faults;

    @AfterEach
    void disarmFaults() {
        faults.disarmAll();
    }
}
