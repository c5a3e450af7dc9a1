package dev.tspipe.schemas.registry;

import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class CachedSchemaRegistryClientTest {

    private static final Schema SCHEMA = new Schema.Parser().parse(
            "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"string\"}]}");

    private final String scope = "cache-test-" + UUID.randomUUID();

    /** Counts the calls that reach the (in-process) registry. */
    private final class CountingClient implements SchemaRegistryClient {
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
        CachedSchemaRegistryClient cached = new CachedSchemaRegistryClient(counting, Duration.ofMinutes(1), Clock.systemUTC());

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
        CachedSchemaRegistryClient cached = new CachedSchemaRegistryClient(counting, Duration.ofMinutes(1), Clock.systemUTC());

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
        CachedSchemaRegistryClient cached = new CachedSchemaRegistryClient(counting, Duration.ofSeconds(60), clock);

        cached.latest("s");
        clock.advance(Duration.ofSeconds(59));
        cached.latest("s");
        assertThat(counting.calls).hasValue(1);

        clock.advance(Duration.ofSeconds(2));
        cached.latest("s");
        assertThat(counting.calls).hasValue(2);
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
