package dev.tspipe.query.http;

import dev.tspipe.query.error.ErrorBody;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The bodies written for errors that Jetty finds: codes, messages, and what of Jetty's reason is kept. */
class JsonErrorPagesTest {

    @Test
    void badInputThatJettyAnswersWithA5xxIsA400() {
        assertThat(JsonErrorPages.statusFor(505)).isEqualTo(400);
        assertThat(JsonErrorPages.statusFor(501)).isEqualTo(400);
        assertThat(JsonErrorPages.statusFor(500)).isEqualTo(500);
        assertThat(JsonErrorPages.statusFor(431)).isEqualTo(431);
    }

    @Test
    void everyStatusHasACodeAndAMessageThatSaysWhatToDo() {
        assertThat(JsonErrorPages.describe(400, null).error()).isEqualTo("bad-request");
        assertThat(JsonErrorPages.describe(405, null).error()).isEqualTo("method-not-allowed");
        assertThat(JsonErrorPages.describe(414, null)).isEqualTo(new ErrorBody("uri-too-long",
                "the request line is longer than 8192 bytes; shorten the path or the query string"));
        assertThat(JsonErrorPages.describe(431, null).error()).isEqualTo("headers-too-large");
        assertThat(JsonErrorPages.describe(426, null).error()).isEqualTo("http-version");
        assertThat(JsonErrorPages.describe(500, "java.lang.NullPointerException").message())
                .isEqualTo("the server failed to answer; the error is logged there");
        assertThat(JsonErrorPages.describe(418, null).error()).isEqualTo("bad-request");
        assertThat(JsonErrorPages.describe(418, null).message()).contains("418", "/openapi.json");
    }

    @Test
    void jettysReasonIsKeptOnlyWhenItIsShortPrintableTextThatNamesNoClass() {
        assertThat(JsonErrorPages.describe(400, "Bad UTF-8 encoding").message()).contains("(Bad UTF-8 encoding)");
        assertThat(JsonErrorPages.describe(400, "Bad Request").message()).doesNotContain("(Bad Request)");
        for (String reason : new String[] {
                "org.eclipse.jetty.http.BadMessageException: 400: Bad Request",
                "java.lang.IllegalArgumentException: x", "IllegalStateException", "failed\n\tat org.eclipse.Foo",
                "x".repeat(200), "caf\u00e9"}) {
            String message = JsonErrorPages.describe(400, reason).message();
            assertThat(message).as(reason).doesNotContain(reason).doesNotContain("Exception", "org.", "java.");
        }
    }
}
