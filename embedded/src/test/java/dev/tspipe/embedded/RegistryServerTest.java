package dev.tspipe.embedded;

import dev.tspipe.embedded.registry.RegistryRoutes;
import dev.tspipe.embedded.registry.RegistryUsers;
import dev.tspipe.schemas.registry.SchemaRegistryCore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * The registry's HTTP server seen through raw sockets, so that the bytes of paths and headers are
 * exactly the ones written here: the write check of every changing route whatever the path's spelling,
 * no credential answered from Jetty's header cache, no method override, JSON errors with
 * {@code nosniff} for every answer (Jetty's own too). The registry journals nowhere
 * (no broker needed): the HTTP layer is the same.
 */
class RegistryServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String HOST = "127.0.0.1";
    private static final String WRITER = "Bearer writer-token-1";
    private static final String PASSWORD = "registry-secret-1";
    private static final String SCHEMA_BODY = "{\"schema\":\"\\\"string\\\"\"}";

    @TempDir
    static Path dir;

    /** Reads open, writes need {@link #WRITER}, as the demo's registry with tokens. */
    private static RegistryServer guarded;
    /** Every request needs alice's basic credentials, as {@code tspipe registry --users}. */
    private static RegistryServer basic;

    @BeforeAll
    static void start() throws Exception {
        guarded = RegistryServer.start(new RegistryRoutes(new SchemaRegistryCore(SchemaRegistryCore.Journal.NONE),
                Optional.empty(), Optional.of(WRITER::equals)), HOST, 0, null);
        String digest = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(PASSWORD.getBytes(StandardCharsets.UTF_8)));
        RegistryUsers users = RegistryUsers.load(Files.writeString(dir.resolve("users"), "alice:" + digest + "\n"));
        basic = RegistryServer.start(new RegistryRoutes(new SchemaRegistryCore(SchemaRegistryCore.Journal.NONE),
                Optional.of(users), Optional.empty()), HOST, 0, null);
        try (RawHttp http = new RawHttp(HOST, guarded.port())) {
            assertThat(http.exchange(request("POST", "/subjects/kept-value/versions", WRITER, SCHEMA_BODY)).status()).isEqualTo(200);
        }
    }

    @AfterAll
    static void stop() {
        guarded.close();
        basic.close();
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
        try (RawHttp http = new RawHttp(HOST, guarded.port())) {
            for (Write write : WRITES) {
                for (String path : spellings(write.path())) {
                    for (String authorization : new String[] {null, "Bearer wrong", WRITER.toLowerCase(Locale.ROOT)}) {
                        RawHttp.Answer answer = http.exchange(request(write.method(), path, authorization, write.body()));
                        String what = write.method() + " " + path + " with " + authorization + ": " + answer.status() + " " + answer.text();
                        assertThat(answer.status()).as(what).isIn(400, 401, 404);
                        int errorCode = errorCode(answer);
                        if (answer.status() == 401) {
                            assertThat(errorCode).as(what).isEqualTo(401);
                        }
                    }
                }
            }
            assertThat(http.exchange(request("POST", "/subjects/attack-value/versions", null, SCHEMA_BODY)).status()).isEqualTo(401);
            assertThat(http.exchange(request("PUT", "/config", null, "{\"compatibility\":\"NONE\"}")).status()).isEqualTo(401);
            assertThat(http.exchange(request("PUT", "/config/kept-value", null, "{\"compatibility\":\"NONE\"}")).status()).isEqualTo(401);
            assertThat(http.exchange(request("DELETE", "/subjects/kept-value", null, "")).status()).isEqualTo(401);

            assertThat(http.exchange(request("GET", "/subjects", null, "")).text()).isEqualTo("[\"kept-value\"]");
            assertThat(http.exchange(request("GET", "/subjects/kept-value/versions", null, "")).text()).isEqualTo("[1]");
            assertThat(http.exchange(request("GET", "/config", null, "")).text()).isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");
            assertThat(http.exchange(request("GET", "/config/kept-value", null, "")).text()).doesNotContain("NONE");
        }
    }

    @Test
    void theWriteCredentialStillChangesTheRegistry() throws Exception {
        try (RawHttp http = new RawHttp(HOST, guarded.port())) {
            assertThat(http.exchange(request("POST", "/subjects/written-value/versions/", WRITER, SCHEMA_BODY)).status()).isEqualTo(200);
            assertThat(http.exchange(request("PUT", "/config/written-value", WRITER, "{\"compatibility\":\"FULL\"}")).text())
                    .isEqualTo("{\"compatibility\":\"FULL\"}");
            assertThat(http.exchange(request("DELETE", "/subjects/written-value", WRITER, "")).text()).isEqualTo("[1]");
            // Reads and the POSTs that only read stay open.
            assertThat(http.exchange(request("POST", "/subjects/kept-value", null, SCHEMA_BODY)).status()).isEqualTo(200);
            assertThat(http.exchange(request("POST", "/compatibility/subjects/kept-value/versions/latest", null, SCHEMA_BODY))
                    .text()).isEqualTo("{\"is_compatible\":true}");
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Finding 2: no credential answered from Jetty's header cache

    @Test
    void aCaseVariantOfTheCredentialsIsRefusedOnTheConnectionThatCarriedTheRealOnes() throws Exception {
        String real = "Basic " + Base64.getEncoder().encodeToString(("alice:" + PASSWORD).getBytes(StandardCharsets.UTF_8));
        String variant = "Basic " + swapCase(real.substring("Basic ".length()));
        try (RawHttp http = new RawHttp(HOST, basic.port())) {
            assertThat(http.exchange(request("GET", "/subjects", real, "")).status()).isEqualTo(200);
            assertThat(http.exchange(request("GET", "/subjects", real, "")).status()).isEqualTo(200);
            RawHttp.Answer answer = http.exchange(request("GET", "/subjects", variant, ""));
            assertThat(http.connections()).as("one connection").isEqualTo(1);
            assertThat(answer.status()).as(answer.text()).isEqualTo(401);
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
        try (RawHttp http = new RawHttp(HOST, guarded.port())) {
            for (String header : new String[] {"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override", "x-http-method-override"}) {
                for (String method : new String[] {"POST", "GET", "PUT"}) {
                    String request = "POST".equals(method) || "PUT".equals(method)
                            ? "%s /subjects/kept-value HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n%s: DELETE\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                            .formatted(method, WRITER, header, SCHEMA_BODY.length(), SCHEMA_BODY)
                            : "%s /subjects/kept-value HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n%s: DELETE\r\n\r\n".formatted(method, WRITER, header);
                    RawHttp.Answer answer = http.exchange(request);
                    assertThat(answer.status()).as(method + " " + header + ": " + answer.text()).isEqualTo(400);
                    assertThat(errorCode(answer)).isEqualTo(400);
                    assertThat(answer.header("Content-Type")).startsWith(RegistryRoutes.CONTENT_TYPE);
                }
            }
            assertThat(http.exchange(request("GET", "/subjects", null, "")).text()).isEqualTo("[\"kept-value\"]");
        }
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
            RawHttp.Answer answer;
            try (RawHttp http = new RawHttp(HOST, guarded.port())) {
                answer = http.exchange(request);
            }
            String what = request.substring(0, Math.min(60, request.indexOf('\r'))) + " -> " + answer.status() + " " + answer.headers()
                    + " " + answer.text();
            assertThat(answer.header("X-Content-Type-Options")).as(what).isEqualTo("nosniff");
            assertThat(answer.header("Content-Type")).as(what).contains("json");
            JsonNode body = JSON.readTree(answer.text());
            if (answer.status() != 200) {
                assertThat(body.get("error_code").isInt()).as(what).isTrue();
                assertThat(body.get("message").isTextual()).as(what).isTrue();
                assertThat(body.size()).as(what).isEqualTo(2);
                assertThat(answer.text()).as(what).doesNotContain("jetty", "Exception", "<html", "<pre");
            }
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static int errorCode(RawHttp.Answer answer) throws IOException {
        JsonNode body = JSON.readTree(answer.text());
        assertThat(body.get("message").isTextual()).as(answer.text()).isTrue();
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
}
