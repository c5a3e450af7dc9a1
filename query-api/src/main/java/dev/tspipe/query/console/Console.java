package dev.tspipe.query.console;

import dev.tspipe.query.http.Route;
import dev.tspipe.query.http.RouteGroup;
import java.util.ArrayList;
import java.util.List;

import io.javalin.http.Context;
import io.javalin.http.Handler;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The web console (docs/console.md): a page, its script and its style, in the jar under {@code console/}, served at
 * {@code GET /} and {@code GET /console/...}. They are open to anyone, as {@code /openapi.json} is: they hold no data;
 * the page asks the API from the browser, with the token the user gives it.
 *
 * <p>Each answer has its content type, an ETag and {@code Cache-Control: no-cache}: a browser asks again each time
 * and gets a 304 while the file is the same, so a node that was upgraded never serves an old script with a new page.
 * {@code X-Content-Type-Options: nosniff} is on every answer of the API ({@link HttpEdge}), these included.
 * The Content-Security-Policy lets the page load and call only this origin (no CDN, no inline script).
 */
public final class Console {

    /** The page; the other paths are its assets. */
    public static final String PAGE = "/";

    private static final String RESOURCES = "/console/";
    private static final String SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private record Asset(byte[] bytes, String contentType, String etag) {
    }

    private Console() {
    }

    /** The console's files, open to anyone (the page asks for a token itself) and not in the API's description. */
    public static RouteGroup group() {
        List<Route> routes = new ArrayList<>();
        routes().forEach((path, handler) -> routes.add(Route.open(path, handler)));
        return RouteGroup.of("console", routes).undocumented();
    }

    /** Each path with its handler, the files read from the classpath now (a file missing from the jar fails the start). */
    public static Map<String, Handler> routes() {
        Map<String, Handler> routes = new LinkedHashMap<>();
        routes.put(PAGE, serve(asset("index.html", "text/html;charset=utf-8")));
        routes.put(RESOURCES + "console.js", serve(asset("console.js", "text/javascript;charset=utf-8")));
        routes.put(RESOURCES + "console.css", serve(asset("console.css", "text/css;charset=utf-8")));
        return routes;
    }

    private static Handler serve(Asset asset) {
        return ctx -> {
            ctx.header("Cache-Control", "no-cache");
            ctx.header("ETag", asset.etag());
            ctx.header("Content-Security-Policy", SECURITY_POLICY);
            ctx.header("Referrer-Policy", "no-referrer");
            if (notModified(ctx, asset.etag())) {
                ctx.status(304);
                return;
            }
            ctx.contentType(asset.contentType()).result(asset.bytes());
        };
    }

    /** Whether {@code If-None-Match} names the asset's ETag (or is {@code *}). */
    private static boolean notModified(Context ctx, String etag) {
        String header = ctx.header("If-None-Match");
        if (header == null) {
            return false;
        }
        for (String candidate : header.split(",")) {
            String tag = candidate.trim();
            if (tag.equals("*") || tag.equals(etag) || tag.equals("W/" + etag)) {
                return true;
            }
        }
        return false;
    }

    private static Asset asset(String name, String contentType) {
        String resource = RESOURCES + name;
        try (InputStream in = Console.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the classpath: the query-api jar is incomplete");
            }
            byte[] bytes = in.readAllBytes();
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            String etag = "\"" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest).substring(0, 22) + "\"";
            return new Asset(bytes, contentType, etag);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
