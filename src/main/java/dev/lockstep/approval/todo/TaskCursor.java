package dev.lockstep.approval.todo;

import dev.lockstep.platform.web.ApiException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;

/**
 * Keyset position in a task list: the sort instant and task id of the last row returned. Opaque to
 * clients so the sort key can change without breaking them.
 */
record TaskCursor(Instant at, String taskId) {

    private static final char SEPARATOR = '|';

    String encode() {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((at.toString() + SEPARATOR + taskId).getBytes(StandardCharsets.UTF_8));
    }

    static TaskCursor decode(String cursor) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            int separator = text.indexOf(SEPARATOR);
            return new TaskCursor(Instant.parse(text.substring(0, separator)), text.substring(separator + 1));
        } catch (IllegalArgumentException | DateTimeParseException | StringIndexOutOfBoundsException e) {
            throw ApiException.badRequest("INVALID_CURSOR", "The cursor is not one this service returned.");
        }
    }
}
