package dev.lockstep.support;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.TestComponent;

/**
 * Fault injection for in-process tests: wraps the beans a use case is made of and, when a test has
 * armed an action for "beanName.method", runs it right after that method returns, inside the
 * caller's transaction. Unarmed it only passes calls through; it exists in test contexts only.
 */
@TestComponent
public class InjectedFaults implements BeanPostProcessor {

    private static final Set<String> WRAPPED = Set.of("approvalProcess", "applicationRepository", "outbox",
            "businessProcessBindingRepository", "approvalRecordRepository", "resolutionJournal", "recoveryAuditTrail", "historyArchive");

    private final Map<String, Runnable> armed = new ConcurrentHashMap<>();

    /** One-shot: the next call of {@code beanName.method} runs {@code action} after it returns. */
    public void afterCall(String beanName, String method, Runnable action) {
        armed.put(beanName + "." + method, action);
    }

    public void failAfter(String beanName, String method) {
        afterCall(beanName, method, () -> {
            throw new InjectedFault("injected fault after " + beanName + "." + method);
        });
    }

    /**
     * One-shot: the next call of {@code beanName.method}, once it returned, waits inside the caller's transaction
     * (holding whatever it has locked) until the test releases it. Release it in a {@code finally}.
     */
    public Pause pauseAfter(String beanName, String method) {
        Pause pause = new Pause();
        afterCall(beanName, method, pause::hold);
        return pause;
    }

    public void disarmAll() {
        armed.clear();
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!WRAPPED.contains(beanName)) {
            return bean;
        }
        ProxyFactory proxy = new ProxyFactory(bean);
        proxy.setProxyTargetClass(!beanName.endsWith("Repository"));
        proxy.addAdvice((MethodInterceptor) invocation -> {
            Object result = invocation.proceed();
            Runnable action = armed.remove(beanName + "." + invocation.getMethod().getName());
            if (action != null) {
                action.run();
            }
            return result;
        });
        return proxy.getProxy();
    }

    /** A call held where {@link #pauseAfter} put it. */
    public static final class Pause {
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        private void hold() {
            reached.countDown();
            try {
                released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        /** Returns once the call is held; fails if {@code work}, which should reach it, ended without. */
        public void awaitReachedBy(Future<?> work) throws Exception {
            while (!reached.await(50, TimeUnit.MILLISECONDS)) {
                if (work.isDone()) {
                    work.get();
                    throw new AssertionError("the work ended without reaching the pause");
                }
            }
        }

        public void release() {
            released.countDown();
        }
    }

    public static class InjectedFault extends RuntimeException {
        InjectedFault(String message) {
            super(message);
        }
    }
}
