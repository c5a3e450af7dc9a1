package dev.tspipe.query.devices;

import dev.tspipe.query.auth.Scope;
import dev.tspipe.query.http.Route;
import dev.tspipe.query.http.RouteGroup;

import java.util.ArrayList;
import java.util.List;

/** The device routes' groups: the public ones (GET), and the one another instance asks for its devices' latest readings. */
public final class DeviceRoutes {

    private DeviceRoutes() {
    }

    public static List<RouteGroup> of(DevicesApi api) {
        List<Route> public_ = new ArrayList<>();
        api.routes().forEach((path, handler) -> public_.add(Route.get(path, Scope.READ, handler)));
        List<Route> internal = new ArrayList<>();
        api.internalRoutes().forEach((path, handler) -> internal.add(Route.post(path, Scope.READ, handler)));
        return List.of(RouteGroup.of("devices", public_), RouteGroup.of("devices-internal", internal).undocumented());
    }
}
