package dev.tspipe.embedded;

import dev.tspipe.embedded.registry.RegistryRoutes;
import dev.tspipe.embedded.registry.RegistryServer;
import dev.tspipe.embedded.registry.RegistryUsers;
import dev.tspipe.schemas.registry.SchemaRegistryCore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A wider corpus of raw requests than {@link RegistryServerTest}'s, against the same server (journaling
 * nowhere, no broker): on every writing route (those that exist and the Confluent ones that do not) a
 * dozen spellings of its path, each without, with a wrong and with a case-changed write credential; the
 * three override headers on POST, GET and PUT; Jetty's own errors for GET, PUT and DELETE; the body bound
 * on each route that reads a body, by length and chunked, and at the bound exactly.
 */
class RegistryRawRequestsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOST = "127.0.0.1";
    private static final String WRITER = "Bearer writer-token-1";
    private static final String PASSWORD = "registry-secret-1";
    private static final String SCHEMA_BODY = "{\"schema\":\"\\\"string\\\"\"}";

    @TempDir
    static Path dir;

    /** Reads open, writes need {@link #WRITER}, as the demo's registry with tokens. */
    private static Javalin guarded;
    /** Every request needs alice's basic credentials, as {@code tspipe registry --users}. */
    private static Javalin basic;

    @BeforeAll
    static void start() throws Exception {
        guarded = RegistryServer.start(new RegistryRoutes(new SchemaRegistryCore(SchemaRegistryCore.Journal.NONE),
                Optional.empty(), Optional.of(WRITER::equals)), HOST, 0, Optional.empty());
        String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(PASSWORD.getBytes(StandardCharsets.UTF_8)));
        RegistryUsers users = RegistryUsers.load(Files.writeString(dir.resolve("users"), "alice:" + digest + "\n"));
        basic = RegistryServer.start(new RegistryRoutes(new SchemaRegistryCore(SchemaRegistryCore.Journal.NONE),
                Optional.of(users), Optional.empty()), HOST, 0, Optional.empty());
        assertThat(exchange(request("POST", "/subjects/kept-value/versions", WRITER, SCHEMA_BODY)).status()).isEqualTo(200);
    }

    @AfterAll
    static void stop() {
        guarded.stop();
        basic.stop();
    }

    // ---------------------------------------------------------------------------------------------
    // Finding 1: the write check belongs to the changing handlers, not to a spelling of their paths

    private record Write(String method, String path, String body) {
    }

    private static final List<Write> WRITES = List.of(
            new Write("POST", "/subjects/attack-value/versions", SCHEMA_BODY),
            new Write("PUT", "/config", "{\"compatibility\":\"NONE\"}"),
            new Write("PUT", "/config/kept-value", "{\"compatibility\":\"NONE\"}"),
            new Write("DELETE", "/subjects/kept-value", ""),
            new Write("DELETE", "/subjects/kept-value/versions/1", ""),
            new Write("DELETE", "/subjects/kept-value/versions/latest", ""),
            new Write("PUT", "/mode", "{\"mode\":\"IMPORT\"}"),
            new Write("PUT", "/mode/kept-value", "{\"mode\":\"IMPORT\"}"));

    /** Spellings of one path that a router or Jetty might take for it. */
    private static List<String> spellings(String path) {
        int last = path.lastIndexOf('/');
        List<String> spellings = new ArrayList<>(List.of(path, path + "/", path + "//", path + "/.", path + "/./", path + ";x",
                path + "/;x", "/" + path, path.replace("/", "//"), path.toUpperCase(Locale.ROOT),
                path.substring(0, 1).toUpperCase(Locale.ROOT) + path.substring(1), path + "%2F", path + "%2f"));
        if (last > 0) {
            spellings.add(path.substring(0, last) + "%2F" + path.substring(last + 1));
            spellings.add(path.substring(0, last) + "/./" + path.substring(last + 1));
            spellings.add(path.substring(0, last) + "/x/../" + path.substring(last + 1));
        }
        return spellings;
    }

    @Test
    void noSpellingOfAChangingRouteChangesAnythingWithoutTheWriteCredential() throws Exception {
        for (Write write : WRITES) {
            for (String path : spellings(write.path())) {
                for (String authorization : new String[] {null, "Bearer wrong", WRITER.toLowerCase(Locale.ROOT)}) {
                    RawHttpConnection.Answer answer = exchange(request(write.method(), path, authorization, write.body()));
                    String what = write.method() + " " + path + " with " + authorization + ": " + answer.status() + " " + answer.body();
                    assertThat(answer.status()).as(what).isIn(400, 401, 404);
                    int errorCode = errorCode(answer);
                    if (answer.status() == 401) {
                        assertThat(errorCode).as(what).isEqualTo(401);
                    }
                }
            }
        }
        assertThat(exchange(request("POST", "/subjects/attack-value/versions", null, SCHEMA_BODY)).status()).isEqualTo(401);
        assertThat(exchange(request("PUT", "/config", null, "{\"compatibility\":\"NONE\"}")).status()).isEqualTo(401);
        assertThat(exchange(request("PUT", "/config/kept-value", null, "{\"compatibility\":\"NONE\"}")).status()).isEqualTo(401);
        assertThat(exchange(request("DELETE", "/subjects/kept-value", null, "")).status()).isEqualTo(401);

        assertThat(exchange(request("GET", "/subjects", null, "")).body()).isEqualTo("[\"kept-value\"]");
        assertThat(exchange(request("GET", "/subjects/kept-value/versions", null, "")).body()).isEqualTo("[1]");
        assertThat(exchange(request("GET", "/config", null, "")).body()).isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");
        assertThat(exchange(request("GET", "/config/kept-value", null, "")).body()).doesNotContain("NONE");
    }

    @Test
    void theWriteCredentialStillChangesTheRegistry() throws Exception {
        assertThat(exchange(request("POST", "/subjects/written-value/versions/", WRITER, SCHEMA_BODY)).status()).isEqualTo(200);
        assertThat(exchange(request("PUT", "/config/written-value", WRITER, "{\"compatibility\":\"FULL\"}")).body())
                .isEqualTo("{\"compatibility\":\"FULL\"}");
        assertThat(exchange(request("DELETE", "/subjects/written-value", WRITER, "")).body()).isEqualTo("[1]");
        // Reads and the POSTs that only read stay open.
        assertThat(exchange(request("POST", "/subjects/kept-value", null, SCHEMA_BODY)).status()).isEqualTo(200);
        assertThat(exchange(request("POST", "/compatibility/subjects/kept-value/versions/latest", null, SCHEMA_BODY))
                .body()).isEqualTo("{\"is_compatible\":true}");
    }

    // ---------------------------------------------------------------------------------------------
    // Finding 2: no credential answered from Jetty's header cache

    @Test
    void aCaseVariantOfTheCredentialsIsRefusedOnTheConnectionThatCarriedTheRealOnes() throws Exception {
        String real = "Basic " + Base64.getEncoder().encodeToString(("alice:" + PASSWORD).getBytes(StandardCharsets.UTF_8));
        String variant = "Basic " + swapCase(real.substring("Basic ".length()));
        try (RawHttpConnection connection = new RawHttpConnection(basic.port())) {
            assertThat(exchange(connection, request("GET", "/subjects", real, "")).status()).isEqualTo(200);
            assertThat(exchange(connection, request("GET", "/subjects", real, "")).status()).isEqualTo(200);
            RawHttpConnection.Answer answer = exchange(connection, request("GET", "/subjects", variant, ""));
            assertThat(answer.status()).as(answer.body()).isEqualTo(401);
        }
    }

    private static String swapCase(String text) {
        StringBuilder swapped = new StringBuilder();
        for (char c : text.toCharArray()) {
            swapped.append(Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c));
        }
        return swapped.toString();
    }

    // ---------------------------------------------------------------------------------------------
    // Finding 3: no method override

    @Test
    void aRequestThatAsksForAnotherMethodIsRefusedAndChangesNothing() throws Exception {
        for (String header : new String[] {"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override", "x-http-method-override"}) {
            for (String method : new String[] {"POST", "GET", "PUT"}) {
                String request = "POST".equals(method) || "PUT".equals(method)
                        ? "%s /subjects/kept-value HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n%s: DELETE\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                        .formatted(method, WRITER, header, SCHEMA_BODY.length(), SCHEMA_BODY)
                        : "%s /subjects/kept-value HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n%s: DELETE\r\n\r\n".formatted(method, WRITER, header);
                RawHttpConnection.Answer answer = exchange(request);
                assertThat(answer.status()).as(method + " " + header + ": " + answer.body()).isEqualTo(400);
                assertThat(errorCode(answer)).isEqualTo(400);
                assertThat(answer.header("Content-Type")).startsWith(RegistryRoutes.CONTENT_TYPE);
            }
        }
        assertThat(exchange(request("GET", "/subjects", null, "")).body()).isEqualTo("[\"kept-value\"]");
    }

    // ---------------------------------------------------------------------------------------------
    // Finding 4: every answer, Jetty's own too, is JSON in the registry's error shape, with nosniff

    @Test
    void everyAnswerIsJsonWithNosniff() throws Exception {
        String longPath = "/subjects/" + "a".repeat(20_000);
        String bigHeader = "X-Big: " + "b".repeat(20_000) + "\r\n";
        String[] requests = {
                "GET /subjects HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /subjects/missing-value/versions HTTP/1.1\r\nHost: x\r\n\r\n",
                "DELETE /subjects/kept-value HTTP/1.1\r\nHost: x\r\n\r\n",
                "GARBAGE\r\n\r\n",
                "GET /subjects HTTP/1.1\r\n\r\n",
                "GET /subjects HTTP/7.0\r\nHost: x\r\n\r\n",
                "GET /subjects/%00 HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /subjects/a/../../x HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET " + longPath + " HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /subjects HTTP/1.1\r\nHost: x\r\n" + bigHeader + "\r\n",
                "PUT /config HTTP/1.1\r\nHost: x\r\n" + bigHeader + "\r\n",
                "DELETE /subjects/kept-value HTTP/1.1\r\nHost: x\r\n" + bigHeader + "\r\n",
                "DELETE /subjects/%00 HTTP/1.1\r\nHost: x\r\n\r\n",
                "POST /subjects/big-value/versions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n",
                "POST /subjects/big-value/versions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
                "POST /subjects/kept-value HTTP/1.1\r\nHost: x\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\n{}",
        };
        for (String request : requests) {
            RawHttpConnection.Answer answer = exchange(request);
            String what = request.substring(0, Math.min(60, request.indexOf('\r'))) + " -> " + answer.status() + " " + answer.headers()
                    + " " + answer.body();
            assertThat(answer.header("X-Content-Type-Options")).as(what).isEqualTo("nosniff");
            assertThat(answer.header("Content-Type")).as(what).contains("json");
            JsonNode body = JSON.readTree(answer.body());
            if (answer.status() != 200) {
                assertThat(body.get("error_code").isInt()).as(what).isTrue();
                assertThat(body.get("message").isTextual()).as(what).isTrue();
                assertThat(body.size()).as(what).isEqualTo(2);
                assertThat(answer.body()).as(what).doesNotContain("jetty", "Exception", "<html", "<pre");
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Finding 5: bodies are bounded, by their length and by the bytes read

    @Test
    void aBodyOverTheLimitIsRefused413ByLengthAndWhenChunked() throws Exception {
        String over = paddedSchemaBody(RegistryRoutes.MAX_BODY_BYTES + 1);
        String huge = paddedSchemaBody(3 * 1024 * 1024);
        for (String path : new String[] {"/subjects/big-value/versions", "/subjects/kept-value",
                "/compatibility/subjects/kept-value/versions/latest", "/config/big-value"}) {
            String method = path.startsWith("/config") ? "PUT" : "POST";
            for (String body : new String[] {over, huge}) {
                RawHttpConnection.Answer byLength = exchange(request(method, path, WRITER, body));
                assertThat(byLength.status()).as(path + " by length: " + byLength.body()).isEqualTo(413);
                assertThat(errorCode(byLength)).isEqualTo(413);
                RawHttpConnection.Answer chunked = exchange(chunkedRequest(method, path, WRITER, body));
                assertThat(chunked.status()).as(path + " chunked: " + chunked.body()).isEqualTo(413);
                assertThat(errorCode(chunked)).isEqualTo(413);
            }
        }
        assertThat(exchange(request("GET", "/subjects", null, "")).body()).isEqualTo("[\"kept-value\"]");
        // At the limit exactly, the body is read, by length and chunked.
        String limit = paddedSchemaBody(RegistryRoutes.MAX_BODY_BYTES);
        assertThat(exchange(request("POST", "/subjects/kept-value", null, limit)).status()).isEqualTo(200);
        assertThat(exchange(chunkedRequest("POST", "/subjects/kept-value", null, limit)).status()).isEqualTo(200);
    }

    /** A schema body of exactly {@code bytes} bytes: the schema and a field the registry ignores. */
    private static String paddedSchemaBody(int bytes) {
        String start = "{\"schema\":\"\\\"string\\\"\",\"padding\":\"";
        return start + "p".repeat(bytes - start.length() - 2) + "\"}";
    }

    // ---------------------------------------------------------------------------------------------

    /** Sends one request on a connection of its own to the guarded registry, and reads the answer. */
    private static RawHttpConnection.Answer exchange(String request) throws IOException {
        try (RawHttpConnection connection = new RawHttpConnection(guarded.port())) {
            return exchange(connection, request);
        }
    }

    private static RawHttpConnection.Answer exchange(RawHttpConnection connection, String request) throws IOException {
        try {
            connection.write(request.getBytes(StandardCharsets.ISO_8859_1));
        } catch (IOException closedWhileSending) {
            // The server may answer and close before reading an oversized request to its end; the answer is read below.
        }
        return connection.read();
    }

    private static int errorCode(RawHttpConnection.Answer answer) throws IOException {
        JsonNode body = JSON.readTree(answer.body());
        assertThat(body.get("message").isTextual()).as(answer.body()).isTrue();
        return body.get("error_code").asInt();
    }

    private static String request(String method, String path, String authorization, String body) {
        StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + HOST + "\r\n");
        if (authorization != null) {
            request.append("Authorization: ").append(authorization).append("\r\n");
        }
        if (!body.isEmpty()) {
            request.append("Content-Type: application/vnd.schemaregistry.v1+json\r\n");
        }
        if (!body.isEmpty() || !method.equals("GET") && !method.equals("DELETE")) {
            request.append("Content-Length: ").append(body.getBytes(StandardCharsets.UTF_8).length).append("\r\n");
        }
        return request.append("\r\n").append(body).toString();
    }

    private static String chunkedRequest(String method, String path, String authorization, String body) {
        StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + HOST
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n");
        if (authorization != null) {
            request.append("Authorization: ").append(authorization).append("\r\n");
        }
        request.append("\r\n");
        for (int at = 0; at < body.length(); at += 8192) {
            String chunk = body.substring(at, Math.min(body.length(), at + 8192));
            request.append(Integer.toHexString(chunk.length())).append("\r\n").append(chunk).append("\r\n");
        }
        return request.append("0\r\n\r\n").toString();
    }
}
