package dev.tspipe.schemas.serde;

import dev.tspipe.schemas.registry.CachedSchemaRegistryClient;
import dev.tspipe.schemas.registry.MockSchemaRegistry;
import dev.tspipe.schemas.registry.RestSchemaRegistryClient;
import dev.tspipe.schemas.registry.SchemaRegistryClient;
import org.apache.kafka.common.config.ConfigException;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One cached registry client per registry (URLs and credentials) in the process, so that every
 * serializer and deserializer of the JVM shares what was fetched: an id is fetched once per process.
 */
final class SchemaRegistryClients {

    private record Key(List<String> urls, Optional<String> authorization, List<Object> sslSettings, long latestTtlSeconds,
                       long missingIdTtlSeconds, int missingCacheSize) {
    }

    private static final Map<Key, SchemaRegistryClient> SHARED = new ConcurrentHashMap<>();

    private SchemaRegistryClients() {
    }

    static SchemaRegistryClient forConfig(AvroSerdeConfig config) {
        List<String> urls = config.urls();
        if (urls.stream().anyMatch(url -> url.startsWith(MockSchemaRegistry.MOCK_URL_PREFIX))) {
            if (urls.size() != 1) {
                throw new ConfigException(AvroSerdeConfig.SCHEMA_REGISTRY_URL, String.join(",", urls),
                        "a mock:// URL cannot be combined with other URLs");
            }
            // Not cached: a test that drops a scope must not see ids of the scope's previous life.
            return MockSchemaRegistry.client(urls.get(0).substring(MockSchemaRegistry.MOCK_URL_PREFIX.length()));
        }
        Key key = new Key(urls, config.authorization(), config.sslSettings(), config.latestCacheTtlSeconds(),
                config.missingIdCacheTtlSeconds(), config.missingCacheSize());
        return SHARED.computeIfAbsent(key, k -> new CachedSchemaRegistryClient(
                new RestSchemaRegistryClient(config.httpUrls(), k.authorization(), config.sslContext()),
                Duration.ofSeconds(k.latestTtlSeconds()), Duration.ofSeconds(k.missingIdTtlSeconds()), k.missingCacheSize(),
                Clock.systemUTC()));
    }
}
