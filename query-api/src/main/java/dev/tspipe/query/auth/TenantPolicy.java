package dev.tspipe.query.auth;

import dev.tspipe.query.error.ApiException;
import io.javalin.http.Context;

/**
 * Which tenant a request reads or writes (docs/security.md, "Tenants"): the one rule for every route. In a single-tenant
 * deployment there is none. In a multi-tenant one, a token bound to a tenant reaches that tenant only: a request that
 * names another is refused with 403, whether or not that tenant has data (the answer tells nothing about other
 * tenants); a token for every tenant, or no tokens at all, reaches the tenant the request names.
 */
public final class TenantPolicy {

    /** The request attribute that holds the {@link Grant} of the request's token, set by the route's guard. */
    public static final String GRANT = "tspipe.grant";

    private final boolean multiTenant;

    public TenantPolicy(boolean multiTenant) {
        this.multiTenant = multiTenant;
    }

    public boolean multiTenant() {
        return multiTenant;
    }

    /**
     * The one tenant a read may see: none in a single-tenant deployment (naming one is a 400); else the token's tenant,
     * or the one {@code named} (from the request's {@code tenant} parameter), or null for any when it names none.
     */
    public String readable(Context ctx, String named) {
        if (!multiTenant) {
            if (named != null) {
                throw ApiException.badParameter("tenant", "this deployment is single-tenant: remove the tenant parameter");
            }
            return null;
        }
        String bound = boundTenant(ctx, named, "reads", "ask without the tenant parameter, or with tenant=");
        return bound != null ? bound : namesOne(named) ? named : null;
    }

    /** The tenant of a read of one device or series, from {@code ?tenant=}: required in a multi-tenant deployment. */
    public String required(Context ctx) {
        String tenant = readable(ctx, ctx.queryParam("tenant"));
        if (multiTenant && tenant == null) {
            throw ApiException.badParameter("tenant", "this deployment is multi-tenant: add ?tenant=<tenant id>");
        }
        return tenant;
    }

    /**
     * The tenant of a write: none in a single-tenant deployment (the bucket or database is then only a name); else the
     * token's tenant, or with a token for every tenant (or no tokens) the one {@code named} by {@code parameter}.
     */
    public String writable(Context ctx, String named, String parameter) {
        if (!multiTenant) {
            return null;
        }
        String bound = boundTenant(ctx, named, "writes", "leave " + parameter + " out, or name ");
        if (bound != null) {
            return bound;
        }
        if (!namesOne(named)) {
            throw ApiException.badParameter(parameter, "this deployment is multi-tenant: " + parameter + " names the tenant");
        }
        return named;
    }

    /** The tenant of the request's token when it is bound to one (403 when the request names another), else null. */
    private static String boundTenant(Context ctx, String named, String verb, String advice) {
        Grant grant = ctx.attribute(GRANT);
        if (grant == null || grant.everyTenant()) {
            return null;
        }
        if (namesOne(named) && !named.equals(grant.tenant())) {
            throw ApiException.forbidden("this token " + verb + " tenant '" + grant.tenant() + "' only; " + advice
                    + grant.tenant());
        }
        return grant.tenant();
    }

    private static boolean namesOne(String named) {
        return named != null && !named.isEmpty();
    }
}
