package dev.tspipe.bench.e2e;

import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Bytes of a stopped node's state per table: every RocksDB database under its state directory (one per task), opened
 * read-only, the live SST files of each column family summed by the table it belongs to (a segment's column family
 * is named {@code <store>.<segment>}; the database's own default family is {@code meta}). A node stopped cleanly has
 * flushed its memtables, so its SST files are all of its state but the files RocksDB keeps beside them (the
 * manifest, options, logs), which {@link EndToEndBenchmark#directoryBytes} counts too.
 */
final class StateTables {

    static {
        RocksDB.loadLibrary();
    }

    private StateTables() {
    }

    /**
     * The state directory of a stopped node holding {@code readings}: its bytes on disk, and the live SST bytes of each
     * table ({@link #perTable}), per reading too (issue 29's target is per table).
     */
    static Map<String, Object> figures(Path stateDir, long readings) {
        Map<String, Object> figures = new LinkedHashMap<>();
        long bytes = EndToEndBenchmark.directoryBytes(stateDir);
        figures.put("bytes", bytes);
        figures.put("readings", readings);
        figures.put("bytesPerReading", EndToEndBenchmark.round(bytes / (double) Math.max(1, readings), 2));
        figures.put("tables", perTable(stateDir, readings));
        return figures;
    }

    /** Per table of the databases under {@code stateDir}: its live SST bytes, and those per one of {@code readings}. */
    static Map<String, Object> perTable(Path stateDir, long readings) {
        Map<String, Object> tables = new LinkedHashMap<>();
        sstBytes(stateDir).forEach((table, bytes) -> tables.put(table,
                Map.of("sstBytes", bytes, "bytesPerReading", EndToEndBenchmark.round(bytes / (double) Math.max(1, readings), 3))));
        return tables;
    }

    /** Live SST bytes per table of every database under {@code stateDir}, tables by name. */
    static Map<String, Long> sstBytes(Path stateDir) {
        Map<String, Long> tables = new TreeMap<>();
        for (Path database : databases(stateDir)) {
            add(database, tables);
        }
        return tables;
    }

    private static List<Path> databases(Path stateDir) {
        if (!Files.isDirectory(stateDir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(stateDir)) {
            return files.filter(file -> file.getFileName().toString().equals("CURRENT")).map(Path::getParent).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the databases in " + stateDir, e);
        }
    }

    private static void add(Path database, Map<String, Long> tables) {
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        try (Options options = new Options(); DBOptions dbOptions = new DBOptions()) {
            for (byte[] name : RocksDB.listColumnFamilies(options, database.toString())) {
                descriptors.add(new ColumnFamilyDescriptor(name));
            }
            try (RocksDB db = RocksDB.openReadOnly(dbOptions, database.toString(), descriptors, handles)) {
                for (int i = 0; i < handles.size(); i++) {
                    String name = new String(descriptors.get(i).getName(), StandardCharsets.UTF_8);
                    int dot = name.lastIndexOf('.');
                    String table = name.equals("default") ? "meta" : dot < 0 ? name : name.substring(0, dot);
                    tables.merge(table, db.getLongProperty(handles.get(i), "rocksdb.live-sst-files-size"), Long::sum);
                }
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
        } catch (RocksDBException e) {
            throw new IllegalStateException("cannot read the sizes of the database in " + database + ": " + e.getMessage(), e);
        }
    }
}
