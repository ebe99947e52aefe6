package dev.lockstep.platform.web.input;

import dev.lockstep.platform.web.ApiException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Map;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Query parameters and path variables with a control character are refused with 400
 * VALIDATION_FAILED naming the parameter. Runs after handler mapping, so the path variables are known,
 * and before argument binding; what it throws is rendered by {@link dev.lockstep.platform.web.ProblemHandler}.
 */
final class RequestParameterCheck implements HandlerInterceptor {

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        request.getParameterMap().forEach((name, values) -> {
            check("query parameter", name, name);
            for (String value : values) {
                check("query parameter", name, value);
            }
        });
        if (request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE) instanceof Map<?, ?> variables) {
            variables.forEach((name, value) -> check("path variable", String.valueOf(name), String.valueOf(value)));
        }
        return true;
    }

    private static void check(String kind, String name, String value) {
        if (ControlCharacters.contains(value)) {
            throw ApiException.badRequest("VALIDATION_FAILED", "Invalid request: " + kind + " '" + printable(name)
                    + "' contains a control character (" + ControlCharacters.describeFirst(value)
                    + "); only tab, line feed and carriage return are allowed.");
        }
    }

    /** The name itself may be the offender; it is echoed with its control characters escaped. */
    private static String printable(String name) {
        StringBuilder out = new StringBuilder();
        name.codePoints().forEach(c -> out.append(ControlCharacters.contains(Character.toString(c))
                ? String.format("\\u%04X", c) : Character.toString(c)));
        return out.toString();
    }
}
