package dev.tspipe.bench.e2e;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop load generator: requests are scheduled at a fixed rate and each latency is taken
 * from the request's <em>intended</em> send time, so a server (or client) that falls behind is
 * charged for the wait of every request queued behind it (no coordinated omission).
 */
final class QueryLoad {

    /** Latencies in milliseconds; errors are non-200 answers, failed requests, timeouts and requests not sent (saturation). */
    record Result(long requests, long errors, double p50Ms, double p99Ms, double p999Ms, double maxMs) {
    }

    private static final int MAX_IN_FLIGHT = 2_048;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** How long past its duration a step may run while the server is saturated. */
    private static final Duration CUT_OFF = Duration.ofSeconds(3);

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /** Sends {@code rate} requests per second for {@code duration}, each to a URI drawn at random from {@code uris}. */
    Result run(List<URI> uris, int rate, Duration duration) {
        Histogram histogram = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(2), 3);
        AtomicLong errors = new AtomicLong();
        Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
        SplittableRandom random = new SplittableRandom(rate);
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long total = duration.toSeconds() * rate;
        long start = System.nanoTime();
        long cutOff = start + duration.plus(CUT_OFF).toNanos();
        long unsent = 0;
        for (long i = 0; i < total; i++) {
            long intended = start + i * interval;
            long wait = intended - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            // Waits when the server is too far behind (the intended time keeps the wait in the
            // figures); a server that cannot keep up at all is given up on at the cut-off, and the
            // requests not sent count as errors.
            if (!acquire(inFlight, cutOff)) {
                unsent = total - i;
                break;
            }
            HttpRequest request = HttpRequest.newBuilder(uris.get(random.nextInt(uris.size())))
                    .timeout(REQUEST_TIMEOUT).GET().build();
            client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, failure) -> {
                histogram.recordValue(Math.max(0, (System.nanoTime() - intended) / 1_000));
                if (failure != null || response.statusCode() != 200) {
                    errors.incrementAndGet();
                }
                inFlight.release();
            });
        }
        inFlight.acquireUninterruptibly(MAX_IN_FLIGHT);
        inFlight.release(MAX_IN_FLIGHT);
        return new Result(histogram.getTotalCount() + unsent, errors.get() + unsent,
                histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0,
                histogram.getValueAtPercentile(99.9) / 1000.0, histogram.getMaxValue() / 1000.0);
    }

    private static boolean acquire(Semaphore inFlight, long cutOff) {
        try {
            return inFlight.tryAcquire(Math.max(0, cutOff - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
