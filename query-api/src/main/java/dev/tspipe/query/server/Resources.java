package dev.tspipe.query.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a server owns and must close: its tokens file's watcher, meters, forwarding client, routing, executors. Closed
 * in the reverse of the order they were made in, the same way whether the start failed or the server is closed.
 */
final class Resources implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Resources.class);

    private final Deque<AutoCloseable> owned = new ArrayDeque<>();

    /** Owns {@code resource} (null: nothing) and hands it back. */
    <T extends AutoCloseable> T add(T resource) {
        if (resource != null) {
            owned.push(resource);
        }
        return resource;
    }

    @Override
    public void close() {
        while (!owned.isEmpty()) {
            AutoCloseable resource = owned.pop();
            try {
                resource.close();
            } catch (Exception e) {
                LOG.warn("Closing {} failed: {}", resource, e.toString());
            }
        }
    }
}
