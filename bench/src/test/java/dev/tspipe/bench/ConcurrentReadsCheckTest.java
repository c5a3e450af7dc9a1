package dev.tspipe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short run of {@link ConcurrentReadsCheck}: readers against the series store while it ingests, commits, seals
 * across two day boundaries and drops raw segments; every answer must be the model's at a commit boundary within the
 * read. The seed is printed (rerun with -Dtspipe.seed=S); the long run's figures are in docs/reliability.md.
 */
class ConcurrentReadsCheckTest {

    @TempDir
    Path dir;

    @Test
    void everyAnswerWhileTheStoreCommitsSealsAndDropsSegmentsIsTheModelsAtACommitBoundary() {
        long seed = Long.getLong("tspipe.seed", System.nanoTime());
        ConcurrentReadsCheck.Result result = ConcurrentReadsCheck.run(
                new ConcurrentReadsCheck.Options(seed, 5_000, 20, 2, 100, 2, dir.resolve("store"), false));
        System.out.println("ConcurrentReadsCheckTest: " + result + " (rerun with -Dtspipe.seed=" + seed + ")");
        assertThat(result.firstMismatches()).as("seed %d: %s", seed, result).isEmpty();
        assertThat(result.mismatches()).as("seed %d", seed).isZero();
        assertThat(result.seals()).as("seed %d: seals", seed).isGreaterThanOrEqualTo(20);
        assertThat(result.sealedDays()).as("seed %d: day boundaries sealed", seed).isGreaterThanOrEqualTo(2);
        assertThat(result.heldReads()).as("seed %d: reads held open across commits", seed).isPositive();
    }
}
