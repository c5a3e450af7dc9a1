package dev.tspipe.ingest;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Progress of a long task (an import, a replay): a terminal progress bar with rate and ETA, or
 * nothing. A bar is only drawn when asked for and a terminal is attached, so that piped output,
 * logs and tests stay free of control characters.
 */
public interface Progress extends AutoCloseable {

    /** {@code amount} more units are done. */
    void stepBy(long amount);

    /** A short note shown after the bar (counts of rejects, errors). */
    void note(String message);

    @Override
    void close();

    /** No output at all. */
    static Progress none() {
        return new Progress() {
            @Override
            public void stepBy(long amount) {
            }

            @Override
            public void note(String message) {
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * A progress bar on the terminal when {@code enabled} and a console is attached, else {@link #none()}.
     *
     * @param total    units of work in all, for the ETA
     * @param unit     name of the displayed unit, e.g. {@code MiB} or {@code records}
     * @param unitSize how many counted units make one displayed unit
     */
    static Progress bar(boolean enabled, String task, long total, String unit, long unitSize) {
        if (!enabled || System.console() == null) {
            return none();
        }
        ProgressBar bar = new ProgressBarBuilder()
                .setTaskName(task)
                .setInitialMax(Math.max(total, 1))
                .setStyle(ProgressBarStyle.ASCII)
                .setUnit(" " + unit, unitSize)
                .showSpeed()
                .setUpdateIntervalMillis(250)
                .build();
        return new Progress() {
            @Override
            public void stepBy(long amount) {
                bar.stepBy(amount);
            }

            @Override
            public void note(String message) {
                bar.setExtraMessage(message);
            }

            @Override
            public void close() {
                bar.close();
            }
        };
    }
}
