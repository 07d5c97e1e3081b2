package io.strata.engine.registry;

import java.util.Arrays;
import java.util.UUID;

/**
 * The metrics registry: one entry per metric (host x chart x dimension) keyed by UUID, with its
 * first and last time per tier. Entries are dense int ids, stored as a struct of arrays in chunks
 * of {@value #CHUNK} so that an entry never moves, readers need no lock, and a metric that is no
 * longer collected costs only its array slots (see {@link #bytesPerMetric(int)}).
 *
 * <p>Registration is serialised by a lock; reading and updating the times of an existing id is
 * lock-free (one writer per metric, readers may see a slightly stale time).
 */
public final class MetricRegistry {

    static final int CHUNK_BITS = 12;
    static final int CHUNK = 1 << CHUNK_BITS;
    private static final int MASK = CHUNK - 1;
    /** Times are unsigned seconds; 0 means "none". */
    public static final int NO_TIME = 0;

    private final int tiers;
    private volatile Chunk[] chunks = new Chunk[0];
    private volatile int size;

    // UUID -> id, open addressing over ids only (the UUIDs are compared in the chunks), so that
    // the map costs 4 bytes a slot; guarded by "this" for writes and reads.
    private int[] keyId = new int[1024];
    private int mapCount;

    private static final class Chunk {
        final long[] msb = new long[CHUNK];
        final long[] lsb = new long[CHUNK];
        final int[] chartId = new int[CHUNK];
        /** [tier * CHUNK + slot] */
        /** First and last time side by side per (tier, metric): a store touches one cache line. */
        final int[] firstLast;

        Chunk(int tiers) {
            firstLast = new int[2 * tiers * CHUNK];
        }
    }

    public MetricRegistry(int tiers) {
        if (tiers < 1 || tiers > 5) {
            throw new IllegalArgumentException("tiers must be 1..5, got " + tiers);
        }
        this.tiers = tiers;
        Arrays.fill(keyId, -1);
    }

    public int tiers() {
        return tiers;
    }

    public int size() {
        return size;
    }

    /** The id of {@code uuid}, registering it (under {@code chartId}, -1 when unknown) when new. */
    public synchronized int register(long msb, long lsb, int chartId) {
        int found = find(msb, lsb);
        if (found >= 0) {
            if (chartId >= 0) {
                chunk(found).chartId[found & MASK] = chartId;
            }
            return found;
        }
        int id = size;
        int c = id >>> CHUNK_BITS;
        Chunk[] cs = chunks;
        if (c >= cs.length) {
            Chunk[] grown = Arrays.copyOf(cs, c + 1);
            grown[c] = new Chunk(tiers);
            chunks = grown;
            cs = grown;
        }
        Chunk ch = cs[c];
        int s = id & MASK;
        ch.msb[s] = msb;
        ch.lsb[s] = lsb;
        ch.chartId[s] = chartId;
        put(msb, lsb, id);
        size = id + 1;
        return id;
    }

    public int register(UUID uuid, int chartId) {
        return register(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits(), chartId);
    }

    /** The id of a known UUID, or -1. */
    public synchronized int lookup(long msb, long lsb) {
        return find(msb, lsb);
    }

    public int lookup(UUID uuid) {
        return lookup(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    private Chunk chunk(int id) {
        if (id < 0 || id >= size) {
            throw new IndexOutOfBoundsException("metric id " + id + " not registered (size " + size + ")");
        }
        return chunks[id >>> CHUNK_BITS];
    }

    public long uuidMsb(int id) {
        return chunk(id).msb[id & MASK];
    }

    public long uuidLsb(int id) {
        return chunk(id).lsb[id & MASK];
    }

    public UUID uuid(int id) {
        Chunk ch = chunk(id);
        return new UUID(ch.msb[id & MASK], ch.lsb[id & MASK]);
    }

    public int chartId(int id) {
        return chunk(id).chartId[id & MASK];
    }

    /**
     * First time stored in {@code tier}, unsigned seconds, or {@link #NO_TIME}: the tier holds
     * nothing of the metric (never stored, or everything rotated away; {@link #lastTime} then
     * still tells when it was last seen, and the next stored point sets the first time again).
     * After a rotation it may be a lower bound rather than a point's time when the metric's only
     * points left are in memory ({@code TierStore.setMemoryFirstTime}).
     */
    public long firstTime(int id, int tier) {
        return Integer.toUnsignedLong(chunk(id).firstLast[2 * (tier * CHUNK + (id & MASK))]);
    }

    public long lastTime(int id, int tier) {
        return Integer.toUnsignedLong(chunk(id).firstLast[2 * (tier * CHUNK + (id & MASK)) + 1]);
    }

    /** Widens the retention of {@code id} in {@code tier} to include [first, last]. */
    public void extend(int id, int tier, long first, long last) {
        Chunk ch = chunk(id);
        int i = 2 * (tier * CHUNK + (id & MASK));
        int[] fl = ch.firstLast;
        long f = Integer.toUnsignedLong(fl[i]);
        if (f == NO_TIME || first < f) {
            fl[i] = (int) first;
        }
        long l = Integer.toUnsignedLong(fl[i + 1]);
        if (last > l) {
            fl[i + 1] = (int) last;
        }
    }

    /**
     * Sets the first time of {@code id} in {@code tier}: rotation moves it forward when it deletes
     * a datafile, to {@link #NO_TIME} when nothing of the metric is left in the tier. Called by the
     * tier's writer while collectors may {@link #extend} the same entry (a race costs at most a
     * first time that is briefly stale).
     */
    public void setFirstTime(int id, int tier, long first) {
        chunk(id).firstLast[2 * (tier * CHUNK + (id & MASK))] = (int) first;
    }

    /**
     * Forgets every metric: ids start from 0 again, and the registry answers as a new one would, keeping
     * the arrays it has (a first chunk is {@value #CHUNK} entries of every array, some 176 KiB at three
     * tiers). For a caller that opens many short-lived stores one after the other, such as the metadata
     * log's fuzzer; nothing may read the registry meanwhile.
     */
    public synchronized void clear() {
        Chunk[] cs = chunks;
        for (int id = 0; id < size; id++) {
            Chunk ch = cs[id >>> CHUNK_BITS];
            int s = id & MASK;
            ch.msb[s] = 0;
            ch.lsb[s] = 0;
            ch.chartId[s] = 0;
            for (int tier = 0; tier < tiers; tier++) {
                int i = 2 * (tier * CHUNK + s);
                ch.firstLast[i] = NO_TIME;
                ch.firstLast[i + 1] = NO_TIME;
            }
        }
        Arrays.fill(keyId, -1);
        mapCount = 0;
        size = 0;
    }

    /** Bytes of registry memory per registered metric (arrays and map), for a given tier count. */
    public static int bytesPerMetric(int tiers) {
        // msb + lsb + chartId + first/last per tier, plus the map's int slot at >= 37.5 % load.
        return 16 + 4 + tiers * 8 + 4 * 8 / 3;
    }

    // ---- open-addressing map ------------------------------------------------------------------

    private int slotOf(long msb, long lsb, int cap) {
        long h = msb * 0x9E3779B97F4A7C15L ^ lsb * 0xC2B2AE3D27D4EB4FL;
        h ^= h >>> 29;
        return (int) (h & (cap - 1));
    }

    private int find(long msb, long lsb) {
        int cap = keyId.length;
        int i = slotOf(msb, lsb, cap);
        Chunk[] cs = chunks;
        while (true) {
            int id = keyId[i];
            if (id < 0) {
                return -1;
            }
            Chunk ch = cs[id >>> CHUNK_BITS];
            if (ch.msb[id & MASK] == msb && ch.lsb[id & MASK] == lsb) {
                return id;
            }
            i = (i + 1) & (cap - 1);
        }
    }

    private void put(long msb, long lsb, int id) {
        // at most 3/4 full: linear probing stays short, and the map costs <= 11 bytes a metric
        if ((long) (mapCount + 1) * 4 > (long) keyId.length * 3) {
            rehash(keyId.length * 2);
        }
        insert(keyId, msb, lsb, id);
        mapCount++;
    }

    private void insert(int[] ids, long msb, long lsb, int id) {
        int cap = ids.length;
        int i = slotOf(msb, lsb, cap);
        while (ids[i] >= 0) {
            i = (i + 1) & (cap - 1);
        }
        ids[i] = id;
    }

    private void rehash(int cap) {
        int[] ids = new int[cap];
        Arrays.fill(ids, -1);
        Chunk[] cs = chunks;
        for (int id : keyId) {
            if (id >= 0) {
                Chunk ch = cs[id >>> CHUNK_BITS];
                insert(ids, ch.msb[id & MASK], ch.lsb[id & MASK], id);
            }
        }
        keyId = ids;
    }
}
