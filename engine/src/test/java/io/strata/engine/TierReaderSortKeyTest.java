package io.strata.engine;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reader orders pages by start time and place with keys that hold any index a read can have. */
class TierReaderSortKeyTest {

    @Test
    void keysKeepTimeOrderAndIndexPastTwoToTheTwenty() {
        int[] indexes = {0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 5, 3_000_000, Integer.MAX_VALUE};
        long[] starts = {1, 1_700_000_000L, 0xFFFF_FFFFL};
        for (long start : starts) {
            for (int i : indexes) {
                long key = TierReader.sortKey(start, i);
                assertTrue(key >= 0, "positive key for " + start + ", " + i);
                assertEquals(i, TierReader.index(key), "index of page " + i + " at " + start);
                assertEquals(start, key >>> 31, "start of page " + i);
            }
        }
        // a page later in time sorts after an earlier one, whatever their indexes
        long[] keys = {TierReader.sortKey(1_700_000_100L, 5), TierReader.sortKey(1_700_000_000L, (1 << 20) + 7)};
        Arrays.sort(keys);
        assertEquals((1 << 20) + 7, TierReader.index(keys[0]));
        assertEquals(5, TierReader.index(keys[1]));
    }
}
