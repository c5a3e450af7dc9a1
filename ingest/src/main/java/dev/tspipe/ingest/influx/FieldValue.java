package dev.tspipe.ingest.influx;

/** A field's value as line protocol types it. */
public sealed interface FieldValue {

    /** {@code 1.5}, {@code -2}, {@code 1e10}: a number without suffix. */
    record FloatValue(double value) implements FieldValue {
    }

    /** {@code 42i}: a signed 64-bit integer. */
    record IntegerValue(long value) implements FieldValue {
    }

    /** {@code 42u}: an unsigned 64-bit integer (kept in a long's bits; {@link Long#toUnsignedString} reads it). */
    record UnsignedValue(long bits) implements FieldValue {
    }

    /** {@code t}, {@code true}, {@code F}, ... */
    record BooleanValue(boolean value) implements FieldValue {
    }

    /** {@code "text"}, unescaped. */
    record StringValue(String value) implements FieldValue {
    }
}
