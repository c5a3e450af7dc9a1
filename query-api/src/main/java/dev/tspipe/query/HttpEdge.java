package dev.tspipe.query;

import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.server.HttpConfiguration;

/**
 * What every connector of the query API does to every request and answer at Jetty's level, before Javalin or a route
 * sees them (docs/security.md, "Limits"). One {@link HttpConfiguration} serves the plain and the HTTPS connector.
 */
final class HttpEdge {

    /**
     * On every answer: a browser must not run an answer as what it guesses from its bytes (a 404 or a JSON body that
     * echoes {@code <img src=x onerror=...>} from the path is no page).
     */
    static final HttpField NOSNIFF = new PreEncodedHttpField("X-Content-Type-Options", "nosniff");

    private HttpEdge() {
    }

    /** Sets the edge's rules on {@code httpConfig}, which the connectors are then made from. */
    static void configure(HttpConfiguration httpConfig) {
        httpConfig.setRequestHeaderSize(JsonErrorPages.REQUEST_HEADER_BYTES);
        httpConfig.setSendServerVersion(false);
        // Jetty's header cache, by default case-insensitive, hands a header line that equals a previous one but for
        // case the previous one's value: a case variant of a bearer token would pass as the token itself.
        httpConfig.setHeaderCacheCaseSensitive(true);
        // A customizer runs for each request before any handler, error pages of Jetty's included, and Javalin's
        // answers keep the response's headers: so no answer can leave it out.
        httpConfig.addCustomizer((request, responseHeaders) -> {
            responseHeaders.put(NOSNIFF);
            return request;
        });
    }
}
