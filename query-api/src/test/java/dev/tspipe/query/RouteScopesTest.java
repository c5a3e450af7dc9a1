package dev.tspipe.query;

import dev.tspipe.query.auth.Scope;
import io.javalin.http.HandlerType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/security.md's table of routes and scopes is what a node with tokens enforces: the table lists every route the
 * server registers, and each route answers 401 without a token, 403 to a token of the scope below the one named, and
 * neither to a token of that scope. A server without a broker (as {@link QueryServerTest}) is enough: the token is
 * checked before any store or producer is touched.
 */
class RouteScopesTest {

    private static final Path DOC = Path.of("..", "docs", "security.md");
    private static final Pattern ROW = Pattern.compile("^\\| ([A-Z, ]+) \\| `([^`]+)` \\| (read|write|admin|open)\\b.*\\|$");
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path dir;

    private static TokenedNode node;

    record Route(String method, String path, String scope) {
    }

    @BeforeAll
    static void start() throws IOException {
        node = TokenedNode.start(dir, "route-scopes-test");
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    @Test
    void theTableListsEveryRouteTheServerRegisters() throws IOException {
        Set<String> documented = new TreeSet<>();
        for (Route route : documentedRoutes()) {
            documented.add(route.method() + " " + route.path());
        }
        Set<String> registered = new TreeSet<>();
        for (dev.tspipe.query.http.Route route : node.server().routes().routes()) {
            registered.add(route.method().name() + " " + route.path());
            if (route.method() == HandlerType.GET) {
                registered.add("HEAD " + route.path());
            }
        }
        assertThat(documented).isEqualTo(registered);
    }

    @Test
    void everyRouteNeedsTheScopeTheTableNames() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Route route : documentedRoutes()) {
            String path = route.path().replace("{device}", "dev-1").replace("{metric}", "temp").replace("{name}", "device");
            if (route.scope().equals("open")) {
                int status = send(route.method(), path, null);
                if (status == 401 || status == 403) {
                    wrong.add(route + ": " + status + " without a token");
                }
                continue;
            }
            Scope needed = Scope.parse(route.scope());
            expect(wrong, route, path, null, 401);
            if (needed.ordinal() > 0) {
                expect(wrong, route, path, node.token(Scope.values()[needed.ordinal() - 1]), 403);
            }
            int status = send(route.method(), path, node.token(needed));
            if (status == 401 || status == 403) {
                wrong.add(route + ": " + status + " with a token of scope " + needed.label());
            }
        }
        assertThat(wrong).isEmpty();
    }

    private static void expect(List<String> wrong, Route route, String path, String token, int expected) throws Exception {
        int status = send(route.method(), path, token);
        if (status != expected) {
            wrong.add(route + ": " + status + " instead of " + expected + (token == null ? " without a token" : " with a token of "
                    + "the scope below"));
        }
    }

    private static int send(String method, String path, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + path))
                .timeout(Duration.ofSeconds(20));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (method.equals("POST")) {
            request.header("Content-Type", "application/x-www-form-urlencoded");
        }
        request.method(method, HttpRequest.BodyPublishers.noBody());
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** One row per method of each route of the table (also {@link SecuredEdgeTest}'s list of routes). */
    static List<Route> documentedRoutes() throws IOException {
        String doc = Files.readString(DOC);
        int start = doc.indexOf("### Routes and the scope each needs");
        assertThat(start).as("docs/security.md has the section 'Routes and the scope each needs'").isNotNegative();
        List<Route> routes = new ArrayList<>();
        for (String line : doc.substring(start).split("\n")) {
            if (line.startsWith("#") && !routes.isEmpty()) {
                break;
            }
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                Arrays.stream(row.group(1).split(",")).map(String::trim)
                        .forEach(method -> routes.add(new Route(method, row.group(2), row.group(3))));
            }
        }
        assertThat(routes).as("routes in docs/security.md").hasSizeGreaterThan(20);
        return routes;
    }
}
