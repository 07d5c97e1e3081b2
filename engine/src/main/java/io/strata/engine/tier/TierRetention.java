package io.strata.engine.tier;

import io.strata.engine.DiskFormat;
import io.strata.engine.EngineConfig;
import io.strata.engine.datafile.DataFile;
import io.strata.engine.io.FileIo;
import io.strata.engine.journal.JournalV2;
import io.strata.engine.registry.MetricRegistry;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.IntToLongFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.Objects;

/**
 * Rotation and retention of one tier, as DBENGINE does it: the tier's disk use (bytes of its
 * datafiles and journals) is kept in a running count, and the oldest datafile is deleted, with its
 * journals, while the tier is over its quota or while the oldest datafile's newest point is older
 * than the maximum age ({@code docs/format/datafile.md}, "Rotation").
 *
 * <p>Part of {@link TierStore}: accounting and enforcement run on the tier's writer (the flusher,
 * open, or a caller of {@code enforceRetention}), under the {@code TierStore} monitor; other
 * threads only read the counters and add listeners.
 *
 * <p>Deleting a datafile:
 * <ol>
 *   <li>what it holds (metrics and their last times) is taken from its index;
 *   <li>it is removed from the list of datafiles under the tier's write lock, so no reader holds a
 *       page reference into it afterwards, and under the same lock the registry first time of
 *       each metric it held moves forward ({@link #moveFirstTimes}), so that a reader never sees
 *       the data gone while the first time still promises it;
 *   <li>the deletion listeners are called (caches drop its entries);
 *   <li>its journal v2 mapping and its file handle are closed;
 *   <li>the datafile is deleted, then journal v1, then journal v2. A crash in between leaves
 *       journals without a datafile, which the next open deletes.
 * </ol>
 * A deletion that fails (an I/O error) leaves the rest "to delete": the bytes stay counted, the
 * deletion is retried on the next enforcement, and while a <em>datafile</em> is still to delete
 * nothing more is rotated (deleting more would drop data from queries without freeing the disk).
 */
final class TierRetention {

    private static final Logger log = LoggerFactory.getLogger(TierRetention.class);
    private static final long MAX_TIME = 0xFFFF_FFFFL;

    private final TierStore store;
    private final int tier;
    private final EngineConfig cfg;
    private final FileIo io;
    private final Path dir;
    private final MetricRegistry registry;
    private final List<Consumer<DataFile>> listeners = new CopyOnWriteArrayList<>();
    /** Removed from the list of datafiles, not yet (all) deleted; oldest first. */
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private volatile IntToLongFunction memoryFirstTime;
    /** Bytes of the datafiles and journals of the tier, those still to delete included. */
    private volatile long bytes;
    private volatile long datafilesDeleted;
    private volatile long deleteFailures;
    private volatile int datafilesPending;

    /** The files of a datafile removed from the list, in deletion order, and what they counted. */
    private static final class Pending {
        final int fileno;
        final Path[] paths;
        /** What each path counts in the running count until it is deleted. */
        final long[] sizes;
        final long first;
        final long last;
        final String reason;
        final boolean rotation;
        /** Index of the next path to delete: 0 while the datafile itself is still there. */
        int next;
        int attempts;

        Pending(int fileno, Path[] paths, long[] sizes, long first, long last, String reason, boolean rotation) {
            this.fileno = fileno;
            this.paths = paths;
            this.sizes = sizes;
            this.first = first;
            this.last = last;
            this.reason = reason;
            this.rotation = rotation;
        }
    }

    TierRetention(TierStore store, int tier, EngineConfig cfg, FileIo io, Path dir, MetricRegistry registry) {
        this.store = store;
        this.tier = tier;
        this.cfg = cfg;
        this.io = io;
        this.dir = dir;
        this.registry = registry;
    }

    // ---- accounting ---------------------------------------------------------------------------

    long bytes() {
        return bytes;
    }

    long datafilesDeleted() {
        return datafilesDeleted;
    }

    long deleteFailures() {
        return deleteFailures;
    }

    int datafilesPending() {
        return datafilesPending;
    }

    /** Counts {@code delta} more bytes of {@code d} (an extent and its journal transaction). */
    void grew(TierStore.Datafile d, long delta) {
        d.accounted += delta;
        bytes += delta;
    }

    /**
     * Counts {@code d} as it is on disk now: its datafile's size and the sizes of its journals
     * (two file stats). Used at open and when a datafile closes (journal v2 written, journal v1
     * perhaps rewritten), which also corrects any drift of the running count.
     */
    void recount(TierStore.Datafile d) {
        int fileno = d.file.fileno();
        long now = d.file.size() + sizeIfAny(dir.resolve(DiskFormat.journalV1Name(tier, fileno)))
                + sizeIfAny(dir.resolve(DiskFormat.journalV2Name(tier, fileno)));
        bytes += now - d.accounted;
        d.accounted = now;
    }

    private long sizeIfAny(Path p) {
        try {
            return io.exists(p) ? io.size(p) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    void addListener(Consumer<DataFile> l) {
        listeners.add(Objects.requireNonNull(l, "listener"));
    }

    void setMemoryFirstTime(IntToLongFunction f) {
        memoryFirstTime = f;
    }

    // ---- enforcement ----------------------------------------------------------------------------

    /**
     * At open, after recovery: a tier over its quota (the quota was lowered, or the datafile
     * being written when the engine stopped pushed it over) is rotated down to it.
     */
    void atOpen() {
        long quota = cfg.quotaBytes(tier);
        if (quota <= 0 || bytes <= quota) {
            return;
        }
        long before = bytes;
        log.info("tier {}: {} bytes of datafiles and journals at open, over the quota of {} bytes: deleting the "
                + "oldest datafiles", tier, before, quota);
        int n = enforce(0, false);
        log.info("tier {}: deleted {} datafile(s) at open, {} bytes freed, {} bytes left", tier, n, before - bytes,
                bytes);
    }

    /**
     * Deletes the oldest datafiles while the tier is over its quota and, with {@code useAge},
     * while the oldest one's newest point is older than {@code now - maxAge}. Never deletes the
     * datafile being written. Returns how many datafiles were deleted from the disk (those left
     * to delete by an earlier failure included).
     */
    int enforce(long now, boolean useAge) {
        int n = retryPending();
        long quota = cfg.quotaBytes(tier);
        long maxAge = cfg.maxAgeSeconds(tier);
        long cutoff = useAge && maxAge > 0 && now > maxAge ? now - maxAge : -1;
        while (datafilesPending == 0) {
            List<TierStore.Datafile> files = store.files;
            if (files.isEmpty()) {
                break;
            }
            TierStore.Datafile oldest = files.get(0);
            if (oldest == store.current) {
                break;
            }
            String reason;
            if (quota > 0 && bytes > quota) {
                reason = "tier over its quota (" + bytes + " > " + quota + " bytes)";
            } else if (cutoff >= 0 && oldest.lastTime < cutoff) {
                reason = "expired (newest point " + oldest.lastTime + " older than " + now + " - max age " + maxAge
                        + " s = " + cutoff + ")";
            } else {
                break;
            }
            Pending p = retire(oldest, reason, true);
            if (attempt(p)) {
                n++;
            }
            if (p.next == p.paths.length) {
                pending.remove(p);
            }
        }
        return n;
    }

    /**
     * Removes a datafile that holds no extent (closed empty) from the list and deletes it like a
     * rotated one, without moving first times or counting it as a rotation.
     */
    void removeEmpty(TierStore.Datafile d) {
        Pending p = retire(d, "no extents", false);
        attempt(p);
        if (p.next == p.paths.length) {
            pending.remove(p);
        }
    }

    /** Tries once more what is left to delete; returns how many rotated datafiles it deleted. */
    int retryPending() {
        int n = 0;
        for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (attempt(p)) {
                n++;
            }
            if (p.next == p.paths.length) {
                it.remove();
            } else if (p.next == 0) {
                break; // a datafile could not be deleted: keep the order, try again next time
            }
        }
        return n;
    }

    // ---- one datafile ---------------------------------------------------------------------------

    /** Steps 1 to 5 of the class comment; returns the files to delete, queued. */
    private Pending retire(TierStore.Datafile d, String reason, boolean rotation) {
        Held held = new Held();
        if (rotation) {
            try {
                d.index.forEachMetric((msb, lsb, first, last, pages) -> held.add(msb, lsb, last));
            } catch (RuntimeException e) {
                log.warn("tier {} datafile {}: its index could not be read ({}); first times stay as they are",
                        tier, d.file.fileno(), e.toString());
            }
        }
        store.lock.writeLock().lock();
        try {
            store.files.remove(d);
            store.rebuildRanges();
            // Under the same lock: a reader that finds the datafile gone also finds the first
            // times moved, so it can tell rotated data from lost data.
            if (rotation) {
                moveFirstTimes(held);
            }
        } finally {
            store.lock.writeLock().unlock();
        }
        for (Consumer<DataFile> l : listeners) {
            try {
                l.accept(d.file);
            } catch (RuntimeException e) {
                log.warn("tier {} datafile {}: a deletion listener failed: {}", tier, d.file.fileno(), e.toString());
            }
        }
        long datafileBytes = d.file.size();
        try {
            // a query that copied page references, or a scan that planned its reads, before the
            // removal may still read the file (and a scan its journal v2): the last one closes them
            JournalV2 j2 = d.index instanceof JournalV2 j ? j : null;
            d.file.closeWhenUnread(j2 == null ? null : j2::close);
        } catch (IOException e) {
            log.warn("tier {} datafile {}: close failed before deletion: {}", tier, d.file.fileno(), e.getMessage());
        }
        int fileno = d.file.fileno();
        Path v1 = dir.resolve(DiskFormat.journalV1Name(tier, fileno));
        long v1Bytes = Math.max(0, Math.min(sizeIfAny(v1), d.accounted - datafileBytes));
        // journal v2 counts the rest, so that the parts add up to what the datafile counted
        long[] sizes = {datafileBytes, v1Bytes, d.accounted - datafileBytes - v1Bytes};
        Pending p = new Pending(fileno, new Path[]{d.file.path(), v1, dir.resolve(DiskFormat.journalV2Name(tier, fileno))},
                sizes, d.firstTime, d.lastTime, reason, rotation);
        pending.add(p);
        datafilesPending++;
        return p;
    }

    /**
     * Deletes what is left of {@code p}, in order, until one deletion fails; returns whether a
     * rotated datafile itself was deleted by this call. Each file stays counted until it is deleted; the
     * caller takes a fully deleted entry off the queue.
     */
    private boolean attempt(Pending p) {
        boolean datafileGone = false;
        while (p.next < p.paths.length) {
            Path path = p.paths[p.next];
            try {
                io.delete(path);
            } catch (IOException | RuntimeException e) {
                deleteFailures++;
                p.attempts++;
                if (p.attempts == 1 || p.attempts % 100 == 0) {
                    log.warn("tier {} datafile {}: could not delete {} ({}), attempt {}; kept to delete, retried at the "
                            + "next rotation{}", tier, p.fileno, path.getFileName(), e.getMessage(), p.attempts,
                            p.next == 0 ? " (no other datafile is rotated meanwhile)" : "");
                }
                return datafileGone;
            }
            bytes -= p.sizes[p.next];
            if (p.next == 0) {
                datafilesPending--;
                if (p.rotation) {
                    datafileGone = true;
                    datafilesDeleted++;
                    log.info("tier {} datafile {} deleted, {}: {} bytes freed with its journals, it held [{} .. {}] "
                                    + "({} .. {}){}", tier, p.fileno, p.reason, p.sizes[0] + p.sizes[1] + p.sizes[2],
                            p.first, p.last, instant(p.first), instant(p.last),
                            p.attempts > 0 ? " after " + p.attempts + " failed attempt(s)" : "");
                }
            }
            p.next++;
        }
        return datafileGone;
    }

    private static Object instant(long t) {
        return t <= 0 || t > MAX_TIME ? "-" : Instant.ofEpochSecond(t);
    }

    // ---- first times --------------------------------------------------------------------------

    /** The metrics a rotated datafile held, with their last time in it. */
    private static final class Held {
        long[] msb = new long[64];
        long[] lsb = new long[64];
        long[] last = new long[64];
        int n;

        void add(long m, long l, long t) {
            if (n == msb.length) {
                msb = Arrays.copyOf(msb, n * 2);
                lsb = Arrays.copyOf(lsb, n * 2);
                last = Arrays.copyOf(last, n * 2);
            }
            msb[n] = m;
            lsb[n] = l;
            last[n] = t;
            n++;
        }
    }

    /**
     * Moves the registry first time of each metric the rotated datafile held: to the earliest
     * page start of the metric in the tier's remaining datafiles; when none remains, to the
     * earliest point of the metric still in memory (when {@link #setMemoryFirstTime} was given),
     * else, when the registry's last time shows points newer than the deleted datafile's, to one
     * second after the metric's last time in it (a lower bound of what memory holds, so a query
     * that starts at the first time misses nothing), else to {@link MetricRegistry#NO_TIME}: the
     * tier holds nothing of the metric (its last time is kept, as when it was last seen).
     *
     * <p>The remaining datafiles are searched oldest first, skipping every one that starts at or
     * after the earliest page found: a metric's pages are mostly written in time order, but a page
     * stored behind newer ones ({@code StorageEngine.storePast}) lies in a newer datafile than
     * they, and may be waiting in memory (the earliest of both is taken).
     */
    private void moveFirstTimes(Held held) {
        for (int i = 0; i < held.n; i++) {
            int id = registry.lookup(held.msb[i], held.lsb[i]);
            if (id < 0) {
                continue;
            }
            long cur = registry.firstTime(id, tier);
            if (cur != MetricRegistry.NO_TIME && cur > held.last[i]) {
                continue; // the registry already starts after this datafile's pages
            }
            long first = earliestOnDisk(id, held.msb[i], held.lsb[i]);
            if (first == MetricRegistry.NO_TIME) {
                first = notOnDisk(id, held.last[i]);
            } else {
                // a page stored behind newer ones (StorageEngine.storePast) may still wait in memory
                long mem = inMemory(id);
                if (mem != MetricRegistry.NO_TIME && mem < first) {
                    first = mem;
                }
            }
            registry.setFirstTime(id, tier, first);
        }
    }

    private long earliestOnDisk(int id, long msb, long lsb) {
        long[] min = {Long.MAX_VALUE};
        for (TierStore.Datafile d : store.files) {
            // A datafile that starts at or after the earliest page found cannot hold an earlier
            // one; the others are searched too: a page stored behind newer ones
            // (StorageEngine.storePast) is in a newer datafile than the pages after it.
            if (d.lastTime == MetricRegistry.NO_TIME || d.firstTime >= min[0]) {
                continue;
            }
            d.index.pages(id, msb, lsb, 0, MAX_TIME, (off, len, slot, start, ue, entries, type) -> {
                if (start < min[0]) {
                    min[0] = start;
                }
            });
        }
        return min[0] == Long.MAX_VALUE ? MetricRegistry.NO_TIME : min[0];
    }

    private long inMemory(int id) {
        IntToLongFunction mem = memoryFirstTime;
        return mem == null ? MetricRegistry.NO_TIME : mem.applyAsLong(id);
    }

    private long notOnDisk(int id, long lastInDeleted) {
        long t = inMemory(id);
        if (t != MetricRegistry.NO_TIME) {
            return t;
        }
        if (registry.lastTime(id, tier) > lastInDeleted) {
            return Math.min(lastInDeleted + 1, MAX_TIME);
        }
        return MetricRegistry.NO_TIME;
    }
}
