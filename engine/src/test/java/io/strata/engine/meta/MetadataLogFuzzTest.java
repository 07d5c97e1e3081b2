package io.strata.engine.meta;

import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo;
import io.strata.engine.io.MappedRegion;
import io.strata.engine.recovery.RecoveryReport;
import io.strata.engine.registry.MetricRegistry;
import io.strata.testsupport.Fuzz;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.NoSuchFileException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded fuzzing of the metadata log reader ({@code docs/format/metadata.md}, "Reading"): a log of
 * well-formed records with distinct keys is damaged (truncated, bytes overwritten or flipped inside
 * one record or across several, garbage inserted between records, records with a valid checksum
 * over random or hostile payloads appended, or the whole body replaced by random bytes) and opened.
 * Invariants: opening never throws; every record that ends before the first damaged byte is kept as
 * written; when the damage lies inside one record or between records, every record after it is kept
 * too (the reader resynchronises on the next valid record); the log as rewritten opens again with
 * nothing to report and the same definitions. Runs on an in-memory {@link FileIo}, so that the
 * fuzzer measures the reader, not the disk.
 */
class MetadataLogFuzzTest {

    static final long SEED = 0x3E7A_D47AL;
    static final Path DIR = Path.of("/fuzz/db");

    private static final String ALPHABET = "abcxyz019._-/ \u00e9\u4e2d\u00ff\"=|";

    enum Damage { NONE, TRUNCATE, INSIDE_ONE_RECORD, ACROSS_RECORDS, GARBAGE_BETWEEN, VALID_CRC_GARBAGE, RANDOM_BODY,
        /** last: drawn apart (see the test) */
        MANY_ALGORITHMS }

    @Test
    void recoveryKeepsWhatPrecedesTheDamageAndResynchronises() {
        // one registry for every store opened, emptied before each: a new one per store was a first chunk
        // of 176 KiB of arrays allocated and zeroed twice per input, more than the reading of a small log
        MetricRegistry registry = new MetricRegistry(3);
        Fuzz.run("metadata log reader", SEED, in -> {
            Random r = in.random();
            // a log of 300+ records is slow to build and check: one input in a hundred
            Damage damage = r.nextInt(100) == 0 ? Damage.MANY_ALGORITHMS
                    : Damage.values()[r.nextInt(Damage.MANY_ALGORITHMS.ordinal())];
            List<Object> records = records(r, damage == Damage.MANY_ALGORITHMS ? 300 + r.nextInt(40) : r.nextInt(40));
            byte[][] encoded = new byte[records.size()][];
            int[] start = new int[records.size()];
            int size = 16;
            for (int i = 0; i < records.size(); i++) {
                ByteBuffer b = MetadataCodec.encode(records.get(i));
                encoded[i] = Arrays.copyOfRange(b.array(), 0, b.limit());
                start[i] = size;
                size += encoded[i].length;
            }
            byte[] log = new byte[size];
            ByteBuffer.wrap(log).order(ByteOrder.LITTLE_ENDIAN).putLong(0x444D415441525453L).putInt(1).putInt(0);
            for (int i = 0; i < records.size(); i++) {
                System.arraycopy(encoded[i], 0, log, start[i], encoded[i].length);
            }
            // [firstDamaged, lastDamaged): the bytes changed; records wholly outside must survive when
            // survivesAfter says the reader can find its way back
            int firstDamaged = log.length;
            int lastDamaged = log.length;
            boolean survivesAfter = true;
            switch (damage) {
                case NONE, MANY_ALGORITHMS -> { }
                case TRUNCATE -> {
                    firstDamaged = 16 + r.nextInt(log.length - 15);
                    log = Arrays.copyOf(log, firstDamaged);
                    lastDamaged = firstDamaged;
                }
                case INSIDE_ONE_RECORD -> {
                    if (records.isEmpty()) {
                        break;
                    }
                    int k = r.nextInt(records.size());
                    int from = start[k] + r.nextInt(encoded[k].length);
                    int to = Math.min(start[k] + encoded[k].length, from + 1 + r.nextInt(8));
                    if (overwrite(r, log, from, to)) {
                        firstDamaged = start[k];
                        lastDamaged = start[k] + encoded[k].length;
                    }
                }
                case ACROSS_RECORDS -> {
                    int from = 16 + r.nextInt(log.length - 15);
                    int to = Math.min(log.length, from + 1 + r.nextInt(200));
                    if (overwrite(r, log, from, to)) {
                        firstDamaged = from;
                        lastDamaged = to;
                        // garbage spanning a record's start can hide it, or forge a length that swallows more
                        survivesAfter = false;
                    }
                }
                case GARBAGE_BETWEEN -> {
                    int k = records.isEmpty() ? 0 : r.nextInt(records.size() + 1);
                    int at = k < records.size() ? start[k] : log.length;
                    byte[] garbage = new byte[1 + r.nextInt(r.nextInt(10) == 0 ? 4000 : 40)];
                    r.nextBytes(garbage);
                    byte[] longer = new byte[log.length + garbage.length];
                    System.arraycopy(log, 0, longer, 0, at);
                    System.arraycopy(garbage, 0, longer, at, garbage.length);
                    System.arraycopy(log, at, longer, at + garbage.length, log.length - at);
                    log = longer;
                    for (int i = k; i < records.size(); i++) {
                        start[i] += garbage.length;
                    }
                    firstDamaged = at;
                    lastDamaged = at + garbage.length;
                }
                case VALID_CRC_GARBAGE -> {
                    byte[] forged = forgedRecord(r);
                    log = Arrays.copyOf(log, log.length + forged.length);
                    System.arraycopy(forged, 0, log, log.length - forged.length, forged.length);
                    firstDamaged = log.length - forged.length;
                    lastDamaged = log.length;
                }
                case RANDOM_BODY -> {
                    byte[] body = new byte[r.nextInt(2000)];
                    r.nextBytes(body);
                    log = Arrays.copyOf(log, 16 + body.length);
                    System.arraycopy(body, 0, log, 16, body.length);
                    firstDamaged = 16;
                    lastDamaged = log.length;
                    survivesAfter = false;
                }
                default -> throw new AssertionError(damage);
            }
            in.show(describe(damage, records.size(), firstDamaged, lastDamaged, log));

            // memory takes 255 distinct algorithms: the dimensions of later ones are refused, as damage is
            boolean[] refused = new boolean[records.size()];
            List<String> algorithms = new ArrayList<>();
            for (int i = 0; i < records.size(); i++) {
                if (records.get(i) instanceof DimensionInfo d && start[i] + encoded[i].length <= firstDamaged
                        && !algorithms.contains(d.algorithm())) {
                    if (algorithms.size() < 255) {
                        algorithms.add(d.algorithm());
                    } else {
                        refused[i] = true;
                    }
                }
            }
            MemoryFileIo io = new MemoryFileIo();
            io.put(DIR.resolve("metadata.log"), log);
            Map<String, Integer> counts;
            registry.clear();
            try (MetadataStore store = MetadataStore.open(io, DIR, registry, new RecoveryReport())) {
                Map<Integer, Map<String, DimensionInfo>> dimensionsByChart = new HashMap<>();
                for (int i = 0; i < records.size(); i++) {
                    int end = start[i] + encoded[i].length;
                    boolean before = end <= firstDamaged;
                    boolean after = survivesAfter && start[i] >= lastDamaged && end <= log.length;
                    if ((before || after) && !refused[i]) {
                        int record = i;
                        int at = start[i];
                        assertKept(store, dimensionsByChart, records.get(i), () -> (before ? "before" : "after")
                                + " the damage, record " + record + " at " + at);
                    }
                }
                counts = counts(store);
            }
            // the log as recovery left it: opens with nothing to report, the same definitions
            RecoveryReport again = new RecoveryReport();
            registry.clear();
            try (MetadataStore store = MetadataStore.open(io, DIR, registry, again)) {
                assertEquals(List.of(), again.findings(), "the recovered log opens clean");
                assertEquals(counts, counts(store), "the recovered log holds what recovery kept");
            }
        });
    }

    private static Map<String, Integer> counts(MetadataStore store) {
        Map<String, Integer> c = new LinkedHashMap<>();
        c.put("hosts", store.hosts().size());
        c.put("charts", store.chartCount());
        c.put("dimensions", store.dimensionCount());
        return c;
    }

    /** The input as a failure shows it; rendered only then (a log is up to 2 000 bytes of hex). */
    private static Object describe(Damage damage, int records, int firstDamaged, int lastDamaged, byte[] log) {
        return new Object() {
            @Override
            public String toString() {
                return damage + ", " + records + " records, damaged [" + firstDamaged + ", " + lastDamaged + "): "
                        + hex(log);
            }
        };
    }

    /**
     * Messages are built only on a failure: a record's text on every check is most of a passing input's cost.
     * A chart's dimensions are read from the store once per input ({@code dimensionsByChart}): looking
     * through all of them for each dimension made an input of 300 dimensions cost 300 × 300 lookups.
     */
    private static void assertKept(MetadataStore store, Map<Integer, Map<String, DimensionInfo>> dimensionsByChart,
            Object rec, Supplier<String> where) {
        if (rec instanceof HostInfo h) {
            int id = store.hostId(h.machineGuid());
            assertTrue(id >= 0, () -> where.get() + ": host lost " + h);
            assertEquals(h, store.host(id), where);
        } else if (rec instanceof ChartInfo c) {
            int id = store.chartId(c.hostGuid(), c.id());
            assertTrue(id >= 0, () -> where.get() + ": chart lost " + c);
            assertEquals(c, store.chart(id), where);
        } else {
            DimensionInfo d = (DimensionInfo) rec;
            int chart = store.chartId(d.hostGuid(), d.chartId());
            assertTrue(chart >= 0, () -> where.get() + ": chart of dimension lost " + d);
            Map<String, DimensionInfo> ofChart = dimensionsByChart.computeIfAbsent(chart, c -> {
                // by id, the last of the chart's metrics with that id, as a search of them all would find
                Map<String, DimensionInfo> byId = new HashMap<>();
                for (int metric : store.metrics(c)) {
                    DimensionInfo m = store.dimension(metric);
                    if (m != null) {
                        byId.put(m.id(), m);
                    }
                }
                return byId;
            });
            assertEquals(d, ofChart.get(d.id()), where);
        }
    }

    /** Overwrites [from, to) with different bytes; false when nothing changed. */
    private static boolean overwrite(Random r, byte[] log, int from, int to) {
        boolean changed = false;
        for (int i = from; i < to; i++) {
            byte was = log[i];
            log[i] = r.nextBoolean() ? (byte) (log[i] ^ (1 << r.nextInt(8))) : (byte) r.nextInt(256);
            changed |= log[i] != was;
        }
        return changed;
    }

    /** Records with distinct keys: hosts, charts of those (or of unknown hosts), dimensions (or orphans). */
    static List<Object> records(Random r, int n) {
        List<Object> out = new ArrayList<>();
        List<UUID> hosts = new ArrayList<>();
        List<ChartInfo> charts = new ArrayList<>();
        boolean manyAlgorithms = n >= 300;
        for (int i = 0; i < n; i++) {
            int kind = manyAlgorithms && !charts.isEmpty() ? 2 : r.nextInt(3);
            if (kind == 0 || hosts.isEmpty()) {
                UUID g = new UUID(r.nextLong(), r.nextLong());
                hosts.add(g);
                out.add(new HostInfo(g, text(r, 20), text(r, 8), text(r, 8), r.nextInt(10) - 2, labels(r)));
            } else if (kind == 1 || charts.isEmpty()) {
                UUID host = r.nextInt(8) == 0 ? new UUID(r.nextLong(), r.nextLong()) : hosts.get(r.nextInt(hosts.size()));
                ChartInfo c = new ChartInfo(host, "c" + i + "." + text(r, 10), text(r, 10), text(r, 30), text(r, 5),
                        text(r, 5), text(r, 10), r.nextBoolean() ? "line" : text(r, 5), r.nextLong(), 1 + r.nextInt(60),
                        text(r, 6), text(r, 6), labels(r));
                charts.add(c);
                out.add(c);
            } else {
                ChartInfo c = charts.get(r.nextInt(charts.size()));
                String alg = manyAlgorithms ? "alg-" + i : new String[] {"absolute", "incremental",
                    "percentage-of-absolute-row", "", text(r, 6)}[r.nextInt(5)];
                out.add(new DimensionInfo(c.hostGuid(), c.id(), "d" + i + ":" + text(r, 6), text(r, 6), alg,
                        r.nextInt(5) == 0 ? r.nextLong() : 1, r.nextInt(5) == 0 ? r.nextLong() : 1, r.nextInt(4)));
            }
        }
        return out;
    }

    /** Random text of the alphabet; in a char array (a builder starts in Latin-1 and is copied at the first other character). */
    private static String text(Random r, int max) {
        int n = r.nextInt(max + 1);
        char[] text = new char[n];
        for (int i = 0; i < n; i++) {
            text[i] = ALPHABET.charAt(r.nextInt(ALPHABET.length()));
        }
        return new String(text);
    }

    private static Map<String, String> labels(Random r) {
        int n = r.nextInt(4);
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < n; i++) {
            m.put("k" + i + text(r, 5), text(r, 10));
        }
        return m;
    }

    /**
     * A record whose length and CRC-32C hold over a payload that is random, cut, of an unknown
     * type, or well-formed with hostile values (a chart's update_every of 0, strings past the end).
     */
    static byte[] forgedRecord(Random r) {
        byte[] payload;
        int type;
        switch (r.nextInt(4)) {
            case 0 -> {
                type = r.nextInt(256);
                payload = new byte[r.nextInt(200)];
                r.nextBytes(payload);
            }
            case 1 -> {
                // a real record's payload cut short or with bytes changed, then checksummed again
                Object rec = records(r, 3).get(r.nextInt(3));
                ByteBuffer b = MetadataCodec.encode(rec);
                type = b.get(4);
                payload = Arrays.copyOfRange(b.array(), 5, b.limit() - 4);
                payload = Arrays.copyOf(payload, r.nextInt(payload.length + 1));
                if (payload.length > 0 && r.nextBoolean()) {
                    payload[r.nextInt(payload.length)] = (byte) r.nextInt(256);
                }
            }
            case 2 -> {
                // a chart with update_every 0 or negative
                ByteBuffer b = MetadataCodec.encode(ChartInfo.of(new UUID(r.nextLong(), r.nextLong()), "x" + r.nextInt(), 1));
                type = b.get(4);
                payload = Arrays.copyOfRange(b.array(), 5, b.limit() - 4);
                // update_every follows uuid, 7 strings and the priority: find it from the end (plugin, module, labels: 2+2+2)
                int ue = payload.length - 6 - 4;
                ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN).putInt(ue, r.nextBoolean() ? 0 : -r.nextInt(1000) - 1);
            }
            default -> {
                type = 1 + r.nextInt(3);
                payload = new byte[16 + r.nextInt(60)];
                r.nextBytes(payload);
                // string lengths that run past the payload
                for (int i = 16; i + 1 < payload.length; i += 2 + r.nextInt(6)) {
                    payload[i] = (byte) 0xFF;
                    payload[i + 1] = (byte) r.nextInt(256);
                }
            }
        }
        int len = 1 + payload.length;
        ByteBuffer out = ByteBuffer.allocate(8 + len).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(len).put((byte) type).put(payload);
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 0, 4 + len);
        out.putInt((int) crc.getValue());
        return out.array();
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder(Math.min(b.length, 2000) * 2);
        for (int i = 0; i < b.length && i < 2000; i++) {
            sb.append(Character.forDigit(b[i] >> 4 & 0xF, 16)).append(Character.forDigit(b[i] & 0xF, 16));
        }
        return sb.toString();
    }

    /** Files in memory: enough of {@link FileIo} for the metadata log (no mapping, no O_DIRECT). */
    static final class MemoryFileIo implements FileIo {
        private final Map<Path, Mem> files = new HashMap<>();

        static final class Mem {
            byte[] data = new byte[256];
            int size;
        }

        void put(Path p, byte[] content) {
            Mem m = new Mem();
            m.data = Arrays.copyOf(content, Math.max(256, content.length));
            m.size = content.length;
            files.put(p, m);
        }

        @Override
        public FileHandle open(Path path, OpenMode mode) throws IOException {
            Mem m = files.get(path);
            switch (mode) {
                case READ, READ_DIRECT -> {
                    if (m == null) {
                        throw new NoSuchFileException(path.toString());
                    }
                }
                case CREATE_NEW -> {
                    if (m != null) {
                        throw new FileAlreadyExistsException(path.toString());
                    }
                    m = new Mem();
                    files.put(path, m);
                }
                default -> {
                    if (m == null) {
                        m = new Mem();
                        files.put(path, m);
                    }
                }
            }
            Mem file = m;
            return new FileHandle() {
                @Override
                public Path path() {
                    return path;
                }

                @Override
                public int write(ByteBuffer src, long position) {
                    int n = src.remaining();
                    long end = position + n;
                    if (end > file.data.length) {
                        file.data = Arrays.copyOf(file.data, (int) Math.max(end, file.data.length * 2L));
                    }
                    src.get(file.data, (int) position, n);
                    file.size = (int) Math.max(file.size, end);
                    return n;
                }

                @Override
                public int read(ByteBuffer dst, long position) {
                    if (position >= file.size) {
                        return 0;
                    }
                    int n = (int) Math.min(dst.remaining(), file.size - position);
                    dst.put(file.data, (int) position, n);
                    return n;
                }

                @Override
                public void sync() {
                }

                @Override
                public long size() {
                    return file.size;
                }

                @Override
                public void truncate(long size) {
                    if (size < file.size) {
                        file.size = (int) size;
                    }
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public MappedRegion mapReadOnly(Path path) {
            throw new UnsupportedOperationException("not used by the metadata log");
        }

        @Override
        public void rename(Path from, Path to) throws IOException {
            Mem m = files.remove(from);
            if (m == null) {
                throw new NoSuchFileException(from.toString());
            }
            files.put(to, m);
        }

        @Override
        public boolean delete(Path path) {
            return files.remove(path) != null;
        }

        @Override
        public boolean exists(Path path) {
            return files.containsKey(path);
        }

        @Override
        public long size(Path path) throws IOException {
            Mem m = files.get(path);
            if (m == null) {
                throw new NoSuchFileException(path.toString());
            }
            return m.size;
        }

        @Override
        public List<Path> list(Path dir) {
            return files.keySet().stream().filter(p -> dir.equals(p.getParent())).sorted().toList();
        }

        @Override
        public void createDirectories(Path dir) {
        }

        @Override
        public void syncDirectory(Path dir) {
        }
    }
}
