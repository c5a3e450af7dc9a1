package dev.tspipe.query.routing;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/** The forwarder against real HTTP servers on the loopback interface (the JDK's small server). */
class ForwarderTest {

    private final List<HttpServer> servers = new ArrayList<>();
    private final Forwarder forwarder = new Forwarder(Duration.ofSeconds(2), Duration.ofSeconds(30));

    @AfterEach
    void stop() {
        servers.forEach(server -> server.stop(0));
        forwarder.close();
    }

    private HostInfo serve(HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", handler);
        server.start();
        servers.add(server);
        return new HostInfo("127.0.0.1", server.getAddress().getPort());
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Test
    void theForwardingHeaderAndTheCallersCredentialsAreSentAndTheAnswerHandedBackUnchanged() throws Exception {
        HostInfo host = serve(exchange -> answer(exchange, 404,
                "forwarded=" + exchange.getRequestHeaders().getFirst(Forwarder.FORWARDED_HEADER) + " " + exchange.getRequestURI()
                        + " authorization=" + exchange.getRequestHeaders().getFirst("Authorization")));
        Optional<Forwarder.Answer> answer = forwarder.get(host,
                new Forwarder.Request("/api/v1/series/a%2Fb/m/latest?limit=5", "Bearer tsp_abc"));
        assertThat(answer).hasValueSatisfying(a -> {
            assertThat(a.status()).isEqualTo(404);
            assertThat(new String(a.body(), StandardCharsets.UTF_8))
                    .isEqualTo("forwarded=1 /api/v1/series/a%2Fb/m/latest?limit=5 authorization=Bearer tsp_abc");
        });
        assertThat(forwarder.get(host, Forwarder.Request.of("/x"))).hasValueSatisfying(a ->
                assertThat(new String(a.body(), StandardCharsets.UTF_8)).endsWith("authorization=null"));
    }
}
