package dev.lockstep.platform.web.input;

import tools.jackson.core.JsonParser;
import tools.jackson.databind.exc.MismatchedInputException;

/**
 * A JSON string value held a forbidden character. A {@link tools.jackson.databind.DatabindException}
 * so that Jackson records the path of the field on the way out and the 400 can name it.
 */
public class ControlCharacterException extends MismatchedInputException {

    ControlCharacterException(JsonParser parser, String value) {
        super(parser, "contains a control character (" + ControlCharacters.describeFirst(value)
                + "); only tab, line feed and carriage return are allowed", String.class);
    }
}
