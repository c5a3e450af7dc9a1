package dev.tspipe.embedded;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class FreePortsTest {

    @Test
    void portsAreDistinctBindableAndBelowTheRangeOutgoingConnectionsUse() throws Exception {
        int ephemeralStart = FreePorts.ephemeralRangeStart();
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = FreePorts.next();
            assertThat(ports.add(port)).as("port %d given twice", port).isTrue();
            assertThat(port).isBetween(10_000, ephemeralStart - 1);
        }
        int port = FreePorts.next();
        try (ServerSocket server = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThat(server.getLocalPort()).isEqualTo(port);
        }
    }
}
