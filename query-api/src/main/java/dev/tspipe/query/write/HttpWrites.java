package dev.tspipe.query.write;

import dev.tspipe.ingest.ReadingProducer;
import dev.tspipe.ingest.influx.InfluxMapping;
import dev.tspipe.ingest.influx.LineProtocolException;
import dev.tspipe.ingest.prometheus.RemoteWrite;
import dev.tspipe.query.error.ApiException;
import dev.tspipe.schemas.ErrorText;
import dev.tspipe.schemas.Reading;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.producer.BufferExhaustedException;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPInputStream;

/**
 * Writes over HTTP (docs/ingest.md): InfluxDB line protocol and Prometheus remote-write. A body becomes
 * readings all or none ({@link InfluxMapping}, {@link RemoteWrite}), they are produced to the readings
 * topic, and the call returns only once the broker has acknowledged every one of them (acks=all,
 * idempotent): an answered write is never lost.
 */
public final class HttpWrites {

    /** The largest body once decompressed. */
    public static final int MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;
    /** How long a write waits for the broker's acknowledgements before it answers 503. */
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(30);
    /** The protocol tag of the meters. */
    private static final String LINE_PROTOCOL = "influx-line";
    private static final String REMOTE_WRITE = "prometheus-remote-write";

    private final ReadingProducer producer;
    private final InfluxMapping mapping;
    private final RemoteWrite remoteWrite;
    private final Clock clock;
    private final Counter lineAccepted;
    private final Counter lineRejected;
    private final Counter remoteAccepted;
    private final Counter remoteSkipped;
    private final Counter remoteRejected;

    public HttpWrites(ReadingProducer producer, InfluxMapping mapping, RemoteWrite remoteWrite, MeterRegistry registry,
                      Clock clock) {
        this.producer = producer;
        this.mapping = mapping;
        this.remoteWrite = remoteWrite;
        this.clock = clock;
        this.lineAccepted = readings(registry, LINE_PROTOCOL, "accepted");
        this.lineRejected = requests(registry, LINE_PROTOCOL, "rejected");
        this.remoteAccepted = readings(registry, REMOTE_WRITE, "accepted");
        this.remoteSkipped = readings(registry, REMOTE_WRITE, "skipped");
        this.remoteRejected = requests(registry, REMOTE_WRITE, "rejected");
    }

    private static Counter readings(MeterRegistry registry, String protocol, String result) {
        return Counter.builder("tspipe.write.readings").tag("protocol", protocol).tag("result", result)
                .description("Readings of HTTP writes acknowledged by Kafka, or skipped (NaN)").register(registry);
    }

    private static Counter requests(MeterRegistry registry, String protocol, String result) {
        return Counter.builder("tspipe.write.requests").tag("protocol", protocol).tag("result", result)
                .description("HTTP writes refused (bad input, limits, Kafka unavailable)").register(registry);
    }

    /**
     * Writes a body; returns the number of readings written.
     *
     * @throws ApiException 400 for a line that is not line protocol or cannot be a reading (with its number), 413 past
     *                      the limits, 429 when the producer's buffer is full, 503 when Kafka did not acknowledge in time
     */
    public int lineProtocol(byte[] body, String contentEncoding, String precision, String tenant) {
        try {
            InfluxMapping.Precision unit;
            try {
                unit = InfluxMapping.Precision.parse(precision);
            } catch (IllegalArgumentException e) {
                throw ApiException.badParameter("precision", e.getMessage());
            }
            List<Reading> readings;
            try {
                readings = mapping.readings(text(body, contentEncoding), unit, tenant, clock.millis());
            } catch (LineProtocolException e) {
                throw ApiException.badLine(e.line(), "body", e.getMessage() + "; nothing of this body was written");
            }
            produce(readings);
            lineAccepted.increment(readings.size());
            return readings.size();
        } catch (ApiException e) {
            lineRejected.increment();
            throw e;
        }
    }

    /**
     * Writes a Prometheus remote-write 1.0 request (snappy-compressed protobuf); returns the number of readings written.
     *
     * @throws ApiException as {@link #lineProtocol}
     */
    public int remoteWrite(byte[] body, String tenant) {
        try {
            RemoteWrite.Readings readings;
            try {
                readings = remoteWrite.readings(body, tenant, MAX_DECOMPRESSED_BYTES);
            } catch (RemoteWrite.InvalidWriteException e) {
                throw ApiException.badParameter("body", e.getMessage() + "; nothing of this request was written");
            }
            produce(readings.readings());
            remoteAccepted.increment(readings.readings().size());
            remoteSkipped.increment(readings.skipped());
            return readings.readings().size();
        } catch (ApiException e) {
            remoteRejected.increment();
            throw e;
        }
    }

    /** Writes the request's readings as one batch per device (docs/ingest.md, "Batches") and waits for Kafka's acks. */
    private void produce(List<Reading> readings) {
        await(producer.sendAll(readings));
    }

    private static String text(byte[] body, String contentEncoding) {
        byte[] bytes = body;
        if (contentEncoding != null && contentEncoding.equalsIgnoreCase("gzip")) {
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
                bytes = in.readNBytes(MAX_DECOMPRESSED_BYTES + 1);
            } catch (IOException e) {
                throw ApiException.badParameter("body", "Content-Encoding is gzip but the body is not gzip: " + e.getMessage());
            }
            if (bytes.length > MAX_DECOMPRESSED_BYTES) {
                throw ApiException.tooLarge("the body is over " + MAX_DECOMPRESSED_BYTES + " bytes once decompressed; send "
                        + "smaller batches");
            }
        } else if (contentEncoding != null && !contentEncoding.isBlank() && !contentEncoding.equalsIgnoreCase("identity")) {
            throw ApiException.badParameter("Content-Encoding", "'" + contentEncoding + "' is not taken; use gzip or none");
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw ApiException.badParameter("body", "line protocol is UTF-8; the body is not");
        }
    }

    private static void await(CompletableFuture<Void> sent) {
        try {
            sent.get(ACK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                    ? c.getCause() : e.getCause();
            if (cause instanceof BufferExhaustedException) {
                throw ApiException.tooManyRequests("the producer's buffer is full; retry the whole body in a moment");
            }
            // The client gets the failure in words; the class names of Kafka's and the serde's exceptions say nothing to it.
            throw ApiException.unavailable("Kafka did not take every reading (" + ErrorText.describe(cause, "no reason given")
                    + "); retry the whole body: "
                    + "readings already written are overwritten with the same values");
        } catch (TimeoutException e) {
            throw ApiException.unavailable("Kafka did not acknowledge the readings within " + ACK_TIMEOUT.toSeconds()
                    + " s; retry the whole body: readings already written are overwritten with the same values");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while waiting for Kafka; retry");
        }
    }
}
