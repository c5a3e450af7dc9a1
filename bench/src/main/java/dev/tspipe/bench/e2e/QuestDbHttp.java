package dev.tspipe.bench.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** SQL over QuestDB's HTTP endpoint {@code /exec}, on the loopback port of a {@link QuestDbMain}. */
final class QuestDbHttp {

    private final HttpClient client = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private final int port;

    QuestDbHttp(int port) {
        this.port = port;
    }

    /** QuestDB answered the statement with an error. */
    static final class Refused extends IllegalStateException {
        Refused(String message) {
            super(message);
        }
    }

    /** Runs one statement; its JSON answer. An answer with an {@code error} is thrown as {@link Refused}, with the statement. */
    JsonNode exec(String sql) {
        URI uri = URI.create("http://127.0.0.1:" + port + "/exec?query=" + URLEncoder.encode(sql, StandardCharsets.UTF_8));
        try {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            JsonNode answer = json.readTree(response.body());
            if (answer.has("error")) {
                throw new Refused("QuestDB refused `" + sql + "` (HTTP " + response.statusCode() + "): "
                        + answer.path("error").asText());
            }
            return answer;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run `" + sql + "` on QuestDB at port " + port, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The first column of the first row of {@code sql}'s answer. */
    JsonNode single(String sql) {
        return exec(sql).path("dataset").path(0).path(0);
    }
}
