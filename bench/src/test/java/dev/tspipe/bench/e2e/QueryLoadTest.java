package dev.tspipe.bench.e2e;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The query load sends every request it reports and reads every answer the query API can give:
 * bodies framed by Content-Length and chunked, error statuses, closed connections, two servers
 * in one step. The JDK's HTTP server stands in for Jetty: it answers with Content-Length for a
 * body of known length and chunked otherwise. Latencies are not compared: only that they exist.
 */
class QueryLoadTest {

    private static final int RATE = 200;
    private static final Duration ONE_SECOND = Duration.ofSeconds(1);
    private static final byte[] BODY = "{\"value\":21.5}".getBytes(StandardCharsets.US_ASCII);

    private final AtomicInteger fixed = new AtomicInteger();
    private final AtomicInteger chunked = new AtomicInteger();
    private final AtomicInteger failing = new AtomicInteger();
    private final AtomicInteger closing = new AtomicInteger();
    /** Client ports seen by the closing handler: one connection per request if the client honours Connection: close. */
    private final Set<Integer> closingPorts = ConcurrentHashMap.newKeySet();
    private final QueryLoad load = new QueryLoad();
    private HttpServer server;
    private HttpServer other;

    @BeforeEach
    void startServers() throws IOException {
        server = start();
        other = start();
    }

    @AfterEach
    void stopServers() {
        server.stop(0);
        other.stop(0);
    }

    @Test
    void everyRequestWithAContentLengthIsSentAndAnswered() {
        QueryLoad.Result result = load.run(List.of(uri(server, "/fixed")), RATE, ONE_SECOND);

        assertThat(result.requests()).isEqualTo(200);
        assertThat(result.errors()).isZero();
        assertThat(fixed).hasValue(200);
        assertThat(result.p50Ms()).isPositive();
        assertThat(result.maxMs()).isGreaterThanOrEqualTo(result.p99Ms()).isGreaterThanOrEqualTo(result.p50Ms());
    }

    @Test
    void everyChunkedAnswerIsReadToItsEnd() {
        QueryLoad.Result result = load.run(List.of(uri(server, "/chunked")), RATE, ONE_SECOND);

        assertThat(result.requests()).isEqualTo(200);
        assertThat(result.errors()).isZero();
        assertThat(chunked).hasValue(200);
        assertThat(result.p50Ms()).isPositive();
    }

    @Test
    void inItsOwnJvmTheLoadSendsEveryRequestAndReportsWhatCameBack(@TempDir Path dir) {
        try (QueryLoadProcess child = QueryLoadProcess.start(dir.resolve("query-load.log"), dir.resolve("uris.txt"))) {
            QueryLoad.Result ok = child.run(List.of(uri(server, "/fixed"), uri(other, "/chunked")), RATE, ONE_SECOND);
            assertThat(ok.requests()).isEqualTo(200);
            assertThat(ok.errors()).isZero();
            assertThat(fixed.get() + chunked.get()).isEqualTo(200);
            assertThat(ok.p50Ms()).isPositive();
            assertThat(ok.maxMs()).isGreaterThanOrEqualTo(ok.p99Ms()).isGreaterThanOrEqualTo(ok.p50Ms());

            QueryLoad.Result failed = child.run(List.of(uri(server, "/failing")), RATE, ONE_SECOND);
            assertThat(failed.requests()).isEqualTo(200);
            assertThat(failed.errors()).isEqualTo(200);
            assertThat(failing).hasValue(200);
        }
    }

    @Test
    void answersOtherThan200AreErrors() {
        QueryLoad.Result result = load.run(List.of(uri(server, "/failing")), RATE, ONE_SECOND);

        assertThat(result.requests()).isEqualTo(200);
        assertThat(result.errors()).isEqualTo(200);
        assertThat(failing).hasValue(200);
        assertThat(result.p50Ms()).isPositive();
    }

    @Test
    void aConnectionTheServerClosesIsReplaced() {
        QueryLoad.Result result = load.run(List.of(uri(server, "/closing")), RATE, ONE_SECOND);

        assertThat(result.errors()).isZero();
        assertThat(closing).hasValue(200);
        assertThat(closingPorts).hasSize(200);
    }

    @Test
    void oneStepCanAskTwoServers() {
        QueryLoad.Result result = load.run(List.of(uri(server, "/fixed"), uri(other, "/chunked")), RATE, ONE_SECOND);

        assertThat(result.requests()).isEqualTo(200);
        assertThat(result.errors()).isZero();
        assertThat(fixed.get() + chunked.get()).isEqualTo(200);
        assertThat(fixed).hasPositiveValue();
        assertThat(chunked).hasPositiveValue();
    }

    @Test
    void aStepWithAFloorSendsItAQuarterAsManyRequestsAndMeasuresThemApart() {
        QueryLoad.Result result = load.run(List.of(uri(server, "/fixed")), List.of(uri(other, "/chunked")), RATE, ONE_SECOND);

        assertThat(result.requests()).isEqualTo(200);
        assertThat(result.errors()).isZero();
        assertThat(fixed).hasValue(200);
        assertThat(result.floor().requests()).isEqualTo(200 / QueryLoad.FLOOR_EVERY);
        assertThat(result.floor().errors()).isZero();
        assertThat(chunked).hasValue(200 / QueryLoad.FLOOR_EVERY);
        assertThat(result.floor().maxMs()).isGreaterThanOrEqualTo(result.floor().p99Ms()).isPositive();
        assertThat(load.run(List.of(uri(server, "/fixed")), RATE, ONE_SECOND).floor()).isNull();
    }

    @Test
    void requestsToNoServerAreErrors() throws IOException {
        int port;
        try (ServerSocket closed = new ServerSocket(0)) {
            port = closed.getLocalPort();
        }

        QueryLoad.Result result = load.run(List.of(URI.create("http://127.0.0.1:" + port + "/fixed")), RATE, ONE_SECOND);

        assertThat(result.requests()).isEqualTo(200);
        assertThat(result.errors()).isEqualTo(200);
    }

    private HttpServer start() throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        s.createContext("/fixed", exchange -> answer(exchange, fixed, 200, BODY.length));
        // A length of 0 makes the JDK's server answer chunked.
        s.createContext("/chunked", exchange -> answer(exchange, chunked, 200, 0));
        s.createContext("/failing", exchange -> answer(exchange, failing, 500, BODY.length));
        s.createContext("/closing", exchange -> {
            closingPorts.add(exchange.getRemoteAddress().getPort());
            exchange.getResponseHeaders().set("Connection", "close");
            answer(exchange, closing, 200, BODY.length);
        });
        s.start();
        return s;
    }

    private static void answer(HttpExchange exchange, AtomicInteger count, int status, long length) throws IOException {
        count.incrementAndGet();
        exchange.getRequestBody().readAllBytes();
        exchange.sendResponseHeaders(status, length);
        try (OutputStream body = exchange.getResponseBody()) {
            body.write(BODY);
        }
    }

    private static URI uri(HttpServer s, String path) {
        return URI.create("http://127.0.0.1:" + s.getAddress().getPort() + path + "?limit=100");
    }
}
