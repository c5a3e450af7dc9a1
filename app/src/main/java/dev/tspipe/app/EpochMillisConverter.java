package dev.tspipe.app;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.DateTimeException;
import java.time.Instant;

/** A point in time given as epoch milliseconds or as an ISO-8601 instant, as the HTTP API's {@code from}/{@code to}. */
final class EpochMillisConverter implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        try {
            if (value.matches("-?[0-9]+")) {
                return Long.parseLong(value);
            }
            return Instant.parse(value).toEpochMilli();
        } catch (NumberFormatException | DateTimeException | ArithmeticException e) {
            throw new TypeConversionException("'" + value + "' is not a time: give epoch milliseconds "
                    + "(1700000000000) or an ISO-8601 instant (2023-11-14T22:13:20Z)");
        }
    }
}
