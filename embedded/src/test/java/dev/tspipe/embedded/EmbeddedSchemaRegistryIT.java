package dev.tspipe.embedded;

import dev.tspipe.embedded.RegistryHttp.Response;
import dev.tspipe.embedded.junit.EmbeddedKafkaExtension;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.tspipe.embedded.RegistryHttp.schemaBody;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registry over real HTTP on a real broker. Every test gets a fresh registry process
 * state replayed from the class's {@code _schemas} topic, and uses its own subjects.
 */
class EmbeddedSchemaRegistryIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final String V1 = """
            {"type":"record","name":"Reading","namespace":"it","fields":[{"name":"deviceId","type":"string"}]}""";
    /** V1 with other whitespace and key order: the same schema. */
    private static final String V1_REFORMATTED = """
            {
              "namespace": "it",
              "fields": [ { "type": "string", "name": "deviceId" } ],
              "name": "Reading",
              "type": "record"
            }""";
    /** V1 plus a field with a default: BACKWARD compatible. */
    private static final String V2_WITH_DEFAULT = """
            {"type":"record","name":"Reading","namespace":"it","fields":[{"name":"deviceId","type":"string"},\
            {"name":"value","type":"double","default":0.0}]}""";
    /** V1 plus a field without a default: not BACKWARD compatible. */
    private static final String V2_WITHOUT_DEFAULT = """
            {"type":"record","name":"Reading","namespace":"it","fields":[{"name":"deviceId","type":"string"},\
            {"name":"value","type":"double"}]}""";
    private static final String OTHER = """
            {"type":"record","name":"Other","namespace":"it","fields":[{"name":"x","type":"int"}]}""";

    private EmbeddedSchemaRegistry registry;
    private RegistryHttp http;

    @BeforeEach
    void startRegistry() {
        startRegistryAgain();
    }

    @AfterEach
    void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    private void startRegistryAgain() {
        if (registry != null) {
            registry.close();
        }
        registry = EmbeddedSchemaRegistry.builder().bootstrapServers(KAFKA.broker().bootstrapServers()).port(0).start();
        http = new RegistryHttp(registry.url());
    }

    @Test
    void servesOnLoopbackAtItsUrl() {
        assertThat(registry.port()).isPositive();
        assertThat(registry.url()).isEqualTo("http://127.0.0.1:" + registry.port());
    }

    @Test
    void registersFetchesByIdAndListsSubjectsAndVersions() {
        Response registered = http.post("/subjects/basic-value/versions", schemaBody(V1));
        assertThat(registered.status()).isEqualTo(200);
        assertThat(registered.contentType()).isEqualTo(RegistryHttp.V1_JSON);
        int id = registered.json().get("id").asInt();
        assertThat(registered.json().size()).isEqualTo(1);

        Response byId = http.get("/schemas/ids/" + id);
        assertThat(byId.status()).isEqualTo(200);
        assertThat(byId.contentType()).isEqualTo(RegistryHttp.V1_JSON);
        assertThat(byId.json().get("schema").asText()).isEqualTo(V1);

        assertThat(http.get("/subjects").json()).extracting(n -> n.asText()).contains("basic-value");
        assertThat(http.get("/subjects/basic-value/versions").text()).isEqualTo("[1]");

        for (String version : List.of("1", "latest")) {
            Response fetched = http.get("/subjects/basic-value/versions/" + version);
            assertThat(fetched.status()).isEqualTo(200);
            assertThat(fetched.json().get("subject").asText()).isEqualTo("basic-value");
            assertThat(fetched.json().get("version").asInt()).isEqualTo(1);
            assertThat(fetched.json().get("id").asInt()).isEqualTo(id);
            assertThat(fetched.json().get("schema").asText()).isEqualTo(V1);
        }
    }

    @Test
    void lookupFindsTheVersionOfARegisteredSchemaInAnyFormatting() {
        int id = http.register("lookup-value", V1);

        Response found = http.post("/subjects/lookup-value", schemaBody(V1_REFORMATTED));

        assertThat(found.status()).isEqualTo(200);
        assertThat(found.json().get("subject").asText()).isEqualTo("lookup-value");
        assertThat(found.json().get("version").asInt()).isEqualTo(1);
        assertThat(found.json().get("id").asInt()).isEqualTo(id);
        assertThat(found.json().get("schema").asText()).isEqualTo(V1);

        assertError(http.post("/subjects/lookup-value", schemaBody(OTHER)), 404, 40403);
        assertError(http.post("/subjects/lookup-missing-value", schemaBody(V1)), 404, 40401);
    }

    @Test
    void schemasDifferingOnlyInFormattingGetTheSameIdAndVersion() {
        int first = http.register("format-value", V1);
        int second = http.register("format-value", V1_REFORMATTED);

        assertThat(second).isEqualTo(first);
        assertThat(http.get("/subjects/format-value/versions").text()).isEqualTo("[1]");
    }

    @Test
    void theSameSchemaUnderTwoSubjectsHasOneId() {
        int a = http.register("shared-a-value", OTHER);
        int b = http.register("shared-b-value", OTHER);

        assertThat(b).isEqualTo(a);
    }

    @Test
    void aBackwardCompatibleEvolutionIsVersionTwoAndAnIncompatibleOneIs409() {
        int v1 = http.register("evolve-value", V1);
        int v2 = http.register("evolve-value", V2_WITH_DEFAULT);
        assertThat(v2).isNotEqualTo(v1);
        assertThat(http.get("/subjects/evolve-value/versions").text()).isEqualTo("[1,2]");
        assertThat(http.get("/subjects/evolve-value/versions/latest").json().get("id").asInt()).isEqualTo(v2);

        Response rejected = http.post("/subjects/evolve-value/versions", schemaBody(V2_WITHOUT_DEFAULT.replace("\"value\"", "\"unit\"")));
        assertError(rejected, 409, 409);
        assertThat(rejected.json().get("message").asText()).contains("incompatible", "unit");
        assertThat(http.get("/subjects/evolve-value/versions").text()).isEqualTo("[1,2]");
    }

    @Test
    void compatibilityCheckAnswersWithoutRegistering() {
        http.register("compat-value", V1);

        Response compatible = http.post("/compatibility/subjects/compat-value/versions/latest", schemaBody(V2_WITH_DEFAULT));
        assertThat(compatible.status()).isEqualTo(200);
        assertThat(compatible.text()).isEqualTo("{\"is_compatible\":true}");

        Response incompatible = http.post("/compatibility/subjects/compat-value/versions/1", schemaBody(V2_WITHOUT_DEFAULT));
        assertThat(incompatible.status()).isEqualTo(200);
        assertThat(incompatible.text()).isEqualTo("{\"is_compatible\":false}");

        Response verbose = http.post("/compatibility/subjects/compat-value/versions/latest?verbose=true", schemaBody(V2_WITHOUT_DEFAULT));
        assertThat(verbose.json().get("is_compatible").asBoolean()).isFalse();
        assertThat(verbose.json().get("messages")).isNotEmpty();
        assertThat(verbose.json().get("messages").get(0).asText()).contains("READER_FIELD_MISSING_DEFAULT_VALUE", "value");

        assertThat(http.get("/subjects/compat-value/versions").text()).isEqualTo("[1]");
        assertError(http.post("/compatibility/subjects/compat-value/versions/7", schemaBody(V1)), 404, 40402);
        assertError(http.post("/compatibility/subjects/compat-value/versions/x", schemaBody(V1)), 422, 42202);
    }

    @Test
    void globalAndSubjectConfig() {
        Response global = http.get("/config");
        assertThat(global.status()).isEqualTo(200);
        assertThat(global.contentType()).isEqualTo(RegistryHttp.V1_JSON);
        assertThat(global.text()).isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");
        try {
            Response set = http.put("/config", "{\"compatibility\":\"FULL\"}");
            assertThat(set.status()).isEqualTo(200);
            assertThat(set.text()).isEqualTo("{\"compatibility\":\"FULL\"}");
            assertThat(http.get("/config").text()).isEqualTo("{\"compatibilityLevel\":\"FULL\"}");
        } finally {
            http.put("/config", "{\"compatibility\":\"BACKWARD\"}");
        }

        assertError(http.get("/config/config-value"), 404, 40408);
        assertThat(http.get("/config/config-value?defaultToGlobal=true").text()).isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");
        assertThat(http.put("/config/config-value", "{\"compatibility\":\"NONE\"}").text()).isEqualTo("{\"compatibility\":\"NONE\"}");
        assertThat(http.get("/config/config-value").text()).isEqualTo("{\"compatibilityLevel\":\"NONE\"}");

        // NONE lets the incompatible change in.
        http.register("config-value", V1);
        assertThat(http.post("/subjects/config-value/versions", schemaBody(V2_WITHOUT_DEFAULT)).status()).isEqualTo(200);

        assertError(http.put("/config", "{\"compatibility\":\"SIDEWAYS\"}"), 422, 42203);
        assertError(http.put("/config/config-value", "{}"), 422, 42203);
        assertThat(http.get("/config").text()).isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");
    }

    @Test
    void aSoftDeletedSubjectDisappearsButItsIdsStillResolve() {
        int v1 = http.register("deleted-value", V1);
        int v2 = http.register("deleted-value", V2_WITH_DEFAULT);

        Response deleted = http.delete("/subjects/deleted-value");
        assertThat(deleted.status()).isEqualTo(200);
        assertThat(deleted.text()).isEqualTo("[1,2]");

        assertThat(http.get("/subjects").json()).extracting(n -> n.asText()).doesNotContain("deleted-value");
        assertError(http.get("/subjects/deleted-value/versions"), 404, 40401);
        assertError(http.get("/subjects/deleted-value/versions/1"), 404, 40401);
        assertError(http.delete("/subjects/deleted-value"), 404, 40401);
        assertThat(http.get("/schemas/ids/" + v1).json().get("schema").asText()).isEqualTo(V1);
        assertThat(http.get("/schemas/ids/" + v2).status()).isEqualTo(200);
    }

    @Test
    void errorsHaveConfluentsStatusAndErrorCode() {
        http.register("errors-value", V1);

        assertError(http.get("/subjects/no-such-subject/versions"), 404, 40401);
        assertError(http.get("/subjects/no-such-subject/versions/1"), 404, 40401);
        assertError(http.get("/subjects/errors-value/versions/99"), 404, 40402);
        assertError(http.get("/schemas/ids/999999"), 404, 40403);
        assertError(http.get("/schemas/ids/abc"), 404, 40403);
        assertError(http.get("/config/errors-value"), 404, 40408);
        assertError(http.get("/subjects/errors-value/versions/abc"), 422, 42202);
        assertError(http.get("/subjects/errors-value/versions/0"), 422, 42202);

        Response invalid = http.post("/subjects/errors-value/versions", schemaBody("{\"type\":\"record\",\"name\":\"R\"}"));
        assertError(invalid, 422, 42201);
        assertError(http.post("/subjects/errors-value/versions", schemaBody("not json")), 422, 42201);
        assertError(http.post("/subjects/errors-value/versions", "{}"), 422, 42201);
        assertError(http.post("/subjects/errors-value/versions", "{\"schema\":42}"), 422, 42201);

        Response protobuf = http.post("/subjects/errors-value/versions",
                "{\"schema\":\"syntax = \\\"proto3\\\";\",\"schemaType\":\"PROTOBUF\"}");
        assertError(protobuf, 422, 42201);
        assertThat(protobuf.json().get("message").asText()).contains("PROTOBUF", "only AVRO");
        String explicitAvro = schemaBody(V1).replaceFirst("\\}$", ",\"schemaType\":\"AVRO\",\"references\":[]}");
        assertThat(http.post("/subjects/errors-value/versions", explicitAvro).status()).isEqualTo(200);
        String withReferences = schemaBody(OTHER).replaceFirst("\\}$",
                ",\"references\":[{\"name\":\"x\",\"subject\":\"s\",\"version\":1}]}");
        assertError(http.post("/subjects/errors-value/versions", withReferences), 422, 42201);

        Response malformed = http.post("/subjects/errors-value/versions", "{\"schema\": ");
        assertError(malformed, 400, 400);
        assertError(http.post("/subjects/errors-value/versions", "[1,2]"), 422, 422);
        assertError(http.post("/subjects/errors-value/versions", ""), 422, 422);
    }

    @Test
    void unknownRoutesAre404InConfluentsShape() {
        Response unknown = http.get("/no/such/route");

        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.contentType()).isEqualTo(RegistryHttp.V1_JSON);
        assertThat(unknown.text()).isEqualTo("{\"error_code\":404,\"message\":\"HTTP 404 Not Found\"}");
        assertError(http.delete("/config"), 404, 404);
    }

    @Test
    void acceptsConfluentsRequestContentTypesAndRejectsOthers() {
        for (String contentType : new String[] {RegistryHttp.V1_JSON, "application/vnd.schemaregistry+json",
                "application/json", "application/json; charset=utf-8", null}) {
            Response response = http.post("/subjects/content-type-value/versions", schemaBody(V1), contentType);
            assertThat(response.status()).as("content type %s", contentType).isEqualTo(200);
        }
        assertError(http.post("/subjects/content-type-value/versions", schemaBody(V1), "text/plain"), 415, 415);
    }

    @Test
    void journalsToACompactedSinglePartitionSchemasTopic() throws Exception {
        http.register("journal-value", V1);
        try (Admin admin = Admin.create(KAFKA.broker().clientConfig())) {
            TopicDescription description = admin.describeTopics(List.of("_schemas")).allTopicNames()
                    .get(30, TimeUnit.SECONDS).get("_schemas");
            assertThat(description.partitions()).hasSize(1);
            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "_schemas");
            assertThat(admin.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic)
                    .get("cleanup.policy").value()).isEqualTo("compact");
        }
    }

    @Test
    void aRestartedRegistryKeepsIdsVersionsConfigAndDeletes() {
        int v1 = http.register("restart-value", V1);
        int v2 = http.register("restart-value", V2_WITH_DEFAULT);
        int other = http.register("restart-other-value", OTHER);
        http.put("/config/restart-value", "{\"compatibility\":\"FULL_TRANSITIVE\"}");
        int gone = http.register("restart-gone-value", V2_WITHOUT_DEFAULT);
        http.delete("/subjects/restart-gone-value");

        startRegistryAgain();

        assertThat(http.get("/schemas/ids/" + v1).json().get("schema").asText()).isEqualTo(V1);
        assertThat(http.get("/schemas/ids/" + v2).status()).isEqualTo(200);
        assertThat(http.get("/schemas/ids/" + other).json().get("schema").asText()).isEqualTo(OTHER);
        assertThat(http.get("/schemas/ids/" + gone).status()).isEqualTo(200);
        assertThat(http.get("/subjects/restart-value/versions").text()).isEqualTo("[1,2]");
        assertThat(http.get("/subjects/restart-value/versions/2").json().get("id").asInt()).isEqualTo(v2);
        assertThat(http.get("/config/restart-value").text()).isEqualTo("{\"compatibilityLevel\":\"FULL_TRANSITIVE\"}");
        assertThat(http.get("/subjects").json()).extracting(n -> n.asText())
                .contains("restart-value", "restart-other-value").doesNotContain("restart-gone-value");
        // Ids continue after the highest replayed one, and known schemas keep theirs.
        assertThat(http.register("restart-new-value", "{\"type\":\"fixed\",\"name\":\"F\",\"size\":4}")).isGreaterThan(Math.max(v2, gone));
        assertThat(http.register("restart-third-value", V1)).isEqualTo(v1);
    }

    @Test
    void reRegistrationAfterDeleteSurvivesARestart() {
        int id = http.register("again-value", V1);
        http.delete("/subjects/again-value");
        assertThat(http.register("again-value", V1)).isEqualTo(id);
        assertThat(http.get("/subjects/again-value/versions").text()).isEqualTo("[2]");
        http.delete("/subjects/again-value");
        http.register("again-value", V2_WITHOUT_DEFAULT);

        startRegistryAgain();

        assertThat(http.get("/subjects").json()).extracting(n -> n.asText()).contains("again-value");
        assertThat(http.get("/subjects/again-value/versions").text()).isEqualTo("[3]");
        assertThat(http.get("/subjects/again-value/versions/latest").json().get("schema").asText()).isEqualTo(V2_WITHOUT_DEFAULT);
        assertError(http.get("/subjects/again-value/versions/2"), 404, 40402);
        assertThat(http.get("/schemas/ids/" + id).json().get("schema").asText()).isEqualTo(V1);
    }

    private static void assertError(Response response, int status, int errorCode) {
        assertThat(response.status()).as("status of %s", response.text()).isEqualTo(status);
        assertThat(response.contentType()).isEqualTo(RegistryHttp.V1_JSON);
        assertThat(response.json().get("error_code").asInt()).as("error_code of %s", response.text()).isEqualTo(errorCode);
        assertThat(response.json().get("message").asText()).isNotBlank();
    }
}
