package dev.tspipe.query.routing;

import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Forwards a GET to another instance of the application and hands back its answer unchanged.
 * Forwarded requests carry {@value #FORWARDED_HEADER}{@code : 1}; an instance answers them from
 * its local stores only, so a request makes at most one hop.
 */
public final class Forwarder {

    public static final String FORWARDED_HEADER = "X-Tspipe-Forwarded";

    private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);
    /** Headers that describe one connection, not the answer. */
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "content-length", "transfer-encoding", "keep-alive",
            "date", "server", ":status");

    private final HttpClient client;
    private final Duration requestTimeout;

    public Forwarder(Duration connectTimeout, Duration requestTimeout) {
        this.client = HttpClient.newBuilder().connectTimeout(connectTimeout).version(HttpClient.Version.HTTP_1_1).build();
        this.requestTimeout = requestTimeout;
    }

    /** An answer of another instance. */
    public record Answer(int status, Map<String, List<String>> headers, byte[] body) {
    }

    /**
     * GETs {@code pathAndQuery} from {@code host}; empty when the host cannot be reached in time
     * (the caller then tries the next target).
     */
    public Optional<Answer> get(HostInfo host, String pathAndQuery) {
        URI uri = URI.create("http://" + host.host() + ":" + host.port() + pathAndQuery);
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(requestTimeout).header(FORWARDED_HEADER, "1").GET().build();
        try {
            HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            Map<String, List<String>> headers = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            response.headers().map().forEach((name, values) -> {
                if (!HOP_BY_HOP.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                    headers.put(name, values);
                }
            });
            return Optional.of(new Answer(response.statusCode(), headers, response.body()));
        } catch (IOException e) {
            LOG.info("Instance {} did not answer {}: {}", host, pathAndQuery, e.toString());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
