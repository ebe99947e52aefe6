package dev.lockstep.platform.web;

import dev.lockstep.platform.web.input.ControlCharacterException;
import java.util.Optional;
import java.util.stream.Collectors;
import org.springframework.http.converter.HttpMessageNotReadableException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DatabindException;

/** Names the field a JSON body got wrong, so a 400 says which one. */
final class RequestBodyErrors {

    private RequestBodyErrors() {
    }

    static String describe(HttpMessageNotReadableException e) {
        Throwable cause = e.getCause();
        if (cause instanceof DatabindException databind && !databind.getPath().isEmpty()) {
            return "field '" + field(databind) + "' has a wrong value or type (" + databind.getOriginalMessage() + ")";
        }
        if (cause instanceof JacksonException jackson) {
            return jackson.getOriginalMessage();
        }
        return "the body is missing or unreadable";
    }

    /** The field and the reason when the body was refused for a control character in a string. */
    static Optional<FieldError> controlCharacter(HttpMessageNotReadableException e) {
        return e.getCause() instanceof ControlCharacterException refused
                ? Optional.of(new FieldError(field(refused), refused.getOriginalMessage()))
                : Optional.empty();
    }

    record FieldError(String field, String message) {
    }

    /** The JSON path of the field, e.g. {@code countersign.signers[0]}. */
    private static String field(DatabindException databind) {
        return databind.getPath().stream()
                .map(reference -> reference.getPropertyName() != null ? "." + reference.getPropertyName()
                        : "[" + reference.getIndex() + "]")
                .collect(Collectors.joining())
                .replaceFirst("^\\.", "");
    }
}
