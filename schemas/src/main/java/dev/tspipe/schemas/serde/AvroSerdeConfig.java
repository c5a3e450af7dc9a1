package dev.tspipe.schemas.serde;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Settings of tspipe's Avro serde. The keys are Confluent's, so that a configuration written
 * for {@code KafkaAvroSerializer} works unchanged.
 */
public final class AvroSerdeConfig extends AbstractConfig {

    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String AUTO_REGISTER_SCHEMAS = "auto.register.schemas";
    public static final String USE_LATEST_VERSION = "use.latest.version";
    public static final String SPECIFIC_AVRO_READER = "specific.avro.reader";
    public static final String BASIC_AUTH_CREDENTIALS_SOURCE = "basic.auth.credentials.source";
    public static final String BASIC_AUTH_USER_INFO = "basic.auth.user.info";
    public static final String LATEST_CACHE_TTL_SEC = "latest.cache.ttl.sec";
    public static final String MISSING_ID_CACHE_TTL_SEC = "missing.id.cache.ttl.sec";
    public static final String MISSING_CACHE_SIZE = "missing.cache.size";

    /** Where the basic-auth credentials come from. */
    public enum CredentialsSource { URL, USER_INFO }

    private static final ConfigDef DEFINITION = new ConfigDef()
            .define(SCHEMA_REGISTRY_URL, Type.LIST, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH,
                    "Schema registry URLs, comma-separated, tried in turn: http(s)://host:port, "
                            + "or mock://<scope> for an in-process registry shared by the JVM (tests).")
            .define(AUTO_REGISTER_SCHEMAS, Type.BOOLEAN, true, Importance.MEDIUM,
                    "Serializer: register the record's schema under the subject when it is not there yet. "
                            + "When false, the schema must already be registered.")
            .define(USE_LATEST_VERSION, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Serializer: write with the subject's latest registered schema instead of the record's own.")
            .define(SPECIFIC_AVRO_READER, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Deserializer: return generated (specific) classes instead of GenericRecord.")
            .define(BASIC_AUTH_CREDENTIALS_SOURCE, Type.STRING, CredentialsSource.URL.name(),
                    ConfigDef.ValidString.in(CredentialsSource.URL.name(), CredentialsSource.USER_INFO.name()),
                    Importance.MEDIUM,
                    "URL: take user:password from the registry URL; USER_INFO: from basic.auth.user.info.")
            .define(BASIC_AUTH_USER_INFO, Type.PASSWORD, null, Importance.MEDIUM,
                    "user:password for HTTP basic authentication when the credentials source is USER_INFO.")
            .define(LATEST_CACHE_TTL_SEC, Type.LONG, 60L, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Seconds for which the latest version of a subject is cached (use.latest.version).")
            .define(MISSING_ID_CACHE_TTL_SEC, Type.LONG, 5L, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Deserializer: seconds for which a schema id the registry does not know is remembered as unknown, "
                            + "so that records naming it do not each ask the registry; an id registered meanwhile is "
                            + "found once this has passed. 0 asks every time. A registry that cannot be reached is never "
                            + "remembered.")
            .define(MISSING_CACHE_SIZE, Type.INT, 10_000, ConfigDef.Range.atLeast(0), Importance.LOW,
                    "Most unknown schema ids remembered at once (the oldest are forgotten first).");

    public AvroSerdeConfig(Map<String, ?> originals) {
        super(DEFINITION, originals, false);
        if (urls().isEmpty()) {
            throw new ConfigException(SCHEMA_REGISTRY_URL, "", "at least one schema registry URL is needed");
        }
        if (credentialsSource() == CredentialsSource.USER_INFO && getPassword(BASIC_AUTH_USER_INFO) == null) {
            throw new ConfigException(BASIC_AUTH_USER_INFO, null,
                    "must be set to user:password when " + BASIC_AUTH_CREDENTIALS_SOURCE + " is USER_INFO");
        }
    }

    /** The definition of every key, for documentation. */
    public static ConfigDef definition() {
        return DEFINITION;
    }

    public List<String> urls() {
        return getList(SCHEMA_REGISTRY_URL).stream().map(String::trim).filter(u -> !u.isEmpty()).toList();
    }

    public List<URI> httpUrls() {
        return urls().stream().map(url -> {
            try {
                URI uri = URI.create(url);
                if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
                    throw new IllegalArgumentException("scheme must be http, https or mock");
                }
                return uri;
            } catch (IllegalArgumentException e) {
                throw new ConfigException(SCHEMA_REGISTRY_URL, url, e.getMessage());
            }
        }).toList();
    }

    public boolean autoRegisterSchemas() {
        return getBoolean(AUTO_REGISTER_SCHEMAS);
    }

    public boolean useLatestVersion() {
        return getBoolean(USE_LATEST_VERSION);
    }

    public boolean specificAvroReader() {
        return getBoolean(SPECIFIC_AVRO_READER);
    }

    public CredentialsSource credentialsSource() {
        return CredentialsSource.valueOf(getString(BASIC_AUTH_CREDENTIALS_SOURCE));
    }

    public long latestCacheTtlSeconds() {
        return getLong(LATEST_CACHE_TTL_SEC);
    }

    public long missingIdCacheTtlSeconds() {
        return getLong(MISSING_ID_CACHE_TTL_SEC);
    }

    public int missingCacheSize() {
        return getInt(MISSING_CACHE_SIZE);
    }

    /** {@code user:password} for basic authentication, from the configured source. */
    public Optional<String> userInfo() {
        if (credentialsSource() == CredentialsSource.USER_INFO) {
            return Optional.of(getPassword(BASIC_AUTH_USER_INFO).value());
        }
        return urls().stream().map(URI::create).map(URI::getUserInfo).filter(info -> info != null).findFirst();
    }
}
