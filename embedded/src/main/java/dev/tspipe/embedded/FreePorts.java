package dev.tspipe.embedded;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for servers that tests and benchmarks start: distinct from each other, and free when chosen.
 *
 * <p>A port from {@code bind(0)} comes from the kernel's ephemeral range, the same range every
 * outgoing connection takes its local port from: between choosing a port and the server binding it
 * (seconds, for a broker in a new JVM), a client connection of another process can take it, and
 * the server fails with "Address already in use". Ports here are chosen below that range (Linux:
 * {@code /proc/sys/net/ipv4/ip_local_port_range}), where only servers bind.
 */
public final class FreePorts {

    private static final int LOWEST = 10_000;
    private static final Set<Integer> GIVEN = new HashSet<>();

    private FreePorts() {
    }

    /** A port free on 127.0.0.1, never one this JVM gave before. */
    public static int next() {
        return next("127.0.0.1");
    }

    /** A port free on {@code host} (for example {@code 0.0.0.0} for a port that containers publish). */
    public static synchronized int next(String host) {
        int below = ephemeralRangeStart();
        for (int attempt = 0; attempt < 200; attempt++) {
            int candidate = ThreadLocalRandom.current().nextInt(LOWEST, below);
            if (!GIVEN.contains(candidate) && bindable(host, candidate)) {
                GIVEN.add(candidate);
                return candidate;
            }
        }
        throw new IllegalStateException("no free port on " + host + " between " + LOWEST + " and " + below);
    }

    private static boolean bindable(String host, int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(host))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The first port the kernel gives outgoing connections; 32768 (Linux's default) where it cannot be read. */
    static int ephemeralRangeStart() {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        try {
            int start = Integer.parseInt(Files.readString(range).trim().split("\\s+")[0]);
            return start > LOWEST + 1_000 ? start : 32_768;
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
