package dev.tspipe.bench.faults;

import dev.tspipe.embedded.EmbeddedSchemaRegistry;

import java.io.IOException;

/**
 * The schema registry of the fault harness in its own JVM, so that it can be killed with SIGKILL:
 * an {@link EmbeddedSchemaRegistry} on a fixed port, journaled to {@code _schemas} on the broker,
 * so that a restart serves the same ids.
 *
 * <pre>
 * args:   bootstrapServers port
 * stdout: READY url
 * stdin:  stop (or end of input)
 * </pre>
 */
public final class RegistryMain {

    private RegistryMain() {
    }

    public static void main(String[] args) throws IOException {
        try (EmbeddedSchemaRegistry registry = EmbeddedSchemaRegistry.builder()
                .bootstrapServers(args[0])
                .port(Integer.parseInt(args[1]))
                .start()) {
            System.out.println("READY " + registry.url());
            System.out.flush();
            BrokerMain.awaitStop();
        }
    }
}
