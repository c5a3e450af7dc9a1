package dev.tspipe.app.logs;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.tspipe.schemas.LogText;

/**
 * {@code %msg} with its control characters escaped ({@link LogText#escapeControls}): a logged id cannot end the line or
 * forge another. Backslashes are kept, so an id a call site escaped already ({@link LogText#escape}) reads the same.
 */
public final class EscapedMessageConverter extends MessageConverter {

    @Override
    public String convert(ILoggingEvent event) {
        return LogText.escapeControls(super.convert(event));
    }
}
