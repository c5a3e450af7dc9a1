package dev.tspipe.bench.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Reads series back through tspipe's HTTP query API (docs/query-api.md): every raw row and every
 * bucket of a step, page after page with {@code nextCursor}, oldest first. A 503 (rebalancing,
 * restoring) or an unreachable instance is retried until {@code patience} has passed.
 */
public final class QueryClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PAGE = 10_000;

    /** No instance answered a page within the patience: the series cannot be read now (503 or unreachable throughout). */
    public static final class UnansweredException extends RuntimeException {
        UnansweredException(String message) {
            super(message);
        }
    }

    /** One answer: status, whether it came from a standby ({@code X-Tspipe-Stale}), and the body. */
    public record Answer(int status, boolean stale, String body) {
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Duration patience;

    public QueryClient(Duration patience) {
        this.patience = patience;
    }

    /** The raw rows of a series, timestamp to value; empty if the query API does not know the series. */
    public NavigableMap<Long, Double> rows(String baseUrl, Series series) {
        NavigableMap<Long, Double> rows = new TreeMap<>();
        String cursor = null;
        do {
            JsonNode page = page(baseUrl + path(series, "readings") + "?order=asc&limit=" + PAGE + cursorParameter(cursor));
            if (page == null) {
                return rows;
            }
            for (JsonNode row : page.path("readings")) {
                rows.put(row.path("timestamp").asLong(), row.path("value").asDouble());
            }
            cursor = page.path("nextCursor").isTextual() ? page.path("nextCursor").asText() : null;
        } while (cursor != null);
        return rows;
    }

    /** The buckets of one step of a series, by start; empty if the query API does not know the series. */
    public NavigableMap<Long, Oracle.Bucket> buckets(String baseUrl, Series series, Oracle.Step step) {
        NavigableMap<Long, Oracle.Bucket> buckets = new TreeMap<>();
        String cursor = null;
        do {
            JsonNode page = page(baseUrl + path(series, "rollups") + "?step=" + step.label + "&order=asc&limit=" + PAGE
                    + cursorParameter(cursor));
            if (page == null) {
                return buckets;
            }
            for (JsonNode b : page.path("buckets")) {
                long start = b.path("start").asLong();
                buckets.put(start, new Oracle.Bucket(start, b.path("count").asLong(), b.path("sum").asDouble(),
                        b.path("min").asDouble(), b.path("max").asDouble(), b.path("last").asDouble(), b.path("lastTimestamp").asLong()));
            }
            cursor = page.path("nextCursor").isTextual() ? page.path("nextCursor").asText() : null;
        } while (cursor != null);
        return buckets;
    }

    /** One request, no retry; status 0 when the instance could not be reached. */
    public Answer get(String url, Duration timeout) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(timeout).build(),
                    HttpResponse.BodyHandlers.ofString());
            boolean stale = response.headers().firstValue("X-Tspipe-Stale").map("true"::equalsIgnoreCase).orElse(false);
            return new Answer(response.statusCode(), stale, response.body());
        } catch (IOException e) {
            return new Answer(0, false, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    public static String path(Series series, String endpoint) {
        return "/api/v1/series/" + URLEncoder.encode(series.device(), StandardCharsets.UTF_8) + "/"
                + URLEncoder.encode(series.metric(), StandardCharsets.UTF_8) + "/" + endpoint;
    }

    /**
     * A page, or null for 404 (the series is unknown); retries 503 and unreachable instances.
     *
     * @throws UnansweredException if they last longer than the patience
     */
    private JsonNode page(String url) {
        long deadline = System.nanoTime() + patience.toNanos();
        Answer last;
        do {
            last = get(url, Duration.ofSeconds(30));
            if (last.status() == 200) {
                try {
                    return JSON.readTree(last.body());
                } catch (IOException e) {
                    throw new IllegalStateException("GET " + url + ": not JSON: " + last.body(), e);
                }
            }
            if (last.status() == 404) {
                return null;
            }
            if (last.status() != 503 && last.status() != 0) {
                throw new IllegalStateException("GET " + url + ": " + last.status() + " " + last.body());
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        } while (System.nanoTime() < deadline);
        throw new UnansweredException("GET " + url + ": no answer within " + patience.toSeconds() + " s; last: "
                + last.status() + " " + last.body());
    }

    private static String cursorParameter(String cursor) {
        return cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8);
    }
}
