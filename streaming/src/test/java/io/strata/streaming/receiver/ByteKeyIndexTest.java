package io.strata.streaming.receiver;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Names to dense indexes, looked up from a line's bytes, with and without the expected index. */
class ByteKeyIndexTest {

    private static int get(ByteKeyIndex index, String key, int expected) {
        byte[] line = ("SET \"" + key + "\" = 1").getBytes(StandardCharsets.UTF_8);
        int s = 5;
        int e = s + key.getBytes(StandardCharsets.UTF_8).length;
        return index.get(line, s, e, expected);
    }

    @Test
    void keysGetTheirIndexesInOrderOfAddition() {
        ByteKeyIndex index = new ByteKeyIndex();
        assertEquals(0, index.add("d1"));
        assertEquals(1, index.add("d10"));
        assertEquals(2, index.add(""));
        assertEquals(3, index.add("débit"));
        assertEquals(1, index.add("d10"), "an existing key keeps its index");
        assertEquals(4, index.size());
        assertEquals(0, index.get("d1"));
        assertEquals(1, index.get("d10"));
        assertEquals(2, index.get(""));
        assertEquals(3, index.get("débit"));
        assertEquals(-1, index.get("d"));
        assertEquals(-1, index.get("d100"));
        assertEquals("débit", index.key(3));
        assertEquals("", index.key(2));
    }

    @Test
    void theExpectedIndexIsOnlyAHint() {
        ByteKeyIndex index = new ByteKeyIndex();
        index.add("d1");
        index.add("d10");
        index.add("d2");
        assertEquals(1, get(index, "d10", 1), "the expected key");
        assertEquals(1, get(index, "d10", 0), "another key expected: a prefix of it");
        assertEquals(0, get(index, "d1", 1), "another key expected: one it is a prefix of");
        assertEquals(2, get(index, "d2", 3), "past the last index");
        assertEquals(2, get(index, "d2", -1), "negative");
        assertEquals(-1, get(index, "d3", 2), "unknown, whatever was expected");
        assertEquals(-1, get(index, "d3", 3));
    }

    @Test
    void manyKeysSurviveTheGrowthOfEveryArray() {
        ByteKeyIndex index = new ByteKeyIndex();
        int n = 5_000;
        for (int i = 0; i < n; i++) {
            assertEquals(i, index.add("chart.number_" + i + "_" + "x".repeat(i % 40)));
        }
        assertEquals(n, index.size());
        for (int i = 0; i < n; i++) {
            String key = "chart.number_" + i + "_" + "x".repeat(i % 40);
            assertEquals(i, index.get(key));
            assertEquals(i, get(index, key, i));
            assertEquals(i, get(index, key, (i + 1) % n));
            assertEquals(key, index.key(i));
        }
        assertEquals(-1, index.get("chart.number_" + n + "_"));
    }
}
