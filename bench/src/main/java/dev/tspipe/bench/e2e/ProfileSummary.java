package dev.tspipe.bench.e2e;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The hottest methods of a JFR recording, from its {@code jdk.ExecutionSample} events (Java
 * code only: JFR does not sample threads while they run native code such as RocksDB, so
 * {@code jdk.NativeMethodSample} is counted apart).
 *
 * @param samples       execution samples
 * @param nativeSamples native-method samples (threads in native code, e.g. RocksDB, or waiting in epoll)
 * @param topSelf       methods by samples in which they were the top frame
 * @param topTotal      methods by samples in which they were anywhere on the stack
 * @param topNative     native methods by samples of {@code jdk.NativeMethodSample}
 */
record ProfileSummary(long samples, long nativeSamples, Map<String, Long> topSelf, Map<String, Long> topTotal,
                      Map<String, Long> topNative) {

    static ProfileSummary of(Path jfrFile, int top) {
        Map<String, Long> self = new HashMap<>();
        Map<String, Long> total = new HashMap<>();
        Map<String, Long> nativeTop = new HashMap<>();
        long samples = 0;
        long nativeSamples = 0;
        try (RecordingFile recording = new RecordingFile(jfrFile)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                String type = event.getEventType().getName();
                RecordedStackTrace stack = event.getStackTrace();
                if (stack == null || stack.getFrames().isEmpty()) {
                    continue;
                }
                List<RecordedFrame> frames = stack.getFrames();
                if (type.equals("jdk.ExecutionSample")) {
                    samples++;
                    self.merge(name(frames.get(0)), 1L, Long::sum);
                    Set<String> seen = new HashSet<>();
                    for (RecordedFrame frame : frames) {
                        if (seen.add(name(frame))) {
                            total.merge(name(frame), 1L, Long::sum);
                        }
                    }
                } else if (type.equals("jdk.NativeMethodSample")) {
                    nativeSamples++;
                    nativeTop.merge(name(frames.get(0)), 1L, Long::sum);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the recording " + jfrFile, e);
        }
        return new ProfileSummary(samples, nativeSamples, top(self, top), top(total, top), top(nativeTop, top));
    }

    private static String name(RecordedFrame frame) {
        return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
    }

    private static Map<String, Long> top(Map<String, Long> counts, int n) {
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(n)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
    }

    /** The summary as the result JSON holds it, naming the recording. */
    Map<String, Object> figures(Path jfrFile) {
        return Map.of("file", jfrFile.toString(), "executionSamples", samples, "nativeSamples", nativeSamples,
                "topSelf", topSelf, "topTotal", topTotal, "topNative", topNative);
    }
}
