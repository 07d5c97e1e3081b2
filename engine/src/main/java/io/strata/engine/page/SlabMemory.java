package io.strata.engine.page;

import net.openhft.chronicle.core.UnsafeMemory;
import net.openhft.posix.PosixAPI;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.Locale;

/**
 * Where {@link PageMemory}'s slabs come from: anonymous memory mappings of their own where the
 * operating system offers them, malloc otherwise. A 64 KiB slab from malloc lives in one of
 * glibc's arenas, and when the slab is freed the arena keeps the memory (it only gives back the
 * top of a heap): over a long run the process kept the high-water mark of every arena, some
 * 1 KiB per metric at 100 000 metrics (MALLOC_ARENA_MAX=2 alone won back ~0.8 KiB). A mapping
 * goes back to the system whole at munmap, and is page-aligned, so no alignment slack either.
 */
final class SlabMemory {

    private static final Logger log = LoggerFactory.getLogger(SlabMemory.class);
    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final long PAGE = 4096;
    private static final PosixAPI POSIX = posixOrNull();
    /** Bytes of every slab alive in this process, of every {@link PageMemory}: the tests' leak guard reads it. */
    private static final AtomicLong LIVE_BYTES = new AtomicLong();

    private SlabMemory() {
    }

    private static PosixAPI posixOrNull() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                || Boolean.getBoolean("strata.slabs.malloc")) {
            return null;
        }
        try {
            PosixAPI p = PosixAPI.posix();
            long a = p.mmap(0, PAGE, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0);
            if (a == 0 || a == -1) {
                log.info("hot-page slabs from malloc: an anonymous mapping failed ({})", p.lastErrorStr());
                return null;
            }
            p.munmap(a, PAGE);
            return p;
        } catch (Throwable e) {
            log.info("hot-page slabs from malloc: no mmap from Java here ({})", e.toString());
            return null;
        }
    }

    /** Whether slabs are mappings of their own (else malloc'd). */
    static boolean mapped() {
        return POSIX != null;
    }

    /** Bytes reserved for a slab of {@code usable} bytes: whole pages, or 16 more for alignment. */
    static long size(long usable) {
        return POSIX != null ? (usable + PAGE - 1) & -PAGE : usable + 16;
    }

    static long allocate(long size) {
        long raw = allocateRaw(size);
        LIVE_BYTES.addAndGet(size);
        return raw;
    }

    /** Bytes of the slabs allocated and not yet freed, in the whole process. */
    static long liveBytes() {
        return LIVE_BYTES.get();
    }

    private static long allocateRaw(long size) {
        if (POSIX != null) {
            long a = POSIX.mmap(0, size, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0);
            if (a == 0 || a == -1) {
                throw new OutOfMemoryError("no memory for a hot-page slab of " + size + " bytes: mmap failed ("
                        + POSIX.lastErrorStr() + ")");
            }
            return a;
        }
        return MEMORY.allocate(size);
    }

    /** The first 16-byte aligned address of a slab at {@code raw} (malloc gives 16-byte alignment on 64-bit Linux). */
    static long align(long raw) {
        return (raw + 15) & ~15L;
    }

    static void free(long raw, long size) {
        LIVE_BYTES.addAndGet(-size);
        if (POSIX != null) {
            if (POSIX.munmap(raw, size) != 0) {
                throw new IllegalStateException("munmap of a hot-page slab at " + Long.toHexString(raw) + " failed: "
                        + POSIX.lastErrorStr());
            }
            return;
        }
        MEMORY.freeMemory(raw, size);
    }
}
