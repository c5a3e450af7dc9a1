package dev.tspipe.bench.e2e;

import dev.tspipe.processor.store.SeriesStore;
import dev.tspipe.processor.topology.PipelineConfig;
import dev.tspipe.processor.topology.StreamsSettings;
import dev.tspipe.processor.topology.TspipeStreams;
import dev.tspipe.query.server.QueryServer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One application instance in its own JVM, so that its CPU time and RSS are its own (the broker
 * runs in the harness's JVM). Driven over stdin/stdout by {@link NodeProcess}:
 *
 * <pre>
 * args:   mode(tspipe|baseline|noop) bootstrap registryUrl applicationId stateDir inputTopic dlqTopic threads httpPort jfrFile|- graceSeconds
 * stdout: STARTED | STATE RUNNING restoredRecords restoredRows restoreNanos restoreCpuNanos restoringThreadCpuNanos | JFR-DONE | THREAD-TIME name=value... | CLOSED cpuNanos vmHwmKb droppedRecords
 * stdin:  jfr-stop | thread-time | stop (or end of input)
 * </pre>
 *
 * tspipe runs with a {@link QueryServer} on {@code httpPort} (0: none), as {@code tspipe node} does;
 * {@code noop} is the ceiling ({@link CeilingTopology}) with tspipe's Kafka Streams settings.
 */
public final class NodeMain {

    private static final Logger LOG = LoggerFactory.getLogger(NodeMain.class);
    /** How often the records Kafka Streams dropped are logged, as one line with their count (docs/benchmarks.md). */
    private static final Duration DROPPED_LOG_INTERVAL = Duration.ofSeconds(10);

    private NodeMain() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String bootstrap = args[1];
        String registryUrl = args[2];
        String applicationId = args[3];
        Path stateDir = Path.of(args[4]);
        String inputTopic = args[5];
        String dlqTopic = args[6];
        int threads = Integer.parseInt(args[7]);
        int httpPort = Integer.parseInt(args[8]);
        String jfrFile = args[9];
        Duration grace = Duration.ofSeconds(Long.parseLong(args[10]));
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

        Map<String, Object> streamsSettings = new HashMap<>();
        streamsSettings.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        streamsSettings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        streamsSettings.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        streamsSettings.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
        streamsSettings.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        streamsSettings.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);

        // Experiments: -Dstreams.<name>=<value> (through --node-jvm-opts) sets any Kafka Streams setting; tspipe's own
        // settings still win where it fixes them (StreamsSettings).
        System.getProperties().stringPropertyNames().stream().filter(name -> name.startsWith("streams."))
                .forEach(name -> streamsSettings.put(name.substring("streams.".length()), System.getProperty(name)));

        JfrControl jfr = "-".equals(jfrFile) ? null : JfrControl.start(Path.of(jfrFile));
        KafkaStreams streams;
        QueryServer server = null;
        if (mode.equals("baseline")) {
            Properties props = new Properties();
            props.putAll(streamsSettings);
            streams = new KafkaStreams(BaselineTopology.build(inputTopic, registryUrl, grace), props);
        } else if (mode.equals("noop")) {
            // tspipe's Kafka Streams settings (exactly-once, commit interval, cache, ...), as TspipeStreams applies them.
            PipelineConfig config = pipelineConfig(registryUrl, inputTopic, dlqTopic);
            Properties props = new Properties();
            props.putAll(StreamsSettings.merged(config, streamsSettings));
            streams = new KafkaStreams(CeilingTopology.build(config), props);
        } else if (mode.equals("tspipe")) {
            PipelineConfig config = pipelineConfig(registryUrl, inputTopic, dlqTopic);
            if (httpPort > 0) {
                streamsSettings.put(StreamsConfig.APPLICATION_SERVER_CONFIG, "127.0.0.1:" + httpPort);
            }
            streams = TspipeStreams.create(config, streamsSettings);
            if (httpPort > 0) {
                server = QueryServer.builder().streams(streams).pipelineConfig(config)
                        .bindHost("127.0.0.1").port(httpPort).advertised(new HostInfo("127.0.0.1", httpPort)).start();
            }
        } else {
            throw new IllegalArgumentException("mode must be tspipe, baseline or noop, not " + mode);
        }

        AtomicLong restored = new AtomicLong();
        // The restore's own time: from the first changelog partition's start to the last one's end (0 if none).
        AtomicLong firstRestoreStart = new AtomicLong(Long.MAX_VALUE);
        AtomicLong lastRestoreEnd = new AtomicLong(Long.MIN_VALUE);
        // The CPU the restore took: the whole process's, and the restoring thread's (Kafka Streams' state updater).
        AtomicLong cpuAtRestoreStart = new AtomicLong(-1);
        AtomicLong cpuAtRestoreEnd = new AtomicLong();
        AtomicLong restoringThreadCpu = new AtomicLong();
        streams.setGlobalStateRestoreListener(new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition partition, String store, long start, long end) {
                firstRestoreStart.accumulateAndGet(System.nanoTime(), Math::min);
                cpuAtRestoreStart.compareAndSet(-1, processCpuNanos());
            }

            @Override
            public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {
                restored.addAndGet(numRestored);
            }

            @Override
            public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
                lastRestoreEnd.accumulateAndGet(System.nanoTime(), Math::max);
                cpuAtRestoreEnd.set(processCpuNanos());
                // Called on the restoring thread: its CPU time so far (it restores nothing else before RUNNING).
                restoringThreadCpu.set(ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
            }
        });
        streams.setStateListener((newState, oldState) -> {
            if (newState == KafkaStreams.State.RUNNING) {
                long restoreNanos = Math.max(0, lastRestoreEnd.get() - firstRestoreStart.get());
                long restoreCpu = cpuAtRestoreStart.get() < 0 ? 0 : cpuAtRestoreEnd.get() - cpuAtRestoreStart.get();
                out.println("STATE RUNNING " + restored.get() + " " + SeriesStore.rowsRestored() + " " + restoreNanos
                        + " " + restoreCpu + " " + restoringThreadCpu.get());
            }
        });
        ThreadTime threadTime = new ThreadTime(streams);
        DroppedRecordsLog droppedLog = new DroppedRecordsLog(streams);
        streams.start();
        threadTime.start();
        droppedLog.start();
        out.println("STARTED");

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String command;
        while ((command = in.readLine()) != null && !command.equals("stop")) {
            if (command.equals("jfr-stop") && jfr != null) {
                jfr.stopAndDump();
                out.println("JFR-DONE");
            } else if (command.equals("thread-time")) {
                out.println("THREAD-TIME " + threadTime.averages());
            }
        }
        // Read before close, which removes the metrics: records dropped as too late for their window.
        long dropped = droppedRecords(streams);
        threadTime.interrupt();
        droppedLog.interrupt();
        if (server != null) {
            server.close();
        }
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(60)));
        long cpu = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
        out.println("CLOSED " + cpu + " " + ProcessMemory.peakRssKb(ProcessHandle.current().pid()) + " " + dropped);
    }

    /** Kafka Streams' {@code dropped-records-total}, summed over its tasks: records too late for their window, or keyless. */
    private static long droppedRecords(KafkaStreams streams) {
        return (long) streams.metrics().values().stream()
                .filter(m -> m.metricName().name().equals("dropped-records-total"))
                .mapToDouble(m -> ((Number) m.metricValue()).doubleValue()).sum();
    }

    /**
     * One line per interval with the count of dropped records, in place of Kafka Streams' WARN per dropped record
     * (silenced in logback.xml): the baseline without grace drops most of a backlog, about 1.8 million records and
     * 550 MB of log lines in a default run, where the count is all the result needs.
     */
    private static final class DroppedRecordsLog extends Thread {
        private final KafkaStreams streams;

        DroppedRecordsLog(KafkaStreams streams) {
            super("dropped-records-log");
            setDaemon(true);
            this.streams = streams;
        }

        @Override
        public void run() {
            long logged = 0;
            while (!isInterrupted()) {
                try {
                    Thread.sleep(DROPPED_LOG_INTERVAL.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
                long dropped = droppedRecords(streams);
                if (dropped > logged) {
                    LOG.warn("{} records dropped in the last {} s, {} in all (Kafka Streams' dropped-records-total: too late "
                            + "for their window, or without a key)", dropped - logged, DROPPED_LOG_INTERVAL.toSeconds(), dropped);
                    logged = dropped;
                }
            }
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** tspipe's settings: the harness's topics and registry, and any {@code -Dtspipe.*} of the node's JVM options. */
    private static PipelineConfig pipelineConfig(String registryUrl, String inputTopic, String dlqTopic) {
        Map<String, Object> settings = new HashMap<>();
        System.getProperties().stringPropertyNames().stream().filter(name -> name.startsWith("tspipe."))
                .forEach(name -> settings.put(name, System.getProperty(name)));
        settings.put(PipelineConfig.SCHEMA_REGISTRY_URL, registryUrl);
        settings.put(PipelineConfig.READINGS_TOPIC, inputTopic);
        settings.put(PipelineConfig.DLQ_TOPIC, dlqTopic);
        return new PipelineConfig(settings);
    }

    /** A JFR recording with the {@code profile} settings, from start until the harness says the catch-up is over. */
    private record JfrControl(jdk.jfr.Recording recording, Path file) {

        static JfrControl start(Path file) throws IOException, java.text.ParseException {
            jdk.jfr.Recording recording = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
            recording.setName("tspipe-catch-up");
            recording.start();
            return new JfrControl(recording, file);
        }

        void stopAndDump() throws IOException {
            recording.stop();
            recording.dump(file);
            recording.close();
        }
    }

    /**
     * Where the stream threads' time goes: Kafka Streams' own rolling {@code stream-thread-metrics} (the shares of
     * poll, process, commit and punctuate in each thread's loop, commit latency and rate), sampled every 500 ms
     * from start and averaged over the samples taken while the threads processed records; and since the JVM's start,
     * the CPU of the stream threads and of all Java threads, the JIT compilers' time and the collectors'.
     */
    private static final class ThreadTime extends Thread {
        private static final List<String> NAMES = List.of("poll-ratio", "process-ratio", "commit-ratio", "punctuate-ratio",
                "commit-latency-avg", "commit-rate", "process-records-avg", "poll-records-avg");
        private final KafkaStreams streams;
        private final Map<String, double[]> sums = new TreeMap<>();

        ThreadTime(KafkaStreams streams) {
            super("thread-time-sampler");
            setDaemon(true);
            this.streams = streams;
        }

        @Override
        public void run() {
            while (!isInterrupted()) {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
                Map<String, Double> sample = new HashMap<>();
                for (org.apache.kafka.common.Metric metric : streams.metrics().values()) {
                    if (metric.metricName().group().equals("stream-thread-metrics") && NAMES.contains(metric.metricName().name())
                            && metric.metricValue() instanceof Number number && !Double.isNaN(number.doubleValue())) {
                        sample.merge(metric.metricName().name(), number.doubleValue(), Double::sum);
                    }
                }
                if (sample.getOrDefault("process-ratio", 0.0) > 0) {
                    synchronized (sums) {
                        sample.forEach((name, value) -> {
                            double[] sum = sums.computeIfAbsent(name, n -> new double[2]);
                            sum[0] += value;
                            sum[1]++;
                        });
                    }
                }
            }
        }

        /** name=average pairs over the samples so far (summed over stream threads); the samples start again after. */
        String averages() {
            StringBuilder line = new StringBuilder();
            synchronized (sums) {
                sums.forEach((name, sum) -> line.append(name).append('=')
                        .append(String.format(java.util.Locale.ROOT, "%.4f", sum[0] / sum[1])).append(' '));
                sums.clear();
            }
            // CPU of the JVM's Java threads since start (the JIT compilers, GC and RocksDB's threads are not among them).
            java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long streamThreads = 0;
            long javaThreads = 0;
            for (Thread thread : Thread.getAllStackTraces().keySet()) {
                long cpu = threads.getThreadCpuTime(thread.getId());
                if (cpu > 0) {
                    javaThreads += cpu;
                    if (thread.getName().contains("-StreamThread-")) {
                        streamThreads += cpu;
                    }
                }
            }
            long gcMillis = 0;
            for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                gcMillis += Math.max(0, gc.getCollectionTime());
            }
            line.append(String.format(java.util.Locale.ROOT,
                    " stream-threads-cpu-seconds=%.3f java-threads-cpu-seconds=%.3f jit-seconds=%.3f gc-seconds=%.3f",
                    streamThreads / 1e9, javaThreads / 1e9, ManagementFactory.getCompilationMXBean().getTotalCompilationTime() / 1e3,
                    gcMillis / 1e3));
            return line.toString().trim();
        }
    }
}
