package dev.tspipe.embedded.registry;

import dev.tspipe.schemas.registry.CompatibilityLevel;
import dev.tspipe.schemas.registry.RegisteredSchema;
import dev.tspipe.schemas.registry.RegistryException;
import dev.tspipe.schemas.registry.SchemaRegistryCore;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The Confluent Schema Registry REST API (the part that serdes and operators use) over a
 * {@link SchemaRegistryCore}: routes, request parsing and Confluent's response and error shapes.
 *
 * <p>Errors are {@code {"error_code": N, "message": "..."}} with the status and code of
 * {@link RegistryException}. Request bodies that are not JSON are answered 400 with
 * {@code error_code} 400, and JSON of the wrong shape (not an object, a field of the wrong
 * type) 422 with {@code error_code} 422, as Confluent's REST layer (rest-utils' Jackson
 * exception mappers) answers them; a schema that is missing or does not parse is 42201.
 */
public final class RegistryRoutes {

    private static final Logger log = LoggerFactory.getLogger(RegistryRoutes.class);

    /** The content type of every response, as Confluent's registry sends it. */
    public static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private static final Set<String> ACCEPTED_REQUEST_TYPES = Set.of(
            CONTENT_TYPE, "application/vnd.schemaregistry+json", "application/json", "application/octet-stream");

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The largest request body read, in bytes (1 MiB): a schema fits many times over. */
    public static final int MAX_BODY_BYTES = 1 << 20;

    /** Sent with every answer so that a browser never takes an answer for HTML or script. */
    public static final String NOSNIFF_HEADER = "X-Content-Type-Options";
    public static final String NOSNIFF = "nosniff";

    private static final List<String> METHOD_OVERRIDE_HEADERS = List.of("X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override");

    /** Confluent's answer to a request without valid credentials: status and {@code error_code} 401. */
    static final int UNAUTHORIZED = 401;

    private final SchemaRegistryCore core;
    private final Optional<RegistryUsers> users;
    private final Optional<Predicate<String>> writers;

    public RegistryRoutes(SchemaRegistryCore core) {
        this(core, Optional.empty(), Optional.empty());
    }

    /**
     * @param users   when present, every request needs HTTP basic credentials of one of them
     * @param writers when present, a request that changes something (registers a schema, deletes a subject, sets a
     *                compatibility level) needs an {@code Authorization} header it accepts; reads stay open
     */
    public RegistryRoutes(SchemaRegistryCore core, Optional<RegistryUsers> users, Optional<Predicate<String>> writers) {
        this.core = core;
        this.users = users;
        this.writers = writers;
    }

    /** Adds the routes and the error mapping to a Javalin configuration. */
    public void addTo(JavalinConfig config) {
        users.ifPresent(known -> config.routes.before(ctx -> {
            if (!known.authenticates(ctx.header("Authorization"))) {
                ctx.header("WWW-Authenticate", "Basic realm=\"tspipe-schema-registry\"");
                throw new RegistryException(UNAUTHORIZED, UNAUTHORIZED, "Unauthorized");
            }
        }));
        config.routes.before(RegistryRoutes::refuseMethodOverride);
        config.routes.before(RegistryRoutes::refuseLargeDeclaredBody);
        config.routes.before(this::requireAcceptedContentType);

        config.routes.get("/subjects", ctx -> respond(ctx, core.subjects()));
        config.routes.post("/subjects/{subject}/versions", change(this::register));
        config.routes.post("/subjects/{subject}", this::lookup);
        config.routes.get("/subjects/{subject}/versions", ctx -> respond(ctx, core.versions(ctx.pathParam("subject"))));
        config.routes.get("/subjects/{subject}/versions/{version}",
                ctx -> respond(ctx, schemaJson(core.version(ctx.pathParam("subject"), ctx.pathParam("version")))));
        config.routes.delete("/subjects/{subject}", change(this::deleteSubject));
        config.routes.get("/schemas/ids/{id}", this::schemaById);

        config.routes.get("/config", ctx -> respond(ctx, levelJson("compatibilityLevel", core.globalCompatibility())));
        config.routes.put("/config", change(ctx -> respond(ctx, levelJson("compatibility",
                core.setCompatibility(null, compatibilityOf(ctx))))));
        config.routes.get("/config/{subject}", ctx -> respond(ctx, levelJson("compatibilityLevel",
                core.subjectCompatibility(ctx.pathParam("subject"), "true".equalsIgnoreCase(ctx.queryParam("defaultToGlobal"))))));
        config.routes.put("/config/{subject}", change(ctx -> respond(ctx, levelJson("compatibility",
                core.setCompatibility(ctx.pathParam("subject"), compatibilityOf(ctx))))));

        config.routes.post("/compatibility/subjects/{subject}/versions/{version}", this::testCompatibility);

        config.routes.exception(RegistryException.class, (e, ctx) -> error(ctx, e.httpStatus(), e.errorCode(), e.getMessage()));
        config.routes.exception(InvalidRequestException.class, (e, ctx) -> error(ctx, e.status, e.status, e.getMessage()));
        config.routes.exception(HttpResponseException.class, (e, ctx) ->
                error(ctx, e.getStatus(), e.getStatus(), "HTTP " + e.getStatus() + " " + reasonPhrase(e.getStatus())));
        config.routes.exception(Exception.class, (e, ctx) -> {
            log.error("Schema registry request {} {} failed", ctx.method(), ctx.path(), e);
            // The message of an unexpected exception shows internals; the log above has it, with the stack.
            error(ctx, 500, 50001, "Internal error in the schema registry; its log has the details");
        });
    }

    /**
     * The handler of a route that changes the registry, behind the write check. The check sits on the route, not in a
     * filter that matches paths, so every spelling of a path that reaches the handler ({@code /versions/},
     * {@code //versions}, ...) passes it; a lookup and a compatibility test (POSTs that change nothing) are reads.
     */
    private Handler change(Handler handler) {
        if (writers.isEmpty()) {
            return handler;
        }
        Predicate<String> allowed = writers.get();
        return ctx -> {
            if (!allowed.test(ctx.header("Authorization"))) {
                ctx.header("WWW-Authenticate", "Bearer realm=\"tspipe-schema-registry\"");
                throw new RegistryException(UNAUTHORIZED, UNAUTHORIZED,
                        "Unauthorized: changing schemas needs 'Authorization: Bearer <token>' of scope write");
            }
            handler.handle(ctx);
        };
    }

    /** Javalin would route a POST carrying one of these as the method it names, past what the method alone allows. */
    private static void refuseMethodOverride(Context ctx) {
        for (String header : METHOD_OVERRIDE_HEADERS) {
            if (ctx.header(header) != null) {
                throw new InvalidRequestException(400, "The header " + header + " is not accepted by this registry; "
                        + "send the request with its own HTTP method (DELETE, PUT, ...) instead");
            }
        }
    }

    /** A declared length over the bound is refused before a byte is read; {@link #body} bounds the bytes it reads. */
    private static void refuseLargeDeclaredBody(Context ctx) {
        if (ctx.req().getContentLengthLong() > MAX_BODY_BYTES) {
            throw tooLarge();
        }
    }

    private static InvalidRequestException tooLarge() {
        return new InvalidRequestException(413, "The request body is larger than " + MAX_BODY_BYTES
                + " bytes, the most this registry reads; a schema must fit in it");
    }

    private void register(Context ctx) {
        JsonNode body = body(ctx);
        requireAvro(body);
        JsonNode references = body.get("references");
        if (references != null && !references.isNull() && !(references.isArray() && references.isEmpty())) {
            throw RegistryException.invalidSchema("schema references are not supported by this registry");
        }
        RegisteredSchema registered = core.register(ctx.pathParam("subject"), schemaOf(body));
        ObjectNode response = JSON.createObjectNode();
        response.put("id", registered.id());
        respond(ctx, response);
    }

    private void lookup(Context ctx) {
        JsonNode body = body(ctx);
        requireAvro(body);
        respond(ctx, schemaJson(core.lookup(ctx.pathParam("subject"), schemaOf(body))));
    }

    private void deleteSubject(Context ctx) {
        if ("true".equalsIgnoreCase(ctx.queryParam("permanent"))) {
            throw new InvalidRequestException(422, "Permanent (hard) deletes are not supported by this registry; "
                    + "DELETE without ?permanent=true soft-deletes the subject");
        }
        respond(ctx, core.deleteSubject(ctx.pathParam("subject")));
    }

    private void schemaById(Context ctx) {
        int id;
        try {
            id = Integer.parseInt(ctx.pathParam("id"));
        } catch (NumberFormatException e) {
            throw new RegistryException(404, RegistryException.SCHEMA_NOT_FOUND, "Schema " + ctx.pathParam("id") + " not found");
        }
        ObjectNode response = JSON.createObjectNode();
        response.put("schema", core.schemaById(id));
        respond(ctx, response);
    }

    private void testCompatibility(Context ctx) {
        JsonNode body = body(ctx);
        requireAvro(body);
        List<String> problems = core.testCompatibility(ctx.pathParam("subject"), ctx.pathParam("version"), schemaOf(body));
        ObjectNode response = JSON.createObjectNode();
        response.put("is_compatible", problems.isEmpty());
        if ("true".equalsIgnoreCase(ctx.queryParam("verbose"))) {
            problems.forEach(response.putArray("messages")::add);
        }
        respond(ctx, response);
    }

    private void requireAcceptedContentType(Context ctx) {
        String contentType = ctx.contentType();
        if (contentType == null || contentType.isBlank()) {
            return;
        }
        String mediaType = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (!ACCEPTED_REQUEST_TYPES.contains(mediaType)) {
            throw new HttpResponseException(415, "Unsupported Media Type");
        }
    }

    private static CompatibilityLevel compatibilityOf(Context ctx) {
        JsonNode level = body(ctx).get("compatibility");
        return CompatibilityLevel.parse(level == null || level.isNull() ? null : level.asText());
    }

    private static void requireAvro(JsonNode body) {
        JsonNode type = body.get("schemaType");
        if (type != null && !type.isNull() && !"AVRO".equals(type.asText())) {
            throw RegistryException.invalidSchema("schemaType " + type.asText() + " is not supported; this registry supports only AVRO");
        }
    }

    private static String schemaOf(JsonNode body) {
        JsonNode schema = body.get("schema");
        if (schema == null || schema.isNull()) {
            throw RegistryException.invalidSchema("the request has no \"schema\"");
        }
        if (!schema.isTextual()) {
            throw RegistryException.invalidSchema("\"schema\" must be a string holding the schema's JSON");
        }
        return schema.asText();
    }

    private static JsonNode body(Context ctx) {
        JsonNode body;
        try {
            body = JSON.readTree(boundedBody(ctx));
        } catch (JsonProcessingException e) {
            throw new InvalidRequestException(400, "The request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the request body", e);
        }
        if (body == null || body.isMissingNode()) {
            throw new InvalidRequestException(422, "The request needs a JSON object body");
        }
        if (!body.isObject()) {
            throw new InvalidRequestException(422, "The request body must be a JSON object, not " + body.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        return body;
    }

    /** Counts the bytes read, not a declared length, so a chunked body (no Content-Length) is bounded too. */
    private static byte[] boundedBody(Context ctx) throws IOException {
        byte[] bytes = ctx.req().getInputStream().readNBytes(MAX_BODY_BYTES + 1);
        if (bytes.length > MAX_BODY_BYTES) {
            throw tooLarge();
        }
        return bytes;
    }

    private static ObjectNode schemaJson(RegisteredSchema schema) {
        ObjectNode node = JSON.createObjectNode();
        node.put("subject", schema.subject());
        node.put("version", schema.version());
        node.put("id", schema.id());
        node.put("schema", schema.schema());
        return node;
    }

    private static ObjectNode levelJson(String field, CompatibilityLevel level) {
        ObjectNode node = JSON.createObjectNode();
        node.put(field, level.name());
        return node;
    }

    private static void respond(Context ctx, Object body) {
        try {
            ctx.status(200).contentType(CONTENT_TYPE).header(NOSNIFF_HEADER, NOSNIFF).result(JSON.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Could not write a response", e);
        }
    }

    private static void error(Context ctx, int status, int errorCode, String message) {
        ctx.status(status).contentType(CONTENT_TYPE).header(NOSNIFF_HEADER, NOSNIFF).result(errorJson(errorCode, message));
    }

    /** Confluent's error body, {@code {"error_code": N, "message": "..."}}; {@link RegistryErrorPage} writes Jetty's errors in it. */
    static String errorJson(int errorCode, String message) {
        ObjectNode body = JSON.createObjectNode();
        body.put("error_code", errorCode);
        body.put("message", message);
        return body.toString();
    }

    private static String reasonPhrase(int status) {
        return HttpStatus.forStatus(status).getMessage();
    }

    /** A request this registry cannot serve: a body that is not JSON (400), not of the expected shape (422), an unsupported option (422). */
    private static final class InvalidRequestException extends RuntimeException {
        private final int status;

        InvalidRequestException(int status, String message) {
            super(message);
            this.status = status;
        }
    }
}
