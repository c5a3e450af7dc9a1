package dev.tspipe.schemas.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tspipe.schemas.ErrorText;
import org.apache.avro.Schema;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import javax.net.ssl.SSLContext;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A client of the Confluent Schema Registry REST API (also served by Apicurio's
 * Confluent-compatible API, Karapace and tspipe's embedded registry).
 *
 * <p>Several base URLs may be given; a request goes to the first that answers, and moves on
 * to the next when a URL cannot be reached or answers 5xx. A 4xx answer is the registry's
 * verdict and is returned as a {@link RegistryException} with Confluent's error code.
 */
public final class RestSchemaRegistryClient implements SchemaRegistryClient {

    public static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<URI> baseUrls;
    private final Optional<String> authorization;
    private final HttpClient http;

    /**
     * @param baseUrls      registry URLs, tried in turn; user info in a URL is not sent (see {@code userInfo})
     * @param userInfo      {@code user:password} for HTTP basic authentication, or empty
     */
    public RestSchemaRegistryClient(List<URI> baseUrls, Optional<String> userInfo) {
        this(baseUrls, userInfo.map(RestSchemaRegistryClient::basic), Optional.empty());
    }

    /**
     * @param baseUrls      registry URLs, tried in turn; user info in a URL is not sent
     * @param authorization the {@code Authorization} header of every request ({@link #basic}, or {@code Bearer <token>}), or empty
     * @param tls           the TLS context of HTTPS registries (trust store, client key); empty: the JVM's defaults
     */
    public RestSchemaRegistryClient(List<URI> baseUrls, Optional<String> authorization, Optional<SSLContext> tls) {
        if (baseUrls.isEmpty()) {
            throw new IllegalArgumentException("at least one schema registry URL is needed");
        }
        this.baseUrls = baseUrls.stream().map(RestSchemaRegistryClient::withoutUserInfo).toList();
        this.authorization = authorization;
        HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT);
        tls.ifPresent(http::sslContext);
        this.http = http.build();
    }

    /** The {@code Authorization} header of HTTP basic authentication with {@code user:password}. */
    public static String basic(String userInfo) {
        return "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public int register(String subject, Schema schema) {
        return send("POST", "/subjects/" + encode(subject) + "/versions", schemaBody(schema)).path("id").asInt();
    }

    @Override
    public int lookupId(String subject, Schema schema) {
        return send("POST", "/subjects/" + encode(subject), schemaBody(schema)).path("id").asInt();
    }

    @Override
    public Schema schemaById(int id) {
        String schema = send("GET", "/schemas/ids/" + id, null).path("schema").asText();
        return new Schema.Parser().parse(schema);
    }

    @Override
    public RegisteredSchema latest(String subject) {
        JsonNode answer = send("GET", "/subjects/" + encode(subject) + "/versions/latest", null);
        return new RegisteredSchema(answer.path("subject").asText(subject), answer.path("version").asInt(),
                answer.path("id").asInt(), answer.path("schema").asText());
    }

    @Override
    public String location() {
        return String.join(",", baseUrls.stream().map(URI::toString).toList());
    }

    private static String schemaBody(Schema schema) {
        ObjectNode body = JSON.createObjectNode();
        body.put("schema", schema.toString());
        return body.toString();
    }

    private JsonNode send(String method, String path, String body) {
        List<String> failures = new ArrayList<>();
        IOException lastCause = null;
        for (URI base : baseUrls) {
            URI uri = URI.create(stripTrailingSlash(base.toString()) + path);
            HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                    .timeout(REQUEST_TIMEOUT)
                    .header("Accept", CONTENT_TYPE)
                    .method(method, body == null
                            ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            if (body != null) {
                request.header("Content-Type", CONTENT_TYPE);
            }
            authorization.ifPresent(value -> request.header("Authorization", value));
            HttpResponse<String> response;
            try {
                response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                lastCause = e;
                failures.add(base + " (" + describe(e) + ")");
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RegistryUnavailableException("Interrupted while calling the schema registry at " + base, e);
            }
            if (response.statusCode() >= 500) {
                failures.add(base + " (HTTP " + response.statusCode() + ": " + response.body() + ")");
                continue;
            }
            JsonNode answer = parse(response.body());
            if (response.statusCode() >= 400) {
                int errorCode = answer.path("error_code").asInt(response.statusCode());
                String message = answer.path("message").asText(response.body());
                throw new RegistryException(response.statusCode(), errorCode, message + " (registry " + base + ")");
            }
            return answer;
        }
        throw new RegistryUnavailableException("Schema registry unreachable: " + String.join(", ", failures), lastCause);
    }

    private static JsonNode parse(String body) {
        try {
            return JSON.readTree(body == null || body.isEmpty() ? "{}" : body);
        } catch (IOException e) {
            return JSON.createObjectNode().put("message", body);
        }
    }

    /** An I/O failure in words (the registry's client error names no Java class): what failed, then the detail, if any. */
    private static String describe(IOException e) {
        String what;
        if (e instanceof java.net.ConnectException) {
            what = "connection refused";
        } else if (e instanceof java.net.http.HttpTimeoutException) {
            what = "timed out";
        } else if (e instanceof java.net.UnknownHostException) {
            what = "unknown host";
        } else if (e instanceof javax.net.ssl.SSLException) {
            what = "TLS failed";
        } else {
            what = "I/O error";
        }
        String detail = ErrorText.describe(e, "");
        return detail.isEmpty() || detail.equalsIgnoreCase(what) ? what : what + ": " + detail;
    }

    private static String encode(String subject) {
        return URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String stripTrailingSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    private static URI withoutUserInfo(URI uri) {
        Objects.requireNonNull(uri, "url");
        if (uri.getUserInfo() == null) {
            return uri;
        }
        return URI.create(uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                + (uri.getRawPath() == null ? "" : uri.getRawPath()));
    }
}
