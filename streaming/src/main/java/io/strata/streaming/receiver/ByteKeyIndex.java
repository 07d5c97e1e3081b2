package io.strata.streaming.receiver;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Names (chart ids, dimension ids) to dense indexes, looked up straight from the bytes of a
 * received line: a {@code SET} or {@code BEGIN} must find its dimension or chart without
 * building a String per sample. Open addressing over an int table; the keys' bytes are kept
 * one after the other in one array, in index order, so that the few names of a chart share a
 * cache line or two instead of being an object each (a parent holds millions of them, and a
 * lookup that misses the cache on its key costs more than the rest of the line's parsing).
 * Single-threaded (one per connection or chart).
 */
final class ByteKeyIndex {

    private static final int EMPTY = -1;

    /** Key {@code i} is {@code bytes[offsets[i] .. offsets[i + 1])}. */
    private byte[] bytes = new byte[32];
    private int[] offsets = new int[9];
    private int[] slots = filled(16);
    private int size;

    private static int[] filled(int n) {
        int[] a = new int[n];
        Arrays.fill(a, EMPTY);
        return a;
    }

    int size() {
        return size;
    }

    /** The index of the key in {@code b[s, e)}, or -1. */
    int get(byte[] b, int s, int e) {
        int mask = slots.length - 1;
        int i = hash(b, s, e) & mask;
        while (true) {
            int v = slots[i];
            if (v == EMPTY) {
                return -1;
            }
            if (matches(v, b, s, e)) {
                return v;
            }
            i = (i + 1) & mask;
        }
    }

    /**
     * {@link #get(byte[], int, int)}, trying index {@code expected} first: a child sends a chart's
     * dimensions, and its charts, in the same order every collection, so the key after the last
     * one found is almost always the next, and comparing it costs less than hashing the key.
     */
    int get(byte[] b, int s, int e, int expected) {
        if (expected >= 0 && expected < size && matches(expected, b, s, e)) {
            return expected;
        }
        return get(b, s, e);
    }

    /** Whether key {@code index} is {@code b[s, e)}: a plain loop, the keys are a few bytes. */
    private boolean matches(int index, byte[] b, int s, int e) {
        int from = offsets[index];
        int length = offsets[index + 1] - from;
        if (length != e - s) {
            return false;
        }
        byte[] k = bytes;
        for (int i = 0; i < length; i++) {
            if (k[from + i] != b[s + i]) {
                return false;
            }
        }
        return true;
    }

    int get(String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return get(k, 0, k.length);
    }

    /** Adds the key when absent; returns its index (new keys get the next index). */
    int add(String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        int existing = get(k, 0, k.length);
        if (existing >= 0) {
            return existing;
        }
        if (size + 2 > offsets.length) {
            offsets = Arrays.copyOf(offsets, offsets.length * 2);
        }
        int from = offsets[size];
        if (from + k.length > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(from + k.length, bytes.length * 2));
        }
        System.arraycopy(k, 0, bytes, from, k.length);
        offsets[size + 1] = from + k.length;
        if ((size + 1) * 2 > slots.length) {
            rehash(slots.length * 2);
        }
        insert(size);
        return size++;
    }

    String key(int index) {
        return new String(bytes, offsets[index], offsets[index + 1] - offsets[index], StandardCharsets.UTF_8);
    }

    private void rehash(int capacity) {
        slots = filled(capacity);
        for (int v = 0; v < size; v++) {
            insert(v);
        }
    }

    private void insert(int v) {
        int mask = slots.length - 1;
        int i = hash(bytes, offsets[v], offsets[v + 1]) & mask;
        while (slots[i] != EMPTY) {
            i = (i + 1) & mask;
        }
        slots[i] = v;
    }

    private static int hash(byte[] b, int s, int e) {
        int h = 0x811C9DC5;
        for (int i = s; i < e; i++) {
            h = (h ^ b[i]) * 0x01000193;
        }
        return h ^ (h >>> 16);
    }
}
