package dev.tspipe.query.http;

import dev.tspipe.query.auth.Scope;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;

/**
 * One route of the API: its method, its path (Javalin's, with {@code {name}} segments), the scope of token it needs
 * (null: anyone, as the probes and the API's description), and its handler. A {@code GET} route answers {@code HEAD}
 * with the same handler. The route table registers exactly these, and the OpenAPI and scope tests read the same list.
 */
public record Route(HandlerType method, String path, Scope scope, Handler handler) {

    public static Route get(String path, Scope scope, Handler handler) {
        return new Route(HandlerType.GET, path, scope, handler);
    }

    public static Route post(String path, Scope scope, Handler handler) {
        return new Route(HandlerType.POST, path, scope, handler);
    }

    /** A GET route that needs no token. */
    public static Route open(String path, Handler handler) {
        return new Route(HandlerType.GET, path, null, handler);
    }

    public boolean needsToken() {
        return scope != null;
    }

    /** Whether {@code requestPath} (without trailing slashes) names this route: {@code {name}} matches one segment. */
    boolean matches(String requestPath) {
        String[] template = path.split("/", -1);
        String[] asked = requestPath.split("/", -1);
        if (template.length != asked.length) {
            return false;
        }
        for (int i = 0; i < template.length; i++) {
            boolean parameter = template[i].startsWith("{") && template[i].endsWith("}");
            if (parameter ? asked[i].isEmpty() : !template[i].equals(asked[i])) {
                return false;
            }
        }
        return true;
    }
}
