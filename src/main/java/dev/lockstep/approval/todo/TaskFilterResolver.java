package dev.lockstep.approval.todo;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import org.springframework.beans.TypeMismatchException;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.validation.MapBindingResult;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Reads a {@link TaskFilter} from the query parameters named like its components. Bound as a model attribute, the
 * record went through Spring MVC's data binder on every todo and done page: a fifth of the service's CPU with 16
 * readers (docs/performance.md), for filters that are mostly absent. A value given is converted by a data binder of
 * the request, as a {@code @RequestParam} is, so with the same conversions as before; one that does not convert is
 * 400 VALIDATION_FAILED naming each such parameter, as before.
 */
@Configuration(proxyBeanMethods = false)
class TaskFilterResolver implements HandlerMethodArgumentResolver, WebMvcConfigurer {

    @Override
    public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
        resolvers.add(this);
    }

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return parameter.getParameterType() == TaskFilter.class;
    }

    @Override
    public TaskFilter resolveArgument(MethodParameter parameter, ModelAndViewContainer mav, NativeWebRequest request,
            WebDataBinderFactory binders) throws Exception {
        Reader reader = new Reader(request, binders);
        TaskFilter filter = new TaskFilter(reader.read("businessType", String.class), reader.read("applicantId", String.class),
                reader.read("minAmount", BigDecimal.class), reader.read("maxAmount", BigDecimal.class),
                reader.read("createdFrom", Instant.class), reader.read("createdBefore", Instant.class));
        if (reader.errors.hasErrors()) {
            throw new MethodArgumentNotValidException(parameter, reader.errors);
        }
        return filter;
    }

    /** One request's parameters, with the errors of those that did not convert. */
    private final class Reader {

        private final NativeWebRequest request;
        private final WebDataBinderFactory binders;
        private final MapBindingResult errors = new MapBindingResult(new HashMap<>(), "filter");

        Reader(NativeWebRequest request, WebDataBinderFactory binders) {
            this.request = request;
            this.binders = binders;
        }

        <T> T read(String name, Class<T> type) throws Exception {
            String value = request.getParameter(name);
            if (value == null || value.isEmpty()) {
                return null;
            }
            try {
                return binders.createBinder(request, null, name).convertIfNecessary(value, type);
            } catch (TypeMismatchException e) {
                errors.rejectValue(name, "typeMismatch", "is not " + (type == BigDecimal.class ? "a decimal number"
                        : type == Instant.class ? "an instant such as 2026-12-01T00:00:00Z" : "a " + type.getSimpleName()));
                return null;
            }
        }
    }
}
