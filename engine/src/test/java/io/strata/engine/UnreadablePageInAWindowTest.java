package io.strata.engine;

import io.strata.engine.io.FileChannelIo;
import io.strata.engine.io.FileHandle;
import io.strata.engine.io.FileIo.OpenMode;
import io.strata.engine.io.ForwardingFileHandle;
import io.strata.engine.io.ForwardingFileIo;
import io.strata.engine.page.StorageNumber;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.stream.Stream;

import static io.strata.engine.EngineTestSupport.define;
import static io.strata.engine.EngineTestSupport.sn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A page on disk that cannot be read (the disk fails the read of its extent, or the extent fails its
 * CRC) in the middle of a query's window costs the query that page's slots only: every point
 * before and after it in the window is answered, for the tier-0 reads a replication answer makes and
 * for the aggregated queries of {@code /api/v1/data}. Netdata 1.37.1 does the same in its engine: an
 * extent it cannot read (a failed read or a CRC mismatch) gives its pages as empty slots
 * ({@code fill_page_with_nulls} in rrdengine.c), and its queries go on with the next page.
 */
class UnreadablePageInAWindowTest {

    static final long T0 = 1_700_000_000L;
    /** Points per page: three pages, each flushed into an extent of its own. */
    static final int PAGE = 100;

    enum Damage { READ_FAILS, CRC_MISMATCH }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Damage.class)
    void theWindowIsAnsweredButForTheUnreadablePage(Damage damage, @TempDir Path dir) throws Exception {
        EngineConfig cfg = EngineConfig.defaults(dir).withTiers(1);
        int metric;
        try (StorageEngine e = StorageEngine.open(cfg)) {
            metric = define(e, 1, 1)[0];
            for (int page = 0; page < 3; page++) {
                for (long t = T0 + page * PAGE; t < T0 + (page + 1) * PAGE; t++) {
                    assertTrue(e.store(metric, t, 1, EngineTestSupport.value(metric, t), StorageNumber.SN_DEFAULT_FLAGS));
                }
                e.flush();
            }
        }
        long first = T0;
        long last = T0 + 3 * PAGE - 1;

        // where the three extents are: the reads of a query on a fresh engine (nothing cached)
        ExtentReads io = new ExtentReads();
        try (StorageEngine e = StorageEngine.open(cfg.withIo(io))) {
            io.recording = true;
            assertEquals(3 * PAGE, tier0(e, metric, first, last).size(), "every point is readable before the damage");
        }
        List<Long> extents = new ArrayList<>(new TreeSet<>(io.reads));
        assertEquals(3, extents.size(), "one extent a page: " + extents);
        long middle = extents.get(1);

        if (damage == Damage.CRC_MISMATCH) {
            try (FileChannel ch = FileChannel.open(io.datafile, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
                ByteBuffer b = ByteBuffer.allocate(1);
                long at = middle + 60; // inside the extent's header or payload: its CRC no longer matches
                ch.read(b, at);
                b.put(0, (byte) ~b.get(0)).rewind();
                ch.write(b, at);
            }
        } else {
            io.failAt = middle;
        }
        io.recording = false;

        try (StorageEngine e = StorageEngine.open(cfg.withIo(io))) {
            List<Long> times = tier0(e, metric, first, last);
            List<Long> expected = Stream.iterate(first, t -> t <= last, t -> t + 1)
                    .filter(t -> t < T0 + PAGE || t >= T0 + 2 * PAGE).toList();
            assertEquals(expected, times, "the points before and after the unreadable page, and none of its");
            assertTrue(e.readErrors() > 0, "the unreadable page is counted");

            // the /api/v1/data path: one output point a second over the window
            long[] counts = new long[3 * PAGE];
            e.query(metric, 1, first - 1, last, 0, (time, sum, min, max, count, anomalies) -> {
                if (time >= first && time <= last) {
                    counts[(int) (time - first)] += count;
                    if (count > 0) {
                        assertEquals(StorageNumber.unpack(sn(metric, time)), sum, 1e-9, "value at " + time);
                    }
                }
            });
            for (long t = first; t <= last; t++) {
                boolean unreadable = t >= T0 + PAGE && t < T0 + 2 * PAGE;
                assertEquals(unreadable ? 0 : 1, counts[(int) (t - first)],
                        "the query's point at T0+" + (t - T0) + (unreadable ? " (in the unreadable page)" : ""));
            }
        }
    }

    private static List<Long> tier0(StorageEngine e, int metric, long from, long to) throws IOException {
        List<Long> times = new ArrayList<>();
        e.queryTier0(metric, from, to, (t, v) -> {
            assertEquals(sn(metric, t), v, "the value at T0+" + (t - T0));
            times.add(t);
        });
        return times;
    }

    /** Records the positions of datafile reads; fails the reads at one position (EIO) when told. */
    static final class ExtentReads extends ForwardingFileIo {
        final ConcurrentSkipListSet<Long> reads = new ConcurrentSkipListSet<>();
        volatile boolean recording;
        volatile long failAt = -1;
        /** The datafile the recorded reads were in (the engine writes a new one at each open). */
        volatile Path datafile;

        ExtentReads() {
            super(FileChannelIo.INSTANCE);
        }

        @Override
        public FileHandle open(Path path, OpenMode mode) throws IOException {
            FileHandle h = delegate.open(path, mode);
            if (!path.getFileName().toString().startsWith(DiskFormat.DATAFILE_PREFIX)) {
                return h;
            }
            return new ForwardingFileHandle(h) {
                @Override
                public int read(ByteBuffer dst, long position) throws IOException {
                    if (position == failAt) {
                        throw new IOException(path + ": Input/output error (injected at " + position + ")");
                    }
                    if (recording) {
                        datafile = path;
                        reads.add(position);
                    }
                    return delegate.read(dst, position);
                }
            };
        }
    }
}
