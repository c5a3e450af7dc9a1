package dev.tspipe.app;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CountDownLatch;

/**
 * The services a long-running command started, stopped in reverse order when the process is
 * asked to stop (Ctrl-C, SIGTERM) or when {@link #close()} is called.
 */
final class ProcessLifecycle implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ProcessLifecycle.class);

    private record Service(String name, AutoCloseable resource) {
    }

    private final Deque<Service> services = new ArrayDeque<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread shutdownHook = new Thread(this::close, "tspipe-shutdown");

    ProcessLifecycle() {
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Adds a started service; it is stopped before every service added earlier. */
    synchronized <T extends AutoCloseable> T register(String name, T resource) {
        services.push(new Service(name, resource));
        return resource;
    }

    /** Blocks until the process is asked to stop and every service has stopped. */
    void awaitShutdown() throws InterruptedException {
        stopped.await();
    }

    @Override
    public void close() {
        synchronized (this) {
            while (!services.isEmpty()) {
                Service service = services.pop();
                long start = System.nanoTime();
                try {
                    service.resource().close();
                    log.info("Stopped {} in {} ms", service.name(), (System.nanoTime() - start) / 1_000_000);
                } catch (Exception e) {
                    log.error("Failed to stop {} cleanly", service.name(), e);
                }
            }
        }
        stopped.countDown();
        if (Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException alreadyShuttingDown) {
                // The hook is running or has run; nothing is left to remove.
            }
        }
    }
}
