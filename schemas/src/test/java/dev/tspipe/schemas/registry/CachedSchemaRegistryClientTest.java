package dev.tspipe.schemas.registry;

import dev.tspipe.schemas.serde.AvroDeserializer;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import dev.tspipe.schemas.serde.RegistryUnavailableSerializationException;
import dev.tspipe.schemas.serde.UnknownSchemaException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CachedSchemaRegistryClientTest {

    private static final Schema SCHEMA = new Schema.Parser().parse(
            "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"string\"}]}");

    private static final Duration MISS_TTL = Duration.ofSeconds(5);

    private final String scope = "cache-test-" + UUID.randomUUID();

    /** Counts the calls that reach the (in-process) registry. */
    private class CountingClient implements SchemaRegistryClient {
        final SchemaRegistryClient real = MockSchemaRegistry.client(scope);
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public int register(String subject, Schema schema) {
            calls.incrementAndGet();
            return real.register(subject, schema);
        }

        @Override
        public int lookupId(String subject, Schema schema) {
            calls.incrementAndGet();
            return real.lookupId(subject, schema);
        }

        @Override
        public Schema schemaById(int id) {
            calls.incrementAndGet();
            return real.schemaById(id);
        }

        @Override
        public RegisteredSchema latest(String subject) {
            calls.incrementAndGet();
            return real.latest(subject);
        }

        @Override
        public String location() {
            return real.location();
        }
    }

    @AfterEach
    void drop() {
        MockSchemaRegistry.dropScope(scope);
    }

    @Test
    void registeringTheSameSchemaTwiceAsksTheRegistryOnceAndTheIdIsThenKnown() {
        CountingClient counting = new CountingClient();
        CachedSchemaRegistryClient cached = new CachedSchemaRegistryClient(counting, Duration.ofMinutes(1), MISS_TTL, 100, Clock.systemUTC());

        int id = cached.register("s", SCHEMA);
        assertThat(cached.register("s", SCHEMA)).isEqualTo(id);
        assertThat(cached.lookupId("s", SCHEMA)).isEqualTo(id);
        assertThat(cached.schemaById(id)).isEqualTo(SCHEMA);

        assertThat(counting.calls).hasValue(1);
    }

    @Test
    void aSchemaIdIsFetchedOnce() {
        int id = MockSchemaRegistry.client(scope).register("s", SCHEMA);
        CountingClient counting = new CountingClient();
        CachedSchemaRegistryClient cached = new CachedSchemaRegistryClient(counting, Duration.ofMinutes(1), MISS_TTL, 100, Clock.systemUTC());

        for (int i = 0; i < 5; i++) {
            assertThat(cached.schemaById(id)).isEqualTo(SCHEMA);
        }

        assertThat(counting.calls).hasValue(1);
    }

    @Test
    void theLatestVersionIsRefetchedAfterItsTtl() {
        MockSchemaRegistry.client(scope).register("s", SCHEMA);
        CountingClient counting = new CountingClient();
        MutableClock clock = new MutableClock();
        CachedSchemaRegistryClient cached = new CachedSchemaRegistryClient(counting, Duration.ofSeconds(60), MISS_TTL, 100, clock);

        cached.latest("s");
        clock.advance(Duration.ofSeconds(59));
        cached.latest("s");
        assertThat(counting.calls).hasValue(1);

        clock.advance(Duration.ofSeconds(2));
        cached.latest("s");
        assertThat(counting.calls).hasValue(2);
    }

    /** Records in the wire format naming schema {@code id}, with a body that the test schema reads as "x". */
    private static byte[] recordNaming(int id) {
        return new byte[] {0, (byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) id, 2, 'x'};
    }

    private static AvroDeserializer<GenericRecord> deserializerOver(SchemaRegistryClient registry) {
        return new AvroDeserializer<>(registry, Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://unused"));
    }

    @Test
    void recordsNamingOneUnknownIdCostOneRegistryCallWithinTheMissTtlAndANewlyRegisteredIdIsFoundAfterIt() {
        CountingClient counting = new CountingClient();
        MutableClock clock = new MutableClock();
        AvroDeserializer<GenericRecord> deserializer = deserializerOver(
                new CachedSchemaRegistryClient(counting, Duration.ofSeconds(60), MISS_TTL, 100, clock));
        int unknown = 1; // the scope is empty and its ids start at 1: this is the id the next registration gets
        byte[] record = recordNaming(unknown);

        for (int i = 0; i < 1_000; i++) {
            assertThatThrownBy(() -> deserializer.deserialize("t", record)).isInstanceOf(UnknownSchemaException.class)
                    .hasMessageContaining("Unknown schema id 1");
        }
        assertThat(counting.calls).as("registry calls for 1,000 records naming one unknown id").hasValue(1);

        assertThat(MockSchemaRegistry.client(scope).register("t-value", SCHEMA)).isEqualTo(unknown);
        clock.advance(MISS_TTL.minusMillis(1));
        assertThatThrownBy(() -> deserializer.deserialize("t", record))
                .as("an id registered within the TTL after a miss is still unknown until the TTL has passed")
                .isInstanceOf(UnknownSchemaException.class);
        assertThat(counting.calls).hasValue(1);

        clock.advance(Duration.ofMillis(1));
        assertThat(deserializer.deserialize("t", record).get("a")).hasToString("x");
        assertThat(deserializer.deserialize("t", record).get("a")).hasToString("x");
        assertThat(counting.calls).as("one more call, then the id is known for good").hasValue(2);
    }

    @Test
    void aRegistryThatCannotBeReachedIsAskedAgainOnEveryCall() {
        CountingClient unreachable = new CountingClient() {
            @Override
            public Schema schemaById(int id) {
                calls.incrementAndGet();
                throw new RegistryUnavailableException("connection refused by every URL", new java.net.ConnectException());
            }
        };
        AvroDeserializer<GenericRecord> deserializer = deserializerOver(
                new CachedSchemaRegistryClient(unreachable, Duration.ofSeconds(60), MISS_TTL, 100, new MutableClock()));

        for (int i = 0; i < 10; i++) {
            assertThatThrownBy(() -> deserializer.deserialize("t", recordNaming(7)))
                    .isInstanceOf(RegistryUnavailableSerializationException.class);
        }

        assertThat(unreachable.calls).hasValue(10);
    }

    @Test
    void otherRegistryFailuresAreNotRememberedAsMisses() {
        CountingClient failing = new CountingClient() {
            @Override
            public Schema schemaById(int id) {
                calls.incrementAndGet();
                throw new RegistryException(500, RegistryException.STORE_ERROR, "Error in the backend data store");
            }
        };
        CachedSchemaRegistryClient cached = new CachedSchemaRegistryClient(failing, Duration.ofSeconds(60), MISS_TTL, 100,
                new MutableClock());

        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> cached.schemaById(7)).isInstanceOf(RegistryException.class);
        }

        assertThat(failing.calls).hasValue(3);
    }

    @Test
    void theRememberedMissesAreBoundedAndTheOldestIsForgottenFirst() {
        CountingClient counting = new CountingClient();
        CachedSchemaRegistryClient cached = new CachedSchemaRegistryClient(counting, Duration.ofSeconds(60), MISS_TTL, 2,
                new MutableClock());

        for (int id : new int[] {101, 102, 103}) {
            assertThatThrownBy(() -> cached.schemaById(id)).isInstanceOf(RegistryException.class)
                    .extracting(e -> ((RegistryException) e).errorCode()).isEqualTo(RegistryException.SCHEMA_NOT_FOUND);
        }
        assertThat(counting.calls).hasValue(3);

        assertThatThrownBy(() -> cached.schemaById(103)).isInstanceOf(RegistryException.class);
        assertThatThrownBy(() -> cached.schemaById(102)).isInstanceOf(RegistryException.class);
        assertThat(counting.calls).as("102 and 103 are remembered").hasValue(3);

        assertThatThrownBy(() -> cached.schemaById(101)).isInstanceOf(RegistryException.class);
        assertThat(counting.calls).as("101, the oldest of three, was forgotten").hasValue(4);
    }

    @Test
    void aMissTtlOfZeroAsksEveryTime() {
        CountingClient counting = new CountingClient();
        CachedSchemaRegistryClient cached = new CachedSchemaRegistryClient(counting, Duration.ofSeconds(60), Duration.ZERO, 100,
                new MutableClock());

        for (int i = 0; i < 4; i++) {
            assertThatThrownBy(() -> cached.schemaById(9)).isInstanceOf(RegistryException.class);
        }

        assertThat(counting.calls).hasValue(4);
    }

    private static final class MutableClock extends Clock {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
