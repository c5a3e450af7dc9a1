package dev.tspipe.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The rate over a tenth of the input, from the committed offsets the monitor polled. */
class CatchUpMonitorTest {

    private static CatchUpMonitor.Sample at(double seconds, long committed) {
        return new CatchUpMonitor.Sample((long) (seconds * 1e9), committed);
    }

    @Test
    void theRateOfATenthRunsFromTheFirstPollThatReachedItsStartToTheFirstThatReachedItsEnd() {
        // 1,000 records: commits at 1 s intervals, fast at first (200/s), slow at the end (50/s).
        List<CatchUpMonitor.Sample> samples = List.of(at(0, 0), at(1, 200), at(2, 400), at(3, 600), at(4, 800),
                at(5, 850), at(6, 900), at(7, 950), at(8, 1_000));
        assertThat(CatchUpMonitor.rateOfTenth(samples, 1_000, 0)).isCloseTo(200.0, within(1e-9));
        // The last tenth starts at 900 (t = 6 s) and ends at 1,000 (t = 8 s).
        assertThat(CatchUpMonitor.rateOfTenth(samples, 1_000, 9)).isCloseTo(50.0, within(1e-9));
    }

    @Test
    void theFirstCommitIsTheFirstPollThatSawRecordsCommitted() {
        List<CatchUpMonitor.Sample> samples = List.of(at(0, 0), at(0.25, 0), at(3.5, 120), at(4.5, 300));
        assertThat(CatchUpMonitor.secondsToFirstCommit(samples, 0)).isCloseTo(3.5, within(1e-9));
        assertThat(CatchUpMonitor.secondsToFirstCommit(List.of(at(0, 0)), 0)).isNaN();
    }

    @Test
    void aCommitThatCoversAWholeTenthIsMeasuredFromThePollBeforeIt() {
        // The last commit takes the group from 850 to 1,000 in one step, seen at 9 s; the poll before it was at 8 s.
        List<CatchUpMonitor.Sample> samples = List.of(at(0, 0), at(4, 400), at(8, 850), at(9, 1_000), at(9.1, 1_000));
        assertThat(CatchUpMonitor.rateOfTenth(samples, 1_000, 9)).isCloseTo(150.0, within(1e-9));
    }

    @Test
    void aTenthTheSamplesDoNotReachHasNoRate() {
        List<CatchUpMonitor.Sample> samples = List.of(at(0, 0), at(1, 500));
        assertThat(CatchUpMonitor.rateOfTenth(samples, 1_000, 9)).isNaN();
    }
}
