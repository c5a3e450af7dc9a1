package dev.tspipe.schemas;

import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;

import static org.assertj.core.api.Assertions.assertThat;

class ErrorTextTest {

    /** What HttpWrites answered with a failed write: {@code cause.toString()}, which starts with the class name. */
    @Test
    void aSerializationFailureIsDescribedInWordsWithoutItsClassName() {
        Exception failure = new SerializationException("Could not get a schema id for subject 'readings-value': "
                + "Unauthorized (registry http://127.0.0.1:8081)", new IOException("java.net.ConnectException: refused"));

        assertThat(failure.toString()).containsPattern(INTERNAL);
        String words = ErrorText.describe(failure, "unknown");
        assertThat(words).isEqualTo("Could not get a schema id for subject 'readings-value': Unauthorized (registry http://127.0.0.1:8081)");
        assertThat(words).doesNotContainPattern(INTERNAL);
    }

    @Test
    void takesTheFirstCauseWithAMessageAndDropsClassNamesInsideIt() {
        Exception wrapped = new RuntimeException(null, new ConnectException("java.net.ConnectException: Connection refused"));
        assertThat(ErrorText.describe(wrapped, "unknown")).isEqualTo("Connection refused");
        assertThat(ErrorText.describe(new RuntimeException(), "the write failed")).isEqualTo("the write failed");
        assertThat(ErrorText.withoutClassNames("no class here: pump.7 failed")).isEqualTo("no class here: pump.7 failed");
    }

    private static final String INTERNAL = "[a-z]+\\.[a-z]+\\..*(Exception|Error)";
}
