package dev.tspipe.app;

import dev.tspipe.ingest.ReadingGenerator;
import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.schemas.Reading;
import dev.tspipe.schemas.serde.AvroSerdeConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The demo's load generator: synthetic readings at a steady rate, in a background thread, until
 * closed. Readings are timestamped from the moment the demo starts, so the series are "live".
 */
final class DemoLoad implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DemoLoad.class);

    private final ReadingProducer producer;
    private final Thread thread;
    private volatile boolean stop;

    private final List<String> tenants;

    private DemoLoad(ReadingProducer producer, ReadingGenerator generator, int rate, List<String> tenants) {
        this.producer = producer;
        this.tenants = List.copyOf(tenants);
        this.thread = new Thread(() -> run(generator, rate), "demo-load");
        thread.setDaemon(true);
    }

    /**
     * @param registryToken a bearer token for the registry's writes (the demo's schema), or null when they are open
     * @param tenants       the tenants the devices are dealt to in turn (device-00000 the first's), or none: single-tenant
     */
    static DemoLoad start(String bootstrapServers, String registryUrl, String registryToken, String topic, int devices,
                          int metrics, int rate, List<String> tenants) {
        ReadingGenerator generator = new ReadingGenerator(ReadingGenerator.Options.of(devices, metrics, rate, Instant.now()));
        Map<String, Object> settings = new HashMap<>();
        settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        settings.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registryUrl);
        if (registryToken != null) {
            settings.put(AvroSerdeConfig.BEARER_AUTH_CREDENTIALS_SOURCE, "STATIC_TOKEN");
            settings.put(AvroSerdeConfig.BEARER_AUTH_TOKEN, registryToken);
        }
        DemoLoad load = new DemoLoad(ReadingProducer.create(topic, settings), generator, rate, tenants);
        load.thread.start();
        return load;
    }

    private void run(ReadingGenerator generator, int rate) {
        long startNanos = System.nanoTime();
        try {
            while (!stop) {
                long due = (long) ((System.nanoTime() - startNanos) / 1e9 * rate) + 1;
                if (generator.originals() >= due) {
                    TimeUnit.MILLISECONDS.sleep(2);
                    continue;
                }
                producer.send(withTenant(generator.next()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.error("The demo's load generator stopped", e);
        }
    }

    /** The reading with its device's tenant: the generator's devices are device-NNNNN, dealt to the tenants in turn. */
    private Reading withTenant(Reading reading) {
        if (!tenants.isEmpty()) {
            String id = reading.getDeviceId();
            int number = Integer.parseInt(id.substring(id.lastIndexOf('-') + 1));
            reading.setTenant(tenants.get(number % tenants.size()));
        }
        return reading;
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(5_000);
        producer.close();
        ReadingProducer.Counts counts = producer.counts();
        log.info("Demo load: {} readings sent, {} acknowledged, {} failed", counts.sent(), counts.acknowledged(), counts.failed());
    }
}
