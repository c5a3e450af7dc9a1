package dev.tspipe.embedded.junit;

import dev.tspipe.embedded.EmbeddedKafka;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives each test class its own real Kafka broker, started before the class's first test
 * and stopped (its temporary data deleted) after the last.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();
 *
 * @Test
 * void roundTrip() {
 *     KAFKA.broker().createTopic("t", 6);
 * }
 * }</pre>
 *
 * <p>Used with {@code @ExtendWith(EmbeddedKafkaExtension.class)} instead, it injects the
 * {@link EmbeddedKafka} into test and lifecycle method parameters.
 */
public final class EmbeddedKafkaExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private EmbeddedKafka broker;

    /** The broker of the running test class. */
    public EmbeddedKafka broker() {
        if (broker == null) {
            throw new IllegalStateException("The embedded broker starts before all tests of a class; "
                    + "register this extension on a static field");
        }
        return broker;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        broker = EmbeddedKafka.builder().start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == EmbeddedKafka.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return broker();
    }
}
