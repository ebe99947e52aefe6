package dev.lockstep.web;

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
            String field = databind.getPath().stream()
                    .map(reference -> reference.getPropertyName() != null ? reference.getPropertyName()
                            : "[" + reference.getIndex() + "]")
                    .collect(Collectors.joining("."));
            return "field '" + field + "' has a wrong value or type (" + databind.getOriginalMessage() + ")";
        }
        if (cause instanceof JacksonException jackson) {
            return jackson.getOriginalMessage();
        }
        return "the body is missing or unreadable";
    }
}
