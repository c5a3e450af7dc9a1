package dev.tspipe.processor.store;

import org.rocksdb.CompressionType;

/**
 * The statistics of one time segment, for operators (AnalyticDB's per-partition row counts and sizes).
 *
 * @param segmentId         {@code epochMillis / segmentInterval} of the rows it holds
 * @param startMillis       the first instant of the segment's span (inclusive)
 * @param endMillis         the end of the segment's span (exclusive)
 * @param estimatedRows     RocksDB's estimate of the keys ({@code rocksdb.estimate-num-keys}); may
 *                          still count rows that are expired but not yet dropped with their segment
 * @param liveSstBytes      bytes of the segment's live SST files ({@code rocksdb.live-sst-files-size})
 * @param memtableBytes     bytes of the segment's memtables ({@code rocksdb.cur-size-all-mem-tables})
 * @param compression       the compression new SST files of the segment get (LZ4 while newest, then ZSTD)
 */
public record SegmentStatistics(long segmentId, long startMillis, long endMillis, long estimatedRows,
                                long liveSstBytes, long memtableBytes, CompressionType compression) {
}
