package dev.tspipe.query.http;

import dev.tspipe.query.error.ApiException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Which raw paths and query strings pass, and how a refusal names what to fix. */
class UriCheckTest {

    @Test
    void wellFormedPathsAndQueriesPass() {
        for (String path : List.of("/api/v1/series/sensor-1/temperature/latest", "/api/v1/series/Caf%C3%A9/m/latest",
                "/api/v1/series/a%2Fb/m/latest", "/api/v1/series/%F0%9F%98%80/m/latest", "/x;a=b/y", "/a+b", "/", "")) {
            assertThatCode(() -> UriCheck.requireWellFormedPath(path)).as(path).doesNotThrowAnyException();
        }
        for (String query : List.of("limit=5&order=asc", "from=2026-11-01T00%3A00%3A00Z", "a=b+c", "flag", "&&", "=",
                "tenant=%E2%82%AC", "cursor=AQAAAAGiSh0B6K3f0aQ")) {
            assertThatCode(() -> UriCheck.requireWellFormedQuery(query)).as(query).doesNotThrowAnyException();
        }
        assertThatCode(() -> UriCheck.requireWellFormedQuery(null)).doesNotThrowAnyException();
    }

    @Test
    void malformedPathsAre400NamingThePath() {
        for (String path : List.of("/a%zz/m", "/a%/m", "/a%4/m", "/x;a=%G1/y", "/a%C3%28", "/a%C0%AF", "/a%ED%A0%80",
                "/a%F8%88%80%80%80", "/a%FF", "/a%00b", "/a%0A", "/a%7F", "/a%C2%85", "/caf\u00e9")) {
            ApiException e = catchThrowableOfType(ApiException.class, () -> UriCheck.requireWellFormedPath(path));
            assertThat(e).as(path).isNotNull();
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.getMessage()).as(path).startsWith("path: the segment '");
        }
    }

    @Test
    void malformedQueryStringsAre400NamingTheParameterOrTheQueryString() {
        Map<String, String> cases = Map.of(
                "limit=%zz", "limit: ",
                "order=asc&from=%C3%28", "from: ",
                "tenant=%00", "tenant: ",
                "cursor=abc%", "cursor: ",
                "%E2%82=1", "query string: ",
                "li%mit=1", "query string: ",
                "x=\u00e9", "x: ");
        cases.forEach((query, prefix) -> {
            ApiException e = catchThrowableOfType(ApiException.class, () -> UriCheck.requireWellFormedQuery(query));
            assertThat(e).as(query).isNotNull();
            assertThat(e.code()).isEqualTo("bad-parameter");
            assertThat(e.getMessage()).as(query).startsWith(prefix).contains("percent-encoded UTF-8");
        });
    }

    @Test
    void refusalsShowTheRawTextPrintableAndShort() {
        ApiException e = catchThrowableOfType(ApiException.class,
                () -> UriCheck.requireWellFormedQuery("from=" + "9".repeat(500) + "%zz"));
        assertThat(e.getMessage()).contains("'" + "9".repeat(64) + "...'").hasSizeLessThan(300);
        ApiException raw = catchThrowableOfType(ApiException.class, () -> UriCheck.requireWellFormedQuery("x=a\u0001b"));
        assertThat(raw.getMessage()).contains("'a?b'");
    }
}
