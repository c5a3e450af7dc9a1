package dev.tspipe.processor.store;

import java.io.File;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The series stores open in this JVM, one per task directory, shared by the five {@link TableStore}s of
 * the task: the first table to open opens it, the last to close closes it.
 */
final class SharedSeriesStores {

    private static final Map<String, Shared> OPEN = new HashMap<>();

    private SharedSeriesStores() {
    }

    private static final class Shared {
        final SeriesStore store;
        int users;

        Shared(SeriesStore store) {
            this.store = store;
        }
    }

    static synchronized SeriesStore acquire(File directory, Supplier<SeriesStore> open) {
        String key = directory.getAbsoluteFile().toPath().normalize().toString();
        Shared shared = OPEN.get(key);
        if (shared == null || !shared.store.isOpen()) {
            shared = new Shared(open.get());
            OPEN.put(key, shared);
        }
        shared.users++;
        return shared.store;
    }

    static synchronized void release(File directory, SeriesStore store) {
        String key = directory.getAbsoluteFile().toPath().normalize().toString();
        Shared shared = OPEN.get(key);
        if (shared == null || shared.store != store) {
            store.close();
            return;
        }
        if (--shared.users == 0) {
            OPEN.remove(key);
            store.close();
        }
    }
}
