package io.strata.streaming.receiver;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Names (chart ids, dimension ids) to dense indexes, looked up straight from the bytes of a
 * received line: a {@code SET} or {@code BEGIN} must find its dimension or chart without
 * building a String per sample. Open addressing over an int table; keys are kept as byte arrays.
 * Single-threaded (one per connection or chart).
 */
final class ByteKeyIndex {

    private static final int EMPTY = -1;

    private byte[][] keys = new byte[8][];
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
            if (Arrays.equals(keys[v], 0, keys[v].length, b, s, e)) {
                return v;
            }
            i = (i + 1) & mask;
        }
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
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2);
        }
        keys[size] = k;
        if ((size + 1) * 2 > slots.length) {
            rehash(slots.length * 2);
        }
        insert(size);
        return size++;
    }

    String key(int index) {
        return new String(keys[index], StandardCharsets.UTF_8);
    }

    private void rehash(int capacity) {
        slots = filled(capacity);
        for (int v = 0; v < size; v++) {
            insert(v);
        }
    }

    private void insert(int v) {
        int mask = slots.length - 1;
        byte[] k = keys[v];
        int i = hash(k, 0, k.length) & mask;
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
