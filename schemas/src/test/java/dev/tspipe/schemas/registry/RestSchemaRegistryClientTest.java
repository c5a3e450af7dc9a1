package dev.tspipe.schemas.registry;

import com.sun.net.httpserver.HttpServer;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The HTTP side of the client: headers, failover between URLs, error mapping. A recording HTTP
 * server stands in for the registry here because the test must see the requests themselves; the
 * client against a real registry is covered by the embedded registry's integration tests.
 */
class RestSchemaRegistryClientTest {

    private static final Schema SCHEMA = new Schema.Parser().parse(
            "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"string\"}]}");

    private record Request(String method, String path, String contentType, String authorization, String body) {
    }

    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private URI serve(int status, String body) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            requests.add(new Request(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    exchange.getRequestHeaders().getFirst("Authorization"),
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", RestSchemaRegistryClient.CONTENT_TYPE);
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private static URI deadUrl() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }
    }

    @Test
    void registerPostsTheSchemaAsConfluentJsonWithBasicAuth() throws IOException {
        URI url = serve(200, "{\"id\":7}");
        RestSchemaRegistryClient client = new RestSchemaRegistryClient(List.of(url), Optional.of("alice:secret"));

        assertThat(client.register("my topic-value", SCHEMA)).isEqualTo(7);

        Request request = requests.get(0);
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/subjects/my%20topic-value/versions");
        assertThat(request.contentType()).isEqualTo("application/vnd.schemaregistry.v1+json");
        assertThat(request.authorization()).isEqualTo("Basic YWxpY2U6c2VjcmV0");
        assertThat(request.body()).isEqualTo("{\"schema\":\"" + SCHEMA.toString().replace("\"", "\\\"") + "\"}");
    }

    @Test
    void aDeadUrlIsSkippedForTheNextOne() throws IOException {
        URI dead = deadUrl();
        URI live = serve(200, "{\"schema\":" + quote(SCHEMA.toString()) + "}");
        RestSchemaRegistryClient client = new RestSchemaRegistryClient(List.of(dead, live), Optional.empty());

        assertThat(client.schemaById(3)).isEqualTo(SCHEMA);
        assertThat(requests).extracting(Request::path).containsExactly("/schemas/ids/3");
    }

    @Test
    void aConfluentErrorBecomesARegistryExceptionWithItsCode() throws IOException {
        URI url = serve(404, "{\"error_code\":40403,\"message\":\"Schema 3 not found\"}");
        RestSchemaRegistryClient client = new RestSchemaRegistryClient(List.of(url), Optional.empty());

        assertThatThrownBy(() -> client.schemaById(3)).isInstanceOfSatisfying(RegistryException.class, e -> {
            assertThat(e.httpStatus()).isEqualTo(404);
            assertThat(e.errorCode()).isEqualTo(40403);
            assertThat(e.getMessage()).contains("Schema 3 not found", url.toString());
        });
    }

    @Test
    void whenEveryUrlFailsTheErrorNamesEachOne() throws IOException {
        URI dead = deadUrl();
        URI failing = serve(503, "{\"error_code\":50003,\"message\":\"busy\"}");
        RestSchemaRegistryClient client = new RestSchemaRegistryClient(List.of(dead, failing), Optional.empty());

        assertThatThrownBy(() -> client.schemaById(1))
                .isInstanceOf(RegistryUnavailableException.class)
                .hasMessageContaining(dead.toString())
                .hasMessageContaining(failing + " (HTTP 503");
    }

    @Test
    void userInfoInTheUrlIsNotSentInTheUrl() throws IOException {
        URI url = serve(200, "{\"id\":1}");
        URI withUser = URI.create("http://bob:pw@127.0.0.1:" + url.getPort());
        RestSchemaRegistryClient client = new RestSchemaRegistryClient(List.of(withUser), Optional.of("bob:pw"));

        client.lookupId("s", SCHEMA);

        assertThat(client.location()).doesNotContain("pw");
        assertThat(requests.get(0).authorization()).isEqualTo("Basic Ym9iOnB3");
    }

    private static String quote(String s) {
        return "\"" + s.replace("\"", "\\\"") + "\"";
    }
}
