package dev.tspipe.bench;

import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * The row-key codec, which runs once per reading on the write path and once per row on every
 * scan. Targets (docs/benchmarks.md): encode and decode of a typical key each under 200 ns, and
 * encoding allocates nothing but the key array. Every method returns its result, which JMH
 * consumes with a Blackhole, so the work cannot be optimised away.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RowKeyBenchmark {

    /** 2023-11-14T22:13:20Z. */
    static final long TIMESTAMP = 1_700_000_000_000L;

    KeyLayout plain;
    KeyLayout salted;
    SeriesId typical;
    SeriesId needsEscapes;
    long epochMillis;
    byte[] typicalKey;

    @Setup
    public void setUp() {
        plain = KeyLayout.DEFAULT;
        salted = KeyLayout.DEFAULT.withSalt();
        typical = SeriesId.of("sensor-000123", "temperature");
        // Two-byte (ü, °) and three-byte (€) UTF-8 characters and spaces: 7 of the 16 characters are
        // escaped, and the key is 77 bytes.
        needsEscapes = SeriesId.of("Zürich Süd °C €1", "temperature");
        epochMillis = TIMESTAMP;
        typicalKey = RowKey.encode(plain, typical, epochMillis);
    }

    /** {@code sensor-000123#temperature#9223370336854775807}: 45 bytes. */
    @Benchmark
    public byte[] encodeTypical() {
        return RowKey.encode(plain, typical, epochMillis);
    }

    @Benchmark
    public RowKey decodeTypical() {
        return RowKey.fromBytes(typicalKey, plain);
    }

    @Benchmark
    public byte[] encodeWithEscapes() {
        return RowKey.encode(plain, needsEscapes, epochMillis);
    }

    /** The typical key with its 4-character MD5 salt in front: 50 bytes. */
    @Benchmark
    public byte[] encodeSalted() {
        return RowKey.encode(salted, typical, epochMillis);
    }
}
