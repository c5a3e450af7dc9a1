package dev.tspipe.app;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A duration written as {@code 500ms}, {@code 30s}, {@code 10m}, {@code 2h}, {@code 1d}, or ISO-8601 ({@code PT10M}). */
final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern SHORT = Pattern.compile("([0-9]+)(ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
        Matcher m = SHORT.matcher(value.trim());
        try {
            if (m.matches()) {
                long amount = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(amount);
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    case "h" -> Duration.ofHours(amount);
                    default -> Duration.ofDays(amount);
                };
            }
            return Duration.parse(value.trim());
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is not a duration: write 30s, 10m, 2h, 1d or ISO-8601 such as PT10M");
        }
    }
}
