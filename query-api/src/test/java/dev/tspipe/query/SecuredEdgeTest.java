package dev.tspipe.query;

import dev.tspipe.query.console.Console;
import dev.tspipe.query.http.BodyLimit;
import dev.tspipe.query.http.JsonErrorPages;
import dev.tspipe.query.http.MethodOverride;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tspipe.query.auth.Scope;
import dev.tspipe.query.write.HttpWrites;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP edge of a node with tokens, byte for byte ({@link RawHttp}): what Jetty and Javalin do before a route runs
 * (header caching, method overrides, path spellings, body limits) and the headers of every answer. A multi-tenant
 * server without a broker, as in {@link RouteScopesTest}: every check here comes before any store or producer.
 */
class SecuredEdgeTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    private static TokenedNode node;

    @BeforeAll
    static void start() throws IOException {
        node = TokenedNode.start(dir, "secured-edge-test");
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    /** {@code token} with the case of every letter swapped. */
    private static String caseSwapped(String token) {
        StringBuilder swapped = new StringBuilder();
        for (char c : token.toCharArray()) {
            swapped.append(Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c));
        }
        return swapped.toString();
    }

    @Test
    void aCaseVariantOfATokenIsRefusedOnTheConnectionThatCarriedTheToken() throws IOException {
        String token = node.token(Scope.ADMIN);
        try (RawHttp http = new RawHttp("127.0.0.1", node.port())) {
            RawHttp.Answer real = http.exchange(get("/metrics", token), false);
            assertThat(real.status()).isEqualTo(200);
            assertThat(real.keepsAlive()).as("the connection is kept for the variant").isTrue();
            RawHttp.Answer variant = http.exchange(get("/metrics", caseSwapped(token)), false);
            assertThat(variant.status()).as(variant.text()).isEqualTo(401);
        }
    }

    @Test
    void aMethodOverrideHeaderIsRefusedInTheRoutesErrorDialect() throws IOException {
        String token = node.token(Scope.ADMIN);
        try (RawHttp http = new RawHttp("127.0.0.1", node.port())) {
            for (String header : MethodOverride.HEADERS) {
                String headers = "Authorization: Bearer " + token + "\r\n" + header + ": POST\r\n";
                RawHttp.Answer tspipe = http.exchange(request("GET", "/api/v1/stats/partitions", headers, ""), false);
                assertThat(tspipe.status()).as(header + ": " + tspipe.text()).isEqualTo(400);
                assertThat(json(tspipe).path("error").asText()).isEqualTo("bad-parameter");
                assertThat(json(tspipe).path("message").asText()).startsWith(header + ": ").contains("does not accept");

                RawHttp.Answer prometheus = http.exchange(request("GET", "/prometheus/api/v1/query?query=up", headers, ""),
                        false);
                assertThat(prometheus.status()).as(header + ": " + prometheus.text()).isEqualTo(400);
                assertThat(json(prometheus).path("status").asText()).isEqualTo("error");
                assertThat(json(prometheus).path("errorType").asText()).isEqualTo("bad_data");
                assertThat(json(prometheus).path("error").asText()).startsWith(header + ": ");
            }
            String health = "X-HTTP-Method-Override: GET\r\n";
            assertThat(http.exchange(request("POST", "/health", health, ""), false).status())
                    .as("a POST that asks to be a GET").isEqualTo(400);
        }
    }

    @Test
    void everyAnswerSaysNosniff() throws IOException {
        String read = "Authorization: Bearer " + node.token(Scope.READ) + "\r\n";
        String script = "/api/v1/series/%3Cimg%20src=x%20onerror=alert(1)%3E/x";
        Map<String, byte[]> requests = new LinkedHashMap<>();
        requests.put("a 200", get("/metrics", node.token(Scope.ADMIN)));
        requests.put("a 401", get("/api/v1/stats/partitions", null));
        requests.put("a route's 404 that echoes the path", request("GET", script + "/latestx", read, ""));
        requests.put("a read of a series named as a script", request("GET", script + "/latest", read, ""));
        requests.put("the console page", get(Console.PAGE, null));
        requests.put("the console script", get("/console/console.js", null));
        requests.put("a 405", request("PUT", "/health", "", ""));
        requests.put("OPTIONS", request("OPTIONS", "/health", "", ""));
        requests.put("a 400 of a method override", request("GET", "/health", "X-HTTP-Method: PUT\r\n", ""));
        requests.put("Jetty's 400 for a header line without a colon", request("GET", "/health", "No colon here\r\n", ""));
        requests.put("Jetty's 400 for an HTTP version it does not speak",
                "GET /health HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        requests.put("Jetty's 431", request("GET", "/health", "X-Big: " + "x".repeat(JsonErrorPages.REQUEST_HEADER_BYTES)
                + "\r\n", ""));
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, byte[]> request : requests.entrySet()) {
            try (RawHttp http = new RawHttp("127.0.0.1", node.port())) {
                RawHttp.Answer answer = http.exchange(request.getValue(), false);
                if (!"nosniff".equals(answer.header("X-Content-Type-Options"))) {
                    missing.add(request.getKey() + " (" + answer.status() + ")");
                }
            }
        }
        try (RawHttp http = new RawHttp("127.0.0.1", node.port())) {
            RawHttp.Answer head = http.exchange(request("HEAD", "/health", "", ""), true);
            if (!"nosniff".equals(head.header("X-Content-Type-Options"))) {
                missing.add("HEAD (" + head.status() + ")");
            }
        }
        assertThat(missing).as("answers without X-Content-Type-Options: nosniff").isEmpty();
    }

    @Test
    void theBodyLimitCountsChunkedBodiesToo() throws IOException {
        String form = "Authorization: Bearer " + node.token(Scope.READ) + "\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\n";
        byte[] query = ("query=up&padding=" + "a".repeat(3 * 1024 * 1024)).getBytes(StandardCharsets.US_ASCII);
        for (boolean chunked : new boolean[] {true, false}) {
            RawHttp.Answer answer = post("/prometheus/api/v1/query", form, query, chunked);
            assertThat(answer.status()).as((chunked ? "chunked: " : "Content-Length: ") + answer.text()).isEqualTo(413);
            assertThat(json(answer).path("errorType").asText()).isEqualTo("bad_data");
            assertThat(json(answer).path("error").asText()).contains(Integer.toString(BodyLimit.QUERY_BYTES));
        }

        String write = "Authorization: Bearer " + node.token(Scope.WRITE) + "\r\n";
        byte[] tooMany = "a".repeat(BodyLimit.WRITE_BYTES + 1).getBytes(StandardCharsets.US_ASCII);
        byte[] notLineProtocol = "a".repeat(3 * 1024 * 1024).getBytes(StandardCharsets.US_ASCII);
        for (String path : List.of("/api/v2/write", "/api/v2/write/")) {
            for (boolean chunked : new boolean[] {true, false}) {
                String how = path + (chunked ? " chunked: " : " Content-Length: ");
                RawHttp.Answer over = post(path, write, tooMany, chunked);
                assertThat(over.status()).as(how + over.text()).isEqualTo(413);
                assertThat(over.text()).contains(Integer.toString(BodyLimit.WRITE_BYTES));
                // Over the query routes' limit, under the writes': read, and refused as the line protocol it is not.
                RawHttp.Answer under = post(path, write, notLineProtocol, chunked);
                assertThat(under.status()).as(how + under.text()).isEqualTo(400);
            }
        }
    }

    /** A POST of {@code body} with its Content-Length or in chunks of 64 KiB, on a connection of its own. */
    private static RawHttp.Answer post(String path, String headers, byte[] body, boolean chunked) throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("POST " + path + "?bucket=acme HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers
                + (chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + body.length + "\r\n") + "\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        if (chunked) {
            for (int start = 0; start < body.length; start += 64 * 1024) {
                int length = Math.min(64 * 1024, body.length - start);
                request.writeBytes((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                request.write(body, start, length);
                request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            request.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        } else {
            request.writeBytes(body);
        }
        try (RawHttp http = new RawHttp("127.0.0.1", node.port())) {
            return http.exchange(request.toByteArray(), false);
        }
    }

    /** Each route that needs a token, spelled in ways Jetty or Javalin might read as the route itself. */
    static Stream<Arguments> everyGuardedRouteSpelledOtherwise() throws IOException {
        List<Arguments> cases = new ArrayList<>();
        for (RouteScopesTest.Route route : RouteScopesTest.documentedRoutes()) {
            if (route.scope().equals("open")) {
                continue;
            }
            String path = route.path().replace("{device}", "dev-1").replace("{metric}", "temp").replace("{name}", "device");
            int inner = path.indexOf('/', 1);
            String head = inner < 0 ? path : path.substring(0, inner);
            String rest = inner < 0 ? "" : path.substring(inner + 1);
            int letter = path.indexOf('a');
            List<String> spellings = List.of(path + "/", path + "//", path + "/.", path + "/./", path + ";param",
                    path + ";param/", path + "%2F", head + "%2F" + rest, path + "/%2e", "/%2e" + path,
                    head + "/%2e%2e" + path, path.toUpperCase(Locale.ROOT),
                    head.toUpperCase(Locale.ROOT) + (inner < 0 ? "" : "/" + rest),
                    letter < 0 ? path + "/" : path.substring(0, letter) + "%61" + path.substring(letter + 1));
            spellings.forEach(spelled -> cases.add(Arguments.of(route.method(), spelled, route.path())));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} ({2})")
    @MethodSource("everyGuardedRouteSpelledOtherwise")
    void noSpellingOfAGuardedRouteIsServedWithoutAToken(String method, String spelled, String route) throws IOException {
        String headers = method.equals("POST") ? "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n" : "";
        try (RawHttp http = new RawHttp("127.0.0.1", node.port())) {
            RawHttp.Answer answer = http.exchange(request(method, spelled, headers, ""), method.equals("HEAD"));
            assertThat(answer.status()).as(answer.text()).isGreaterThanOrEqualTo(400).isLessThan(500);
        }
    }

    private static byte[] get(String path, String token) {
        return request("GET", path, token == null ? "" : "Authorization: Bearer " + token + "\r\n", "");
    }

    private static byte[] request(String method, String path, String headers, String body) {
        return (method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers
                + (body.isEmpty() ? "" : "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n")
                + "\r\n" + body).getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode json(RawHttp.Answer answer) throws IOException {
        return JSON.readTree(answer.body());
    }
}
