package dev.tspipe.bench.faults;

import dev.tspipe.embedded.EmbeddedKafka;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The Kafka broker of the fault harness in its own JVM, so that it can be killed with SIGKILL:
 * an {@link EmbeddedKafka} on fixed ports and a persistent log directory, so that a restart keeps
 * the topics, records, offsets and transactions.
 *
 * <pre>
 * args:   port controllerPort logDir
 * stdout: READY
 * stdin:  stop (or end of input): a clean shutdown
 * </pre>
 */
public final class BrokerMain {

    private BrokerMain() {
    }

    public static void main(String[] args) throws IOException {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder()
                .port(Integer.parseInt(args[0]))
                .controllerPort(Integer.parseInt(args[1]))
                .logDir(Path.of(args[2]))
                .start()) {
            System.out.println("READY " + kafka.bootstrapServers());
            System.out.flush();
            awaitStop();
        }
    }

    static void awaitStop() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String command;
        do {
            command = in.readLine();
        } while (command != null && !command.equals("stop"));
    }
}
