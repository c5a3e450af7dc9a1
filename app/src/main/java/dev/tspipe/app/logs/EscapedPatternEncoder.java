package dev.tspipe.app.logs;

import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;

/**
 * logback's pattern encoder whose {@code %msg} (and {@code %m}, {@code %message}) is escaped by {@link EscapedMessageConverter}:
 * every message of every logger, tspipe's and its libraries', is one line without terminal controls, whatever ids or
 * error texts it quotes. Stack traces keep their lines.
 */
public final class EscapedPatternEncoder extends PatternLayoutEncoder {

    @Override
    public void start() {
        super.start();
        // The plain layout that PatternLayoutEncoder.start() made is replaced by one whose message converters escape.
        PatternLayout layout = new PatternLayout();
        layout.setContext(context);
        for (String word : new String[] {"m", "msg", "message"}) {
            layout.getInstanceConverterMap().put(word, EscapedMessageConverter::new);
        }
        layout.setPattern(getPattern());
        layout.setOutputPatternAsHeader(outputPatternAsHeader);
        layout.start();
        this.layout = layout;
    }
}
