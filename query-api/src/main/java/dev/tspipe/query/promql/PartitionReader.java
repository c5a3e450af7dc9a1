package dev.tspipe.query.promql;

import dev.tspipe.model.keys.InvalidKeyException;
import dev.tspipe.model.keys.KeyLayout;
import dev.tspipe.model.keys.KeyRange;
import dev.tspipe.model.keys.RowKey;
import dev.tspipe.model.keys.SeriesId;
import dev.tspipe.query.downsample.Aggregate;
import dev.tspipe.query.downsample.Resolution;
import dev.tspipe.query.error.ApiException;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads a query's series from one partition through its {@link SeriesSource}: which keys to scan, which series of
 * them the selector picks, and their values at each instant from the resolution that {@link Leaf#resolution} names.
 */
public final class PartitionReader {

    /** The most series one query reads (docs/query-api.md, "Prometheus API"). */
    public static final int MAX_SERIES = 10_000;
    /** The most points (series times instants) one query computes; Prometheus' own default is 50,000,000. */
    public static final long MAX_POINTS = 5_000_000;

    private final KeyLayout layout;

    public PartitionReader(KeyLayout layout) {
        this.layout = layout;
    }

    /**
     * The partition's series that {@code selection} picks and whose newest reading is at or after {@code since}, within
     * {@code budget} (a 422 when its regular-expression steps are spent, a 503 timeout past its deadline).
     */
    public PartitionSeries series(SeriesSource source, SeriesSelection selection, long since, QueryBudget budget) {
        return new PartitionSeries(select(source, selection, since, budget));
    }

    /** The partition's series that the leaf's selector picks, with the leaf's value at each instant, within {@code budget}. */
    public PartitionSeries values(SeriesSource source, Leaf leaf, Instants instants, QueryBudget budget) {
        // A series whose newest reading is before the first window has no point in any.
        List<PartitionSeries.Values> selected = select(source, leaf.selection(), leaf.readFrom(instants), budget);
        requireBounded(selected.size(), instants);
        Resolution resolution = leaf.resolution(instants);
        List<PartitionSeries.Values> answer = new ArrayList<>(selected.size());
        for (PartitionSeries.Values one : selected) {
            budget.checkDeadline();
            List<Aggregate> aggregates = source.aggregates(one.series(), leaf.readFrom(instants), instants.end(), resolution);
            Aggregate before = leaf.function().needsReadings()
                    ? source.readingBefore(one.series(), leaf.readFrom(instants)) : null;
            answer.add(new PartitionSeries.Values(one.series(), one.latest(), leaf.evaluate(instants, aggregates, before)));
        }
        return new PartitionSeries(answer);
    }

    /** 422 when a query would compute more than it may. */
    public static void requireBounded(long series, Instants instants) {
        if (series > MAX_SERIES) {
            throw ApiException.unprocessable("the selector picks more than " + MAX_SERIES + " series; narrow it (a device, "
                    + "a metric name)");
        }
        if (series * instants.count() > MAX_POINTS) {
            throw ApiException.unprocessable("the query would compute " + series * instants.count() + " points ("
                    + series + " series x " + instants.count() + " instants); at most " + MAX_POINTS
                    + ": a longer step, a shorter range or fewer series");
        }
    }

    private List<PartitionSeries.Values> select(SeriesSource source, SeriesSelection selection, long since,
                                               QueryBudget budget) {
        Optional<KeyRange> range;
        try {
            range = scanRange(selection);
        } catch (InvalidKeyException notAKey) {
            return List.of();   // the device or tenant named is one no key can hold (too long, say): no series has it
        }
        List<PartitionSeries.Values> selected = new ArrayList<>();
        source.forEachSeries(range, (series, newestMillis) -> {
            budget.checkDeadline();
            if (!selection.matches(series, budget)) {
                return;
            }
            long newest = newestMillis.getAsLong();
            if (newest < since) {
                return;
            }
            if (selected.size() == MAX_SERIES) {
                requireBounded(MAX_SERIES + 1, Instants.single(0));
            }
            selected.add(new PartitionSeries.Values(series, newest, null));
        });
        return selected;
    }

    /**
     * The keys the selector can pick: the one device's it names (when its tenant is known, in a multi-tenant layout),
     * else the one tenant's it is confined to (unsalted layouts: salting spreads a tenant over every salt prefix), else
     * every key. An {@link InvalidKeyException} when no key can hold the device's or tenant's name.
     */
    private Optional<KeyRange> scanRange(SeriesSelection selection) {
        Optional<String> device = selection.device();
        Optional<String> tenant = selection.tenant();
        if (layout.multiTenant() && tenant.isEmpty()) {
            return Optional.empty();
        }
        if (device.isPresent()) {
            return Optional.of(RowKey.deviceRange(layout, layout.multiTenant() ? tenant.get() : null, device.get()));
        }
        if (layout.multiTenant() && !layout.salted()) {
            return Optional.of(RowKey.tenantRange(layout, tenant.get()));
        }
        return Optional.empty();
    }
}
