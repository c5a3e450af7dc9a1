package dev.tspipe.model.keys;

/**
 * The layout options of a deployment's row keys. Every key of a store has the same layout; a
 * layout is fixed for the life of the data (changing it means rebuilding the stores).
 *
 * @param multiTenant whether every key starts with a tenant segment. A deployment is either
 *                    single-tenant (no key has a tenant) or multi-tenant (every key has one),
 *                    never mixed: a mixed store would let the scan of device {@code d} return the
 *                    rows of tenant {@code d}.
 * @param salted      whether every key starts with a 4-hex-character hash of its device
 *                    (Tablestore's hash prefix), spreading sequential device ids over the key
 *                    space at the price of scans across devices
 */
public record KeyLayout(boolean multiTenant, boolean salted) {

    /** The default: single-tenant, unsalted keys {@code device#metric#reversedTs}. */
    public static final KeyLayout DEFAULT = new KeyLayout(false, false);

    /** Unsalted keys {@code tenant#device#metric#reversedTs}. */
    public static final KeyLayout MULTI_TENANT = new KeyLayout(true, false);

    public KeyLayout withSalt() {
        return new KeyLayout(multiTenant, true);
    }
}
