package dev.tspipe.bench.faults;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The plan of faults is a function of the seed, with the counts asked for, inside the load; options fail fast. */
class FaultScheduleTest {

    @Test
    void theSameSeedPlansTheSameFaultsAndTheCountsAreThoseAskedFor() {
        FaultOptions options = FaultOptions.parse("--seed", "42", "--nodes", "3", "--seconds", "600");

        FaultSchedule plan = FaultSchedule.plan(options);

        assertThat(FaultSchedule.plan(FaultOptions.parse("--seed", "42", "--nodes", "3", "--seconds", "600"))).isEqualTo(plan);
        assertThat(FaultSchedule.plan(FaultOptions.parse("--seed", "43", "--nodes", "3", "--seconds", "600"))).isNotEqualTo(plan);
        assertThat(plan.nodeLane()).hasSize(20).allSatisfy(f -> {
            assertThat(f.kind()).isEqualTo(FaultSchedule.Kind.NODE);
            assertThat(f.node()).isBetween(0, 2);
        });
        assertThat(plan.serverLane()).filteredOn(f -> f.kind() == FaultSchedule.Kind.BROKER).hasSize(5);
        assertThat(plan.serverLane()).filteredOn(f -> f.kind() == FaultSchedule.Kind.REGISTRY).hasSize(3);
        for (List<FaultSchedule.Fault> lane : List.of(plan.nodeLane(), plan.serverLane())) {
            assertThat(lane).isSortedAccordingTo(java.util.Comparator.comparingLong(FaultSchedule.Fault::atMillis));
            assertThat(lane).allSatisfy(f -> {
                assertThat(f.atMillis()).isBetween(60_000L, 480_000L);
                assertThat(f.downMillis()).isBetween(3_000L, 8_000L);
            });
        }
    }

    @Test
    void aWriteBelongsToTheNewestFaultWhoseWindowHoldsIt() {
        long s = 1_000_000_000L;
        List<FaultSchedule.Window> windows = List.of(
                new FaultSchedule.Window(FaultSchedule.Kind.NODE, "node-0", 100 * s, 150 * s, true),
                new FaultSchedule.Window(FaultSchedule.Kind.BROKER, "broker+registry", 120 * s, 130 * s, true));

        assertThat(FaultSchedule.kindAt(windows, 110 * s)).isEqualTo("node");
        assertThat(FaultSchedule.kindAt(windows, 125 * s)).isEqualTo("broker+registry");
        assertThat(FaultSchedule.kindAt(windows, 96 * s)).as("within the margin before the kill").isEqualTo("node");
        assertThat(FaultSchedule.kindAt(windows, 90 * s)).isEqualTo("none");
        assertThat(FaultSchedule.kindAt(windows, 156 * s)).isEqualTo("none");
    }

    @Test
    void badOptionsNameTheOption() {
        assertThatThrownBy(() -> FaultOptions.parse("--rate", "0")).hasMessageStartingWith("--rate:");
        assertThatThrownBy(() -> FaultOptions.parse("--down-seconds", "8-3")).hasMessageStartingWith("--down-seconds:");
        assertThatThrownBy(() -> FaultOptions.parse("--duplicates", "1.5")).hasMessageStartingWith("--duplicates:");
        assertThatThrownBy(() -> FaultOptions.parse("--devices", "10")).hasMessageContaining("at least 100");
        assertThatThrownBy(() -> FaultOptions.parse("--frobnicate", "1")).hasMessageContaining("unknown option --frobnicate");
        assertThat(FaultOptions.parse("--short").nodeKills()).isEqualTo(2);
        assertThat(FaultOptions.parse("--short", "--failover").failover()).isTrue();
    }
}
