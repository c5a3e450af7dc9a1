package dev.tspipe.embedded;

import dev.tspipe.embedded.registry.RegistryRoutes;
import dev.tspipe.embedded.registry.RegistryServer;
import dev.tspipe.schemas.registry.SchemaRegistryCore;
import io.javalin.Javalin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registry's HTTP edge, byte for byte over raw sockets: the write check on every spelling
 * of a writing route, credentials against Jetty's header cache, method overrides, Jetty's own
 * errors in the registry's shape, and the body bound with and without a declared length.
 */
class RegistryServerTest {

    private static final String TOKEN = "Bearer Write-Token-7";
    private static final String WRITE = "Authorization: " + TOKEN;
    private static final String SCHEMA = RegistryHttp.schemaBody("{\"type\":\"record\",\"name\":\"R\",\"fields\":[]}");
    private static final String LEVEL = "{\"compatibility\":\"NONE\"}";

    private static Javalin server;

    @BeforeAll
    static void start() throws IOException {
        Predicate<String> writers = TOKEN::equals;
        server = RegistryServer.start(new RegistryRoutes(new SchemaRegistryCore(SchemaRegistryCore.Journal.NONE),
                Optional.empty(), Optional.of(writers)), "127.0.0.1", 0, Optional.empty());
        try (RawHttpConnection connection = connect()) {
            assertThat(connection.send("POST", "/subjects/kept-value/versions", SCHEMA, WRITE).status()).isEqualTo(200);
        }
    }

    @AfterAll
    static void stop() {
        server.stop();
    }

    @Test
    void everySpellingOfAWritingRouteNeedsAWriter() throws IOException {
        List<String[]> writes = List.of(
                new String[] {"POST", "/subjects/new-value/versions", SCHEMA},
                new String[] {"DELETE", "/subjects/kept-value", null},
                new String[] {"DELETE", "/subjects/kept-value/versions/1", null},
                new String[] {"PUT", "/config", LEVEL},
                new String[] {"PUT", "/config/kept-value", LEVEL},
                new String[] {"PUT", "/mode", "{\"mode\":\"READONLY\"}"});
        for (String[] write : writes) {
            for (String path : spellings(write[1])) {
                try (RawHttpConnection connection = connect()) {
                    RawHttpConnection.Answer answer = connection.send(write[0], path, write[2]);
                    assertThat(answer.status()).as(write[0] + " " + path + ": " + answer.body()).isIn(400, 401, 404, 405);
                    assertThat(answer.header("X-Content-Type-Options")).as(path + " " + answer).isEqualTo("nosniff");
                }
            }
        }
        try (RawHttpConnection connection = connect()) {
            assertThat(connection.send("GET", "/subjects", null).body()).doesNotContain("new-value").contains("\"kept-value\"");
            assertThat(connection.send("GET", "/subjects/kept-value/versions", null).body()).isEqualTo("[1]");
            assertThat(connection.send("GET", "/config", null).body()).isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");
            assertThat(connection.send("GET", "/config/kept-value", null).status()).isEqualTo(404);
        }
    }

    @Test
    void aLookupAndACompatibilityTestAreReads() throws IOException {
        try (RawHttpConnection connection = connect()) {
            assertThat(connection.send("POST", "/subjects/kept-value", SCHEMA).status()).isEqualTo(200);
            assertThat(connection.send("POST", "/compatibility/subjects/kept-value/versions/1", SCHEMA).status()).isEqualTo(200);
        }
    }

    @Test
    void aCredentialInAnotherCaseIsRefusedOnAConnectionThatCarriedTheRealOne() throws IOException {
        try (RawHttpConnection connection = connect()) {
            assertThat(connection.send("PUT", "/config/cache-value", LEVEL, WRITE).status()).isEqualTo(200);
            RawHttpConnection.Answer variant = connection.send("PUT", "/config/cache-value", LEVEL, "Authorization: Bearer write-token-7");
            assertThat(variant.status()).as(variant.body()).isEqualTo(401);
        }
    }

    @Test
    void aMethodOverrideIsRefusedAndChangesNothing() throws IOException {
        for (String header : List.of("X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override", "x-http-method-override")) {
            try (RawHttpConnection connection = connect()) {
                RawHttpConnection.Answer answer = connection.send("POST", "/subjects/kept-value", SCHEMA, WRITE, header + ": DELETE");
                assertThat(answer.status()).as(header).isEqualTo(400);
                assertThat(answer.header("Content-Type")).isEqualTo(RegistryRoutes.CONTENT_TYPE);
                assertThat(answer.body()).startsWith("{\"error_code\":400,\"message\":\"The header ")
                        .contains("send the request with its own HTTP method");
            }
            try (RawHttpConnection connection = connect()) {
                assertThat(connection.send("GET", "/subjects", null).body()).contains("\"kept-value\"");
            }
        }
    }

    @Test
    void jettysOwnErrorsAreJsonWithNosniff() throws IOException {
        try (RawHttpConnection connection = connect()) {
            expectJsonError(connection.send("GET", "/no/such/path", null), 404);
            expectJsonError(connection.send("GET", "/subjects", null, "X-Big: " + "b".repeat(20_000)), 431);
        }
        try (RawHttpConnection connection = connect()) {
            expectJsonError(connection.send("GET", "/subjects/" + "u".repeat(20_000), null), 414);
        }
        try (RawHttpConnection connection = connect()) {
            connection.write("NOT A REQUEST LINE\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            expectJsonError(connection.read(), 400);
        }
        try (RawHttpConnection connection = connect()) {
            RawHttpConnection.Answer ok = connection.send("GET", "/subjects", null);
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.header("X-Content-Type-Options")).isEqualTo("nosniff");
        }
    }

    @Test
    void aDeclaredBodyOverTheBoundIsRefusedUnread() throws IOException {
        try (RawHttpConnection connection = connect()) {
            connection.write(("POST /subjects/big-value/versions HTTP/1.1\r\nHost: localhost\r\n" + WRITE
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + (2 * RegistryRoutes.MAX_BODY_BYTES)
                    + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            expectJsonError(connection.read(), 413);
        }
        assertNotRegistered("big-value");
    }

    @Test
    void aChunkedBodyOverTheBoundIsRefused() throws Exception {
        try (RawHttpConnection connection = connect()) {
            connection.write(("POST /subjects/chunked-value/versions HTTP/1.1\r\nHost: localhost\r\n" + WRITE
                    + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            // Written beside the read: the server answers after 1 MiB and may close before the rest is sent.
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> writeChunks(connection, 3 * RegistryRoutes.MAX_BODY_BYTES));
            expectJsonError(connection.read(), 413);
            writing.handle((done, failure) -> null).get();
        }
        assertNotRegistered("chunked-value");
    }

    @Test
    void aBodyWithinTheBoundIsRead() throws IOException {
        String padded = "{\"type\":\"record\",\"name\":\"P\",\"doc\":\"" + "p".repeat(RegistryRoutes.MAX_BODY_BYTES / 2) + "\",\"fields\":[]}";
        try (RawHttpConnection connection = connect()) {
            assertThat(connection.send("POST", "/subjects/padded-value/versions", RegistryHttp.schemaBody(padded), WRITE).status())
                    .isEqualTo(200);
        }
    }

    private static void writeChunks(RawHttpConnection connection, int total) {
        byte[] chunk = ("10000\r\n" + " ".repeat(0x10000) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        try {
            connection.write("b\r\n{\"schema\":\"\r\n".getBytes(StandardCharsets.ISO_8859_1));
            for (int sent = 0; sent < total; sent += 0x10000) {
                connection.write(chunk);
            }
            connection.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        } catch (IOException closedByTheServer) {
            // Expected once the server has refused the body.
        }
    }

    private static void assertNotRegistered(String subject) throws IOException {
        try (RawHttpConnection connection = connect()) {
            assertThat(connection.send("GET", "/subjects", null).body()).doesNotContain(subject);
        }
    }

    private static void expectJsonError(RawHttpConnection.Answer answer, int status) {
        assertThat(answer.status()).as(answer.body()).isEqualTo(status);
        assertThat(answer.header("Content-Type")).isEqualTo(RegistryRoutes.CONTENT_TYPE);
        assertThat(answer.header("X-Content-Type-Options")).isEqualTo("nosniff");
        assertThat(answer.body()).startsWith("{\"error_code\":" + status + ",\"message\":\"");
    }

    /** The spellings that a path matcher could tell apart from {@code path} but a router might not. */
    private static List<String> spellings(String path) {
        String inner = path.substring(1);
        int lastSlash = path.lastIndexOf('/');
        return List.of(path, path + "/", path + "//", "/" + path, path.replace("/", "//"), path + "/.", path + "/./",
                path + ";x", path.substring(0, lastSlash) + ";x" + path.substring(lastSlash),
                lastSlash > 0 ? path.substring(0, lastSlash) + "%2F" + path.substring(lastSlash + 1) : path + "%2F",
                path.toUpperCase(), "/" + inner.substring(0, 1).toUpperCase() + inner.substring(1),
                "/./" + inner, "/x/../" + inner, path + "?x=1", path + "/?x=1");
    }

    private static RawHttpConnection connect() throws IOException {
        return new RawHttpConnection(server.port());
    }
}
