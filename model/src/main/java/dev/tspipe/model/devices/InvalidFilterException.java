package dev.tspipe.model.devices;

import java.util.Objects;

/**
 * A device filter that cannot be parsed: which parameter was wrong and what to do about it. The message is
 * {@code parameter + ": " + reason}, the form an HTTP edge answers with as a bad parameter.
 */
public final class InvalidFilterException extends IllegalArgumentException {

    private final String parameter;
    private final String reason;

    public InvalidFilterException(String parameter, String reason) {
        super(parameter + ": " + reason);
        this.parameter = Objects.requireNonNull(parameter, "parameter");
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** The parameter that was wrong. */
    public String parameter() {
        return parameter;
    }

    /** What was wrong with it and what to do, without the parameter's name. */
    public String reason() {
        return reason;
    }
}
