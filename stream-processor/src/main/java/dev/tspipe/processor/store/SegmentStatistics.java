package dev.tspipe.processor.store;

import org.rocksdb.CompressionType;

/**
 * The statistics of one time segment, for operators (AnalyticDB's per-partition row counts and sizes, a partition there being a time slice).
 *
 * @param segmentId         {@code epochMillis / segmentInterval} of the rows it holds
 * @param startMillis       the first instant of the segment's span (inclusive)
 * @param endMillis         the end of the segment's span (exclusive)
 * @param estimatedRows     RocksDB's estimate of the keys ({@code rocksdb.estimate-num-keys}); may
 *                          still count rows that are expired but not yet dropped with their segment
 * @param liveSstBytes      bytes of the segment's live SST files ({@code rocksdb.live-sst-files-size})
 * @param memtableBytes     bytes of the segment's memtables ({@code rocksdb.cur-size-all-mem-tables})
 * @param compression       the compression of the segment's levels above the bottommost (LZ4 if the
 *                          segment was the newest when it opened, else ZSTD)
 * @param bottommostCompression the compression of the bottommost level (ZSTD)
 */
public record SegmentStatistics(long segmentId, long startMillis, long endMillis, long estimatedRows,
                                long liveSstBytes, long memtableBytes, CompressionType compression,
                                CompressionType bottommostCompression) {
}
