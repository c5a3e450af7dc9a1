package dev.tspipe.query.downsample;

import dev.tspipe.processor.store.RollupStep;
import dev.tspipe.processor.store.StoreNames;

import java.util.List;

/**
 * Where a downsampled series is read from: the raw readings, or the coarsest stored rollup whose
 * buckets each fall in one bucket of the request and cover its window exactly, so that the answer is
 * the same as from the raw readings (docs/query-api.md, "Downsampling").
 *
 * @param rollup the rollup resolution, or null for the raw readings
 */
public record Resolution(RollupStep rollup) {

    public static final Resolution RAW = new Resolution(null);

    /**
     * The coarsest rollup of size {@code r} such that the step and the alignment are multiples of {@code r}, and
     * {@code from} and {@code to} are on its bucket boundaries (no rollup bucket holds readings outside the window);
     * the raw readings for {@code first} (rollups do not keep it) and when none fits.
     */
    public static Resolution choose(Downsampler.Request request) {
        if (!request.fn().fromRollups()) {
            return RAW;
        }
        for (RollupStep step : List.of(RollupStep.DAY, RollupStep.HOUR, RollupStep.MINUTE)) {
            long size = step.sizeMillis();
            if (request.step() % size == 0 && Math.floorMod(request.align(), size) == 0
                    && Math.floorMod(request.from(), size) == 0 && Math.floorMod(request.to(), size) == 0) {
                return new Resolution(step);
            }
        }
        return RAW;
    }

    /** The store the points are read from. */
    public String store() {
        return rollup == null ? StoreNames.RAW : StoreNames.rollup(rollup);
    }

    /** As answers name it: {@code raw}, {@code rollups-1m}, {@code rollups-1h}, {@code rollups-1d}. */
    public String label() {
        return rollup == null ? "raw" : "rollups-" + rollup.label();
    }
}
