package dev.tspipe.bench.e2e;

import dev.tspipe.bench.e2e.KeepAliveConnection.Endpoint;
import dev.tspipe.bench.e2e.KeepAliveConnection.Get;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop load generator: requests are scheduled at a fixed rate and each latency is taken
 * from the request's <em>intended</em> send time, so a server (or client) that falls behind is
 * charged for the wait of every request queued behind it (no coordinated omission).
 *
 * <p>The calling thread schedules; a fixed pool of blocking workers, each with one kept-alive
 * connection per endpoint ({@link KeepAliveConnection}), sends. Blocking sockets cost the client
 * little CPU, which matters on 2 cores shared with the server under test. A request waits in the
 * queue while every worker is busy, and that wait is part of its latency.
 */
final class QueryLoad {

    /**
     * Latencies in milliseconds; errors are the requests not answered 200: other statuses, failed
     * requests, timeouts and requests not sent before the cut-off (saturation).
     */
    record Result(long requests, long errors, double p50Ms, double p99Ms, double p999Ms, double maxMs, Floor floor) {
    }

    /**
     * The latencies of the floor requests sent in the same step (one for every {@link #FLOOR_EVERY} of the step's own,
     * on top of them), or null when the step had none.
     */
    record Floor(long requests, long errors, double p50Ms, double p99Ms, double p999Ms, double maxMs) {
    }

    /** A step with floor URIs sends one of them after every this many of its own requests, at the same intended time. */
    static final int FLOOR_EVERY = 4;

    /**
     * Connections per endpoint, so the most requests a server is asked to answer at once: a
     * server slower than 64 divided by the rate (64 ms at 1,000 req/s) builds a queue here.
     */
    private static final int WORKERS = 64;
    /** Queued and in-flight requests; past it the scheduler waits (the intended times keep the wait in the figures). */
    private static final int MAX_IN_FLIGHT = 2_048;
    /** How long past its duration a step may run while the server is saturated. */
    private static final Duration CUT_OFF = Duration.ofSeconds(3);

    /**
     * Sends {@code rate} requests per second for {@code duration}, each to a URI drawn at random from {@code uris}; and,
     * when {@code floorUris} are given, one to a URI drawn from them after every {@link #FLOOR_EVERY} of those, at the
     * same moment, measured apart: the floor of this step, under the same load at the same time.
     */
    Result run(List<URI> uris, List<URI> floorUris, int rate, Duration duration) {
        if (uris.isEmpty() || rate <= 0) {
            throw new IllegalArgumentException("no URIs or no rate: " + uris.size() + " URIs at " + rate + " req/s");
        }
        List<Get> gets = uris.stream().map(Get::of).toList();
        List<Get> floorGets = floorUris.stream().map(Get::of).toList();
        long total = duration.toSeconds() * rate;
        Step step = new Step();
        List<Thread> workers = step.startWorkers();
        try {
            step.schedule(gets, floorGets, rate, total, duration);
        } finally {
            step.stop(workers);
        }
        return step.result(total, floorGets.isEmpty() ? 0 : total / FLOOR_EVERY);
    }

    Result run(List<URI> uris, int rate, Duration duration) {
        return run(uris, List.of(), rate, duration);
    }

    /** A request as scheduled: the time it should have been sent at, what to send, and whether it is a floor request. */
    private record Request(long intended, Get get, boolean floor) {
    }

    /** The state of one call of {@link #run}, shared by the scheduler and the workers. */
    private static final class Step {

        /** Tells a worker that no more requests follow. */
        private static final Request STOP = new Request(0, null, false);

        private final BlockingQueue<Request> queue = new LinkedBlockingQueue<>();
        private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
        private final Histogram histogram = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(2), 3);
        private final AtomicLong answered = new AtomicLong();
        private final Histogram floorHistogram = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(2), 3);
        private final AtomicLong floorAnswered = new AtomicLong();
        /** Set by the scheduler before it queues the first request. */
        private volatile long cutOff;

        List<Thread> startWorkers() {
            List<Thread> workers = new ArrayList<>(WORKERS);
            for (int i = 0; i < WORKERS; i++) {
                Thread worker = new Thread(this::work, "query-load-" + i);
                worker.setDaemon(true);
                worker.start();
                workers.add(worker);
            }
            return workers;
        }

        /**
         * Queues {@code total} requests at their intended times. Waits when the server is too far
         * behind; a server that cannot keep up at all is given up on at the cut-off, and the
         * requests not sent count as errors.
         */
        void schedule(List<Get> gets, List<Get> floorGets, int rate, long total, Duration duration) {
            SplittableRandom random = new SplittableRandom(rate);
            long interval = TimeUnit.SECONDS.toNanos(1) / rate;
            long start = System.nanoTime();
            cutOff = start + duration.plus(CUT_OFF).toNanos();
            for (long i = 0; i < total; i++) {
                long intended = start + i * interval;
                for (long wait = intended - System.nanoTime(); wait > 0; wait = intended - System.nanoTime()) {
                    LockSupport.parkNanos(wait);
                }
                if (!acquire()) {
                    return;
                }
                queue.add(new Request(intended, gets.get(random.nextInt(gets.size())), false));
                if (!floorGets.isEmpty() && i % FLOOR_EVERY == FLOOR_EVERY - 1) {
                    if (!acquire()) {
                        return;
                    }
                    queue.add(new Request(intended, floorGets.get(random.nextInt(floorGets.size())), true));
                }
            }
        }

        /** Lets every worker finish what it has, then waits for all of them: their connections close as they end. */
        void stop(List<Thread> workers) {
            workers.forEach(worker -> queue.add(STOP));
            boolean interrupted = false;
            for (Thread worker : workers) {
                while (worker.isAlive()) {
                    try {
                        worker.join();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        Result result(long total, long floorTotal) {
            Floor floor = floorTotal == 0 ? null : new Floor(floorTotal, floorTotal - floorAnswered.get(),
                    floorHistogram.getValueAtPercentile(50) / 1000.0, floorHistogram.getValueAtPercentile(99) / 1000.0,
                    floorHistogram.getValueAtPercentile(99.9) / 1000.0, floorHistogram.getMaxValue() / 1000.0);
            return new Result(total, total - answered.get(),
                    histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0,
                    histogram.getValueAtPercentile(99.9) / 1000.0, histogram.getMaxValue() / 1000.0, floor);
        }

        private boolean acquire() {
            try {
                return inFlight.tryAcquire(Math.max(0, cutOff - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        private void work() {
            Map<Endpoint, KeepAliveConnection> connections = new HashMap<>();
            try {
                for (Request request = take(); request != STOP; request = take()) {
                    try {
                        handle(request, connections);
                    } finally {
                        inFlight.release();
                    }
                }
            } finally {
                connections.values().forEach(KeepAliveConnection::close);
            }
        }

        /** Workers are never interrupted; should one be, it stops as if told to. */
        private Request take() {
            try {
                return queue.take();
            } catch (InterruptedException e) {
                return STOP;
            }
        }

        /** Requests still queued at the cut-off are not sent: they are errors, with no latency. */
        private void handle(Request request, Map<Endpoint, KeepAliveConnection> connections) {
            if (System.nanoTime() - cutOff > 0) {
                return;
            }
            boolean ok = send(request.get(), connections);
            long micros = (System.nanoTime() - request.intended()) / 1_000;
            Histogram latencies = request.floor() ? floorHistogram : histogram;
            latencies.recordValue(Math.min(latencies.getHighestTrackableValue(), Math.max(0, micros)));
            if (ok) {
                (request.floor() ? floorAnswered : answered).incrementAndGet();
            }
        }

        private static boolean send(Get get, Map<Endpoint, KeepAliveConnection> connections) {
            KeepAliveConnection connection = connections.computeIfAbsent(get.endpoint(), KeepAliveConnection::new);
            try {
                return connection.send(get) == 200;
            } catch (IOException | RuntimeException e) {
                connection.close();
                return false;
            }
        }
    }
}
