package dev.lockstep.transactions.xa;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the HTTP requests this node is answering, outermost filter first, so that {@link TransactionDrain} keeps the
 * web server up until a request that outlasted the web drain has written its answer: its transaction ends before its
 * answer is serialized, and a web server stopped in between closes the connection of a request whose work committed
 * (the client sees no answer; NodeDrainTest saw it under load).
 */
final class RequestsInFlight implements Filter {

    private final AtomicInteger answering = new AtomicInteger();

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        answering.incrementAndGet();
        try {
            chain.doFilter(request, response);
        } finally {
            answering.decrementAndGet();
        }
    }

    int answering() {
        return answering.get();
    }
}
