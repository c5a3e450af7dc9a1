package dev.tspipe.processor.store;

import dev.tspipe.model.blocks.Varints;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A record of the raw changelog that holds many chunks (docs/storage.md, "Changelogs"): the chunks one flush appended
 * to raw blocks, each with its block's key, in the order appended. A restore merges each chunk under its key, as
 * the flush did. Key of the record: {@link #KEY} (no block key begins with a 0x00 byte). Value:
 *
 * <table>
 *   <caption>Byte layout</caption>
 *   <tr><th>length</th><th>content</th></tr>
 *   <tr><td>1</td><td>format version, {@value #VERSION}</td></tr>
 *   <tr><td>per chunk: varint</td><td>the length of the block's key</td></tr>
 *   <tr><td>per chunk: n</td><td>the block's key {@code device#metric#reversedBlockStart}</td></tr>
 *   <tr><td>per chunk: varint</td><td>the length of the chunk</td></tr>
 *   <tr><td>per chunk: n</td><td>the chunk (docs/storage.md, "The chunk format")</td></tr>
 * </table>
 *
 * <p>Thread rule: a builder belongs to one flush (the stream thread); reading is stateless.
 */
final class ChunkGroup {

    /** The key of every group record. */
    static final byte[] KEY = "\0chunks".getBytes(StandardCharsets.US_ASCII);
    static final byte VERSION = 1;
    /**
     * A group is sent before it would hold more than this many bytes: a few records per flush of a busy task, each below the
     * producer's batch size (256 KiB, docs/storage.md) and far below any broker's record limit, and below G1's humongous size.
     */
    static final int MAX_BYTES = 192 * 1024;

    private byte[] bytes = new byte[4096];
    private int size;
    private long newest = Long.MIN_VALUE;

    ChunkGroup() {
        bytes[0] = VERSION;
        size = 1;
    }

    /** Adds the chunk {@code chunk} appended to the block keyed {@code key}, whose newest reading is at {@code newestMillis}. */
    void add(byte[] key, byte[] chunk, long newestMillis) {
        int room = 10 + key.length + chunk.length;
        if (size + room > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + room));
        }
        size = Varints.put(bytes, size, key.length);
        System.arraycopy(key, 0, bytes, size, key.length);
        size += key.length;
        size = Varints.put(bytes, size, chunk.length);
        System.arraycopy(chunk, 0, bytes, size, chunk.length);
        size += chunk.length;
        newest = Math.max(newest, newestMillis);
    }

    boolean isEmpty() {
        return size == 1;
    }

    /**
     * Whether a chunk of {@code chunkLength} bytes under a key of {@code keyLength} would take the group past
     * {@link #MAX_BYTES}: then the group is sent first, so that a group passes the bound only when one chunk alone does.
     */
    boolean wouldOverflow(int keyLength, int chunkLength) {
        return !isEmpty() && size + 10 + keyLength + chunkLength > MAX_BYTES;
    }

    /** The newest reading of the group's chunks: the record's timestamp. */
    long newestMillis() {
        return newest;
    }

    /** The record's value, of exactly its length; the builder starts again empty. */
    byte[] take() {
        byte[] value = Arrays.copyOf(bytes, size);
        clear();
        return value;
    }

    /** Forgets what was added: the builder starts again empty. */
    void clear() {
        size = 1;
        newest = Long.MIN_VALUE;
    }

    static boolean isGroupKey(byte[] key) {
        return key != null && key.length > 0 && key[0] == 0;
    }

    /** Where {@link #forEachChunk} hands each chunk: its bytes are {@code length} bytes of {@code source} from {@code offset}. */
    @FunctionalInterface
    interface ChunkVisitor<E extends Exception> {
        void chunk(byte[] blockKey, byte[] source, int offset, int length) throws E;
    }

    /** Visits the chunks of one record value in order; the chunks are not copied, each key is (an array of its own). */
    static <E extends Exception> void forEachChunk(byte[] value, ChunkVisitor<E> visitor) throws E {
        if (value.length == 0 || value[0] != VERSION) {
            throw new IllegalArgumentException("chunk group of format version " + (value.length == 0 ? "(empty)" : value[0])
                    + ", expected " + VERSION);
        }
        int[] at = {1};
        while (at[0] < value.length) {
            int keyLength = length(value, at, "key");
            byte[] key = Arrays.copyOfRange(value, at[0], at[0] + keyLength);
            at[0] += keyLength;
            int chunkLength = length(value, at, "chunk");
            visitor.chunk(key, value, at[0], chunkLength);
            at[0] += chunkLength;
        }
    }

    /** The varint length at {@code at[0]}, which then points past it, checked against what is left of {@code value}. */
    private static int length(byte[] value, int[] at, String of) {
        int start = at[0];
        long length = 0;
        for (int shift = 0; ; shift += 7) {
            if (at[0] >= value.length || shift > 28) {
                throw new IllegalArgumentException("chunk group truncated: the length of a " + of + " at offset " + start);
            }
            int b = value[at[0]++] & 0xFF;
            length |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
        }
        if (length > value.length - at[0]) {
            throw new IllegalArgumentException("chunk group truncated: a " + of + " of " + length + " bytes at offset "
                    + at[0] + " of " + value.length);
        }
        return (int) length;
    }
}
