package dev.lockstep.platform.web;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

/**
 * Requests Tomcat refuses before any servlet sees them (a request line or headers above
 * {@code server.max-http-request-header-size}, an unparsable URL) get Tomcat's HTML error page by
 * default. This replaces it with problem+json carrying the status name as {@code code}, like
 * {@link ProblemErrorController} does for errors that reach the application.
 */
@Component
class ContainerErrorProblems implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        // the host is not started yet when contexts are prepared, so it builds this valve instead of its own
        factory.addContextCustomizers(context -> {
            if (context.getParent() instanceof StandardHost host) {
                host.setErrorReportValveClass(ProblemReportValve.class.getName());
            }
        });
    }

    public static class ProblemReportValve extends ErrorReportValve {

        @Override
        protected void report(Request request, Response response, Throwable failure) {
            HttpStatus status = HttpStatus.resolve(response.getStatus());
            if (status == null || !status.isError() || response.getContentWritten() > 0 || !response.setErrorReported()) {
                return;
            }
            try {
                response.setContentType("application/problem+json");
                response.setCharacterEncoding(StandardCharsets.UTF_8.name());
                Writer writer = response.getReporter();
                if (writer != null) {
                    writer.write("{\"type\":\"https://lockstep.dev/problems/" + status.name().toLowerCase().replace('_', '-')
                            + "\",\"title\":\"" + status.getReasonPhrase() + "\",\"status\":" + status.value()
                            + ",\"detail\":\"The server refused the request before reading it (e.g. a URL or headers too"
                            + " large, or a malformed request line).\",\"code\":\"" + status.name() + "\"}");
                    response.finishResponse();
                }
            } catch (IOException | IllegalStateException e) {
                // the connection is gone or the response committed: nothing more to tell the client
            }
        }
    }
}
