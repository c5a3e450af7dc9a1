package dev.tspipe.query.auth;

/**
 * What one token allows: a tenant ({@code null} for every tenant) and a scope, with the name the
 * tokens file gives it (its line number when it has none), which may be shown where the token never is.
 */
public record Grant(String tenant, Scope scope, String name) {

    /** The tenant column of a token for every tenant. */
    public static final String EVERY_TENANT = "*";

    /** True if the token may read every tenant. */
    public boolean everyTenant() {
        return tenant == null;
    }

    /** The tenant as the tokens file writes it. */
    public String tenantLabel() {
        return tenant == null ? EVERY_TENANT : tenant;
    }
}
