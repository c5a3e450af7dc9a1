package dev.tspipe.app.logs;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application's own logback.xml (not the tests'), in both formats: a message that quotes a device id carrying a
 * terminal escape and CR LF is written as one line, without a raw control character.
 */
class LogEscapingTest {

    private static final String FORGED_ID = "pump-7\u001b[31m\r\nFAKE LINE 12:00:00.000 ERROR forged\u009b2J";

    @ParameterizedTest
    @ValueSource(strings = {"text", "json"})
    void aLoggedIdCannotForgeALineOrDriveTheTerminal(String format) throws Exception {
        String written = logWithTheApplicationsConfig(format, FORGED_ID);

        assertThat(written).endsWith(System.lineSeparator());
        assertThat(written.strip().lines()).as(written).hasSize(1);
        assertThat(written).as(written).doesNotContain("\u001b", "\r", "\u009b");
        assertThat(written).contains("FAKE LINE");
    }

    @SuppressWarnings("unchecked")
    private static String logWithTheApplicationsConfig(String format, String deviceId) throws Exception {
        URL config = LogEscapingTest.class.getClassLoader().getResource("logback.xml");
        assertThat(config).as("app's logback.xml on the class path").isNotNull();
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter());
        context.putProperty("tspipe.log.format", format);
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(config);
            // The configured appender and encoder, writing here instead of to the console.
            OutputStreamAppender<ILoggingEvent> appender = (OutputStreamAppender<ILoggingEvent>)
                    context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender(format);
            appender.setOutputStream(captured);
            context.getLogger("dev.tspipe.ingest.ReadingProducer")
                    .warn("Could not write the reading of {} temperature to topic 'readings': timed out", deviceId);
        } finally {
            context.stop();
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
