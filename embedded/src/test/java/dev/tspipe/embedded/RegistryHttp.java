package dev.tspipe.embedded;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A plain HTTP client for the registry's REST API, as a test sees it: status, content type, JSON body. */
final class RegistryHttp {

    static final String V1_JSON = "application/vnd.schemaregistry.v1+json";

    record Response(int status, String contentType, String text) {
        JsonNode json() {
            try {
                return JSON.readTree(text);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + text, e);
            }
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String baseUrl;

    RegistryHttp(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    static String schemaBody(String schema) {
        ObjectNode body = JSON.createObjectNode();
        body.put("schema", schema);
        return body.toString();
    }

    Response get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    Response delete(String path) {
        return send(HttpRequest.newBuilder(uri(path)).DELETE().build());
    }

    Response post(String path, String body) {
        return post(path, body, V1_JSON);
    }

    Response post(String path, String body, String contentType) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return send(request.build());
    }

    Response put(String path, String body) {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", V1_JSON)
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /** {@code POST /subjects/{subject}/versions}; returns the id, failing unless the answer is 200. */
    int register(String subject, String schema) {
        Response response = post("/subjects/" + subject + "/versions", schemaBody(schema));
        if (response.status() != 200) {
            throw new AssertionError("register " + subject + " answered " + response.status() + " " + response.text());
        }
        return response.json().get("id").asInt();
    }

    private URI uri(String path) {
        return URI.create(baseUrl + path);
    }

    private Response send(HttpRequest request) {
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.headers().firstValue("Content-Type").orElse(null), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
