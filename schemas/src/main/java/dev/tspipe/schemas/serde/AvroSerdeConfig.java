package dev.tspipe.schemas.serde;

import dev.tspipe.schemas.registry.RestSchemaRegistryClient;
import dev.tspipe.schemas.tls.PemFiles;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

import javax.net.ssl.SSLContext;
import java.net.URI;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.HashMap;
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
    public static final String BEARER_AUTH_CREDENTIALS_SOURCE = "bearer.auth.credentials.source";
    public static final String BEARER_AUTH_TOKEN = "bearer.auth.token";
    public static final String SSL_TRUSTSTORE_LOCATION = "schema.registry.ssl.truststore.location";
    public static final String SSL_TRUSTSTORE_PASSWORD = "schema.registry.ssl.truststore.password";
    public static final String SSL_TRUSTSTORE_TYPE = "schema.registry.ssl.truststore.type";
    public static final String SSL_KEYSTORE_LOCATION = "schema.registry.ssl.keystore.location";
    public static final String SSL_KEYSTORE_PASSWORD = "schema.registry.ssl.keystore.password";
    public static final String SSL_KEYSTORE_TYPE = "schema.registry.ssl.keystore.type";
    public static final String SSL_KEY_PASSWORD = "schema.registry.ssl.key.password";
    public static final String SSL_ENDPOINT_IDENTIFICATION_ALGORITHM = "schema.registry.ssl.endpoint.identification.algorithm";
    public static final String LATEST_CACHE_TTL_SEC = "latest.cache.ttl.sec";
    public static final String MISSING_ID_CACHE_TTL_SEC = "missing.id.cache.ttl.sec";
    public static final String MISSING_CACHE_SIZE = "missing.cache.size";
    public static final String KEY_SUBJECT_NAME_STRATEGY = "key.subject.name.strategy";
    public static final String VALUE_SUBJECT_NAME_STRATEGY = "value.subject.name.strategy";

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
            .define(KEY_SUBJECT_NAME_STRATEGY, Type.STRING, Subjects.TOPIC_NAME.className(), Importance.MEDIUM,
                    "Serializer: the subject keys are registered under: TopicNameStrategy (<topic>-key), RecordNameStrategy "
                            + "(the record's full name) or TopicRecordNameStrategy (<topic>-<record's full name>); Confluent's "
                            + "class names are accepted.")
            .define(VALUE_SUBJECT_NAME_STRATEGY, Type.STRING, Subjects.TOPIC_NAME.className(), Importance.MEDIUM,
                    "Serializer: the subject values are registered under: TopicNameStrategy (<topic>-value), RecordNameStrategy "
                            + "or TopicRecordNameStrategy (<topic>-<record's full name>, how tspipe's ReadingBatch shares the "
                            + "readings topic with Reading); Confluent's class names are accepted.")
            .define(SPECIFIC_AVRO_READER, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Deserializer: return generated (specific) classes instead of GenericRecord.")
            .define(BASIC_AUTH_CREDENTIALS_SOURCE, Type.STRING, CredentialsSource.URL.name(),
                    ConfigDef.ValidString.in(CredentialsSource.URL.name(), CredentialsSource.USER_INFO.name()),
                    Importance.MEDIUM,
                    "URL: take user:password from the registry URL; USER_INFO: from basic.auth.user.info.")
            .define(BASIC_AUTH_USER_INFO, Type.PASSWORD, null, Importance.MEDIUM,
                    "user:password for HTTP basic authentication when the credentials source is USER_INFO.")
            .define(BEARER_AUTH_CREDENTIALS_SOURCE, Type.STRING, null, ConfigDef.ValidString.in(null, "STATIC_TOKEN"),
                    Importance.MEDIUM, "STATIC_TOKEN: send bearer.auth.token as 'Authorization: Bearer' instead of basic "
                            + "credentials (a tspipe demo started with --auth-tokens takes a write token for schema changes).")
            .define(BEARER_AUTH_TOKEN, Type.PASSWORD, null, Importance.MEDIUM,
                    "The token when the bearer credentials source is STATIC_TOKEN.")
            .define(SSL_TRUSTSTORE_LOCATION, Type.STRING, null, Importance.MEDIUM,
                    "HTTPS registries: the trust store their certificates are checked against (default: the JVM's).")
            .define(SSL_TRUSTSTORE_PASSWORD, Type.PASSWORD, null, Importance.MEDIUM, "The trust store's password, if any.")
            .define(SSL_TRUSTSTORE_TYPE, Type.STRING, "JKS", Importance.LOW,
                    "JKS, PKCS12, or PEM (a file of certificates).")
            .define(SSL_KEYSTORE_LOCATION, Type.STRING, null, Importance.MEDIUM,
                    "HTTPS registries that require client certificates: the key store of this client's key and certificate.")
            .define(SSL_KEYSTORE_PASSWORD, Type.PASSWORD, null, Importance.MEDIUM, "The key store's password.")
            .define(SSL_KEYSTORE_TYPE, Type.STRING, "JKS", Importance.LOW, "JKS or PKCS12.")
            .define(SSL_KEY_PASSWORD, Type.PASSWORD, null, Importance.LOW,
                    "The key's password in the key store (default: the key store's password).")
            .define(SSL_ENDPOINT_IDENTIFICATION_ALGORITHM, Type.STRING, "https", ConfigDef.ValidString.in("https", "HTTPS"),
                    Importance.LOW, "https: the registry's certificate must name its host (the only choice: turning the "
                            + "check off would let any certificate holder stand in for the registry).")
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
        if (getString(BEARER_AUTH_CREDENTIALS_SOURCE) != null && getPassword(BEARER_AUTH_TOKEN) == null) {
            throw new ConfigException(BEARER_AUTH_TOKEN, null,
                    "must be set to the token when " + BEARER_AUTH_CREDENTIALS_SOURCE + " is STATIC_TOKEN");
        }
        if (credentialsSource() == CredentialsSource.USER_INFO && getPassword(BASIC_AUTH_USER_INFO) == null) {
            throw new ConfigException(BASIC_AUTH_USER_INFO, null,
                    "must be set to user:password when " + BASIC_AUTH_CREDENTIALS_SOURCE + " is USER_INFO");
        }
        subjectNameStrategy(true);
        subjectNameStrategy(false);
    }

    /** Whether {@code key} is one of the serde's settings (Confluent's keys), which a Kafka client does not take. */
    public static boolean isSetting(String key) {
        return DEFINITION.names().contains(key);
    }

    /** The serde's settings among {@code settings} (a file that holds Kafka client and registry client keys). */
    public static Map<String, Object> settingsIn(Map<?, ?> settings) {
        Map<String, Object> serde = new HashMap<>();
        settings.forEach((key, value) -> {
            if (isSetting(key.toString())) {
                serde.put(key.toString(), value);
            }
        });
        return serde;
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

    /** The subject name strategy of keys ({@code isKey}) or values. */
    public Subjects subjectNameStrategy(boolean isKey) {
        String key = isKey ? KEY_SUBJECT_NAME_STRATEGY : VALUE_SUBJECT_NAME_STRATEGY;
        return Subjects.named(key, getString(key));
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

    /**
     * The TLS settings of HTTPS registries, as a context; empty when none are set (the JVM's defaults then apply).
     *
     * @throws ConfigException naming the setting when a store cannot be read
     */
    public Optional<SSLContext> sslContext() {
        String trustLocation = getString(SSL_TRUSTSTORE_LOCATION);
        String keyLocation = getString(SSL_KEYSTORE_LOCATION);
        if (trustLocation == null && keyLocation == null) {
            return Optional.empty();
        }
        try {
            KeyStore trusted = trustLocation == null ? null
                    : PemFiles.load(Path.of(trustLocation), getString(SSL_TRUSTSTORE_TYPE), chars(SSL_TRUSTSTORE_PASSWORD));
            KeyStore keys = keyLocation == null ? null
                    : PemFiles.load(Path.of(keyLocation), getString(SSL_KEYSTORE_TYPE), chars(SSL_KEYSTORE_PASSWORD));
            char[] keyPassword = getPassword(SSL_KEY_PASSWORD) != null ? chars(SSL_KEY_PASSWORD) : chars(SSL_KEYSTORE_PASSWORD);
            return Optional.of(PemFiles.context(keys, keyPassword, trusted));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(trustLocation != null ? SSL_TRUSTSTORE_LOCATION : SSL_KEYSTORE_LOCATION,
                    trustLocation != null ? trustLocation : keyLocation, e.getMessage());
        }
    }

    /** The TLS settings as written, to tell two registry clients apart (passwords included, never shown). */
    List<Object> sslSettings() {
        List<Object> settings = new ArrayList<>();
        for (String key : List.of(SSL_TRUSTSTORE_LOCATION, SSL_TRUSTSTORE_PASSWORD, SSL_TRUSTSTORE_TYPE, SSL_KEYSTORE_LOCATION,
                SSL_KEYSTORE_PASSWORD, SSL_KEYSTORE_TYPE, SSL_KEY_PASSWORD)) {
            Object value = get(key);
            settings.add(value instanceof Password password ? password.value()
                    : String.valueOf(value));
        }
        return settings;
    }

    private char[] chars(String key) {
        return getPassword(key) == null ? null : getPassword(key).value().toCharArray();
    }

    /** The {@code Authorization} header of requests to the registry: a bearer token, basic credentials, or none. */
    public Optional<String> authorization() {
        if (getString(BEARER_AUTH_CREDENTIALS_SOURCE) != null) {
            return Optional.of("Bearer " + getPassword(BEARER_AUTH_TOKEN).value());
        }
        return userInfo().map(RestSchemaRegistryClient::basic);
    }

    /** {@code user:password} for basic authentication, from the configured source. */
    public Optional<String> userInfo() {
        if (credentialsSource() == CredentialsSource.USER_INFO) {
            return Optional.of(getPassword(BASIC_AUTH_USER_INFO).value());
        }
        return urls().stream().map(URI::create).map(URI::getUserInfo).filter(info -> info != null).findFirst();
    }
}
