package dev.lockstep.platform.web;

import dev.lockstep.platform.AreaApi;
import java.util.Optional;

/**
 * Lets a capability below or beside {@code web} turn a failure only it understands (a database lock
 * wait that timed out, say) into an {@link ApiException}, without {@code web} depending on it.
 * {@link ProblemHandler} asks every translator before it answers 500.
 */
@AreaApi
public interface ProblemTranslator {

    Optional<ApiException> translate(Throwable error);
}
