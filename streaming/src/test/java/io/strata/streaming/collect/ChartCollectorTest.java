package io.strata.streaming.collect;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.strata.engine.page.StorageNumber.SN_FLAG_NONE;
import static io.strata.engine.page.StorageNumber.SN_FLAG_NOT_ANOMALOUS;
import static io.strata.engine.page.StorageNumber.SN_FLAG_RESET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Worked examples of Netdata 1.37.1's rrdset_done as ported by {@link ChartCollector}. Times are
 * written as T + seconds, T = 1 700 000 000 (a multiple of 10). Every expected value is computed
 * by hand in the comments from the C logic (see docs/format/stream-values.md).
 */
class ChartCollectorTest {

    private static final long T = 1_700_000_000L;
    private static final int NORMAL = SN_FLAG_NOT_ANOMALOUS;
    private static final int RESET = SN_FLAG_NOT_ANOMALOUS | SN_FLAG_RESET;

    private final RecordingSink sink = new RecordingSink();

    /** Wall clock at T + ms/1000 s, in µs. */
    private static long at(long millisAfterT) {
        return (T * 1000 + millisAfterT) * 1000;
    }

    /** One streamed collection: BEGIN µs, SET each dimension in index order, END, all at the same clock. */
    private static void live(ChartCollector c, long micros, long nowMillisAfterT, long... values) {
        c.begin(micros, at(nowMillisAfterT));
        for (int i = 0; i < values.length; i++) {
            c.set(i, values[i]);
        }
        c.end(at(nowMillisAfterT));
    }

    /** One local collection: SET everything, then rrdset_next + rrdset_done at the clock. */
    private static void local(ChartCollector c, long nowMillisAfterT, long... values) {
        for (int i = 0; i < values.length; i++) {
            c.set(i, values[i]);
        }
        c.collectNow(at(nowMillisAfterT));
    }

    private static void assertPoint(RecordingSink.Point p, double value, int flags) {
        assertEquals(value, p.value(), 1e-9, p.toString());
        assertEquals(flags, p.flags(), p.toString());
    }

    private static void assertGap(RecordingSink.Point p) {
        assertTrue(Double.isNaN(p.value()), p.toString());
        assertEquals(SN_FLAG_NONE, p.flags(), p.toString());
    }

    @Test
    void absoluteAppliesMultiplierAndDivisorAndTheFirstCollectionIsNotStored() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(7, Algorithm.ABSOLUTE, 3, 2);
        // first collection at T+0.3: the chart is put at T+0.5, nothing is stored
        local(c, 300, 10);
        assertTrue(sink.points.isEmpty());
        assertEquals(at(500), c.chartLastCollectedUt());
        assertEquals(at(0), c.chartLastUpdatedUt());
        // T+1.3: slot T+1 is the only one in (T+0.5, T+1.3]: 20 * 3 / 2 = 30
        local(c, 1300, 20);
        assertPoint(sink.at(7, T + 1), 30, NORMAL);
        assertEquals(1, sink.at(7, T + 1).updateEvery());
        // T+2.3: -7 * 3 / 2 = -10.5
        local(c, 2300, -7);
        assertPoint(sink.at(7, T + 2), -10.5, NORMAL);
        assertEquals(2, sink.points.size());
    }

    @Test
    void multiplierOrDivisorZeroMeansOne() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.ABSOLUTE, 0, 0);
        local(c, 500, 4);
        local(c, 1500, 9);
        assertPoint(sink.at(1, T + 1), 9, NORMAL);
    }

    @Test
    void incrementalIsARatePerSecondSplitAcrossSlots() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.INCREMENTAL, 8, 1000);
        live(c, 0, 500, 0);             // first: chart at T+0.5, nothing stored
        // second BEGIN: the new chart's clock is synced, so 1 000 000 is replaced by
        // |now - last collected| = 1.5 - 0.5 s = 1 s -> collected at T+1.5.
        // calculated = (1000 - 0) * 8 / 1000 = 8; slot T+1 gets 8 * (1 - 0.5) / (1.5 - 0.5) = 4,
        // the remaining 4 belong to the next slot
        live(c, 1_000_000, 1500, 1000);
        assertPoint(sink.at(1, T + 1), 4, NORMAL);
        // 16 * 0.5 / 1 = 8, plus the 4 left over = 12
        live(c, 1_000_000, 2500, 3000);
        assertPoint(sink.at(1, T + 2), 12, NORMAL);
        // 24 * 0.5 + 8 = 20
        live(c, 1_000_000, 3500, 6000);
        assertPoint(sink.at(1, T + 3), 20, NORMAL);
        assertEquals(3, sink.points.size());
        assertEquals(6000, c.lastCollectedValue(0));
        assertEquals(12, c.lastCalculatedValue(0), 1e-9);
        assertEquals(20, c.lastStoredValue(0), 1e-9);
        assertEquals(T + 3, c.lastStoredTimeSeconds());
    }

    @Test
    void streamedDurationsAreTrustedWhateverTheReceiversClock() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.ABSOLUTE, 1, 1);
        live(c, 0, 500, 1);
        live(c, 1_000_000, 1500, 2);
        // the receiver's clock jumps 100 s back, then 300 s forward: the chart still moves 1 s a time
        live(c, 1_000_000, -98_500, 3);
        live(c, 1_000_000, 301_500, 4);
        assertPoint(sink.at(1, T + 2), 3, NORMAL);
        assertPoint(sink.at(1, T + 3), 4, NORMAL);
        assertEquals(at(3500), c.chartLastCollectedUt());
        assertEquals(1_000_000, c.microsecondsSinceLastCollection());
    }

    @Test
    void thirtyTwoBitCounterWrapGivesTheWrappedIncrementAndFlagsTheSlot() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.INCREMENTAL, 1, 1);
        live(c, 0, 500, 4_294_964_795L);
        live(c, 1_000_000, 1500, 4_294_965_795L);   // +1000: slot T+1 = 500, 500 left
        live(c, 1_000_000, 2500, 4_294_966_795L);   // +1000: 500 + 500
        // wraps to 499. The largest value seen fits 32 bits, so cap = 2^32-1 and
        // delta = cap - last + new = 4294967295 - 4294966795 + 499 = 999 (< 10% of cap: a wrap).
        // slot T+3 = 999 * 0.5 + 500 = 999.5, flagged RESET
        live(c, 1_000_000, 3500, 499);
        live(c, 1_000_000, 4500, 1499);              // 1000 * 0.5 + 499.5
        assertPoint(sink.at(1, T + 1), 500, NORMAL);
        assertPoint(sink.at(1, T + 2), 1000, NORMAL);
        assertPoint(sink.at(1, T + 3), 999.5, RESET);
        assertPoint(sink.at(1, T + 4), 999.5, NORMAL);
    }

    @Test
    void sixtyFourBitCounterResetContributesNothingAndFlagsEveryDimensionOfTheSlot() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.INCREMENTAL, 1, 1);
        c.addDimension(2, Algorithm.ABSOLUTE, 1, 1);
        live(c, 0, 500, 1_000_000_000_000L, 5);
        live(c, 1_000_000, 1500, 1_000_000_001_000L, 5);   // slot T+1 = 500, 500 left
        // drops to 100: cap = 2^64-1 (max > 2^32), delta = cap - 1e12-1000 + 100 is far above
        // 10% of cap => a reset: the collection adds 0, the slot only gets the 500 left over
        live(c, 1_000_000, 2500, 100, 5);
        live(c, 1_000_000, 3500, 1100, 5);                 // 1000 * 0.5 + 0
        assertPoint(sink.at(1, T + 2), 500, RESET);
        assertPoint(sink.at(2, T + 2), 5, RESET);          // the flag is chart-wide
        assertPoint(sink.at(1, T + 3), 500, NORMAL);
        assertPoint(sink.at(2, T + 3), 5, NORMAL);
    }

    @Test
    void noresetDimensionsDoNotFlag() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.INCREMENTAL, 1, 1);
        c.resetDetection(0, false);
        live(c, 0, 500, 1000);
        live(c, 1_000_000, 1500, 2000);
        live(c, 1_000_000, 2500, 10);
        assertPoint(sink.at(1, T + 2), 500, NORMAL);
    }

    @Test
    void percentageOfAbsoluteRowIncludingAZeroTotal() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.PERCENTAGE_OF_ABSOLUTE_ROW, 1, 1);
        c.addDimension(2, Algorithm.PERCENTAGE_OF_ABSOLUTE_ROW, 1, 1);
        local(c, 500, 1, 3);
        local(c, 1500, 1, 3);           // 100 * 1 / 4, 100 * 3 / 4
        local(c, 2500, 0, 0);           // total 0: both 0, not a gap
        assertPoint(sink.at(1, T + 1), 25, NORMAL);
        assertPoint(sink.at(2, T + 1), 75, NORMAL);
        assertPoint(sink.at(1, T + 2), 0, NORMAL);
        assertPoint(sink.at(2, T + 2), 0, NORMAL);
    }

    @Test
    void percentageOfIncrementalRowWithZeroIncrementsAResetAndAMissingDimension() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.PERCENTAGE_OF_INCREMENTAL_ROW, 1, 1);
        c.addDimension(2, Algorithm.PERCENTAGE_OF_INCREMENTAL_ROW, 1, 1);
        c.addDimension(3, Algorithm.PERCENTAGE_OF_INCREMENTAL_ROW, 1, 1);
        local(c, 500, 0, 0, 0);
        local(c, 1500, 10, 30, 60);       // increments 10, 30, 60 of 100
        local(c, 2500, 10, 30, 60);       // no increment at all: 0, 0, 0
        local(c, 3500, 5, 60, 120);       // a went back: it restarts from 5 (increment 0) and flags;
                                          // b 30, c 60 of 90
        // the 4th collection misses c: totals only cover a and b, increments 10 and 30 of 40
        c.set(0, 15);
        c.set(1, 90);
        c.collectNow(at(4500));
        assertPoint(sink.at(1, T + 1), 10, NORMAL);
        assertPoint(sink.at(2, T + 1), 30, NORMAL);
        assertPoint(sink.at(3, T + 1), 60, NORMAL);
        assertPoint(sink.at(1, T + 2), 0, NORMAL);
        assertPoint(sink.at(3, T + 2), 0, NORMAL);
        assertPoint(sink.at(1, T + 3), 0, RESET);
        assertPoint(sink.at(2, T + 3), 100.0 * 30 / 90, RESET);
        assertPoint(sink.at(3, T + 3), 100.0 * 60 / 90, RESET);
        assertPoint(sink.at(1, T + 4), 25, NORMAL);
        assertPoint(sink.at(2, T + 4), 75, NORMAL);
        assertGap(sink.at(3, T + 4));
    }

    @Test
    void collectionsOffTheSecondBoundaryAreInterpolated() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.INCREMENTAL, 1, 1);
        c.addDimension(2, Algorithm.ABSOLUTE, 1, 1);
        local(c, 300, 0, 5);          // first, chart put at T+0.5
        // T+1.3: duration = 1.3 - 0.5 = 0.8 s; +800 -> slot T+1 gets 800 * 0.5 / 0.8 = 500, 300 left
        local(c, 1300, 800, 10);
        // T+2.3: +1000 over 1 s -> slot T+2 = 1000 * 0.7 / 1.0 + 300 = 1000
        local(c, 2300, 1800, 20);
        // T+4.3 (T+3.3 missed): absolute spans slots T+3 and T+4;
        // T+3 = (30 - 20) * (3 - 2.3) / (4.3 - 2.3) + 20 = 23.5, T+4 = 30 (the last slot is not interpolated)
        // incremental: +2000 over 2 s: T+3 = 2000 * 0.7 / 2 + 300 = 1000, T+4 = 1300 * 1 / 1.3 = 1000
        local(c, 4300, 3800, 30);
        assertPoint(sink.at(1, T + 1), 500, NORMAL);
        assertPoint(sink.at(1, T + 2), 1000, NORMAL);
        assertPoint(sink.at(1, T + 3), 1000, NORMAL);
        assertPoint(sink.at(1, T + 4), 1000, NORMAL);
        assertPoint(sink.at(2, T + 1), 10, NORMAL);
        assertPoint(sink.at(2, T + 2), 20, NORMAL);
        assertPoint(sink.at(2, T + 3), 23.5, NORMAL);
        assertPoint(sink.at(2, T + 4), 30, NORMAL);
    }

    @Test
    void updateEveryTwoStoresEvenSecondsAndDividesByTwo() {
        ChartCollector c = new ChartCollector(2, sink);
        c.addDimension(1, Algorithm.INCREMENTAL, 1, 1);
        live(c, 0, 700, 0);                 // T+0.7 -> aligned to T (even) + 0.5
        // synced: duration 2.5 - 0.5 = 2 s; +400: T+2 gets 400 * 1.5 / 2 = 300, / 2 s = 150
        live(c, 2_000_000, 2500, 400);
        // +400: 400 * 1.5 / 2 + 100 = 400, / 2 = 200
        live(c, 2_000_000, 4500, 800);
        assertPoint(sink.at(1, T + 2), 150, NORMAL);
        assertPoint(sink.at(1, T + 4), 200, NORMAL);
        assertEquals(2, sink.at(1, T + 4).updateEvery());
        assertEquals(2, sink.points.size());
    }

    @Test
    void updateEveryTen() {
        ChartCollector c = new ChartCollector(10, sink);
        c.addDimension(1, Algorithm.INCREMENTAL, 1, 1);
        c.addDimension(2, Algorithm.ABSOLUTE, 1, 1);
        live(c, 0, 3000, 0, 1);             // T+3 -> aligned to T+0.5
        // duration 10 s: 1000 * 9.5 / 10 = 950, / 10 = 95
        live(c, 10_000_000, 10_500, 1000, 2);
        // 1000 * 9.5 / 10 + 50 = 1000, / 10 = 100
        live(c, 10_000_000, 20_500, 2000, 3);
        assertPoint(sink.at(1, T + 10), 95, NORMAL);
        assertPoint(sink.at(1, T + 20), 100, NORMAL);
        assertPoint(sink.at(2, T + 20), 3, NORMAL);
        assertEquals(10, sink.at(1, T + 20).updateEvery());
        assertEquals(4, sink.points.size());
    }

    @Test
    void storeFirstStoresTheFirstCollectionAtTheStartOfItsSlot() {
        ChartCollector c = new ChartCollector(1, sink);
        c.storeFirst(true);
        c.addDimension(1, Algorithm.ABSOLUTE, 1, 1);
        c.addDimension(2, Algorithm.INCREMENTAL, 1, 1);
        // T+0.3 -> chart at T+0.0; a real 1.37.1 parent stores the raw first values at T
        live(c, 0, 300, 100, 1250);
        assertPoint(sink.at(1, T), 100, NORMAL);
        assertPoint(sink.at(2, T), 1250, NORMAL);
        // synced: 1.0 - 0.0 = 1 s; absolute (101 - 100) * 1 / 1 + 100; incremental 250
        live(c, 1_000_000, 1000, 101, 1500);
        assertPoint(sink.at(1, T + 1), 101, NORMAL);
        assertPoint(sink.at(2, T + 1), 250, NORMAL);
    }

    @Test
    void missedCollectionsAreInterpolatedUpToTwoSlotsAndGapsBeyond() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.ABSOLUTE, 1, 1);
        live(c, 0, 500, 10);
        live(c, 1_000_000, 1500, 10);
        // 2 s: slots T+2 (interpolated (20-10)*0.5/2+10 = 12.5) and T+3 (20), no gap
        live(c, 2_000_000, 3500, 20);
        assertPoint(sink.at(1, T + 2), 12.5, NORMAL);
        assertPoint(sink.at(1, T + 3), 20, NORMAL);
        // 4 s: iterations 4, 3, 2, 1 -> slots T+4 and T+5 are gaps (>= 3 iterations left);
        // T+6 = (60 - 20) * (6 - 5) / (7.5 - 5) + 20 = 36, T+7 = 60
        live(c, 4_000_000, 7500, 60);
        assertGap(sink.at(1, T + 4));
        assertGap(sink.at(1, T + 5));
        assertPoint(sink.at(1, T + 6), 36, NORMAL);
        assertPoint(sink.at(1, T + 7), 60, NORMAL);
        // a collection without this dimension stores a gap for it
        live(c, 1_000_000, 8500);
        assertGap(sink.at(1, T + 8));
        assertTrue(Double.isNaN(c.lastStoredValue(0)));
    }

    @Test
    void localClockJumpingBackwardsMovesTheChartForwardByTheJump() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.ABSOLUTE, 1, 1);
        local(c, 300, 1);
        local(c, 1300, 2);
        local(c, 2300, 3);
        // the clock goes back 5 s to T-2.7: Netdata takes |now - last collected| = 5 s, so the
        // chart moves to T+7.3; slots T+3..T+7 have 5, 4, 3, 2, 1 iterations left: 3 gaps, then
        // T+6 = (4 - 3) * (6 - 5) / (7.3 - 5) + 3 and T+7 = 4. Nothing is written in the past.
        local(c, -2700, 4);
        assertGap(sink.at(1, T + 3));
        assertGap(sink.at(1, T + 4));
        assertGap(sink.at(1, T + 5));
        assertPoint(sink.at(1, T + 6), 1.0 / 2.3 + 3, NORMAL);
        assertPoint(sink.at(1, T + 7), 4, NORMAL);
        List<RecordingSink.Point> all = sink.of(1);
        for (int i = 1; i < all.size(); i++) {
            assertEquals(all.get(i - 1).time() + 1, all.get(i).time(), "one point per second, in order");
        }
    }

    @Test
    void streamedZeroDurationAlignsToTheReceiversClock() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.ABSOLUTE, 1, 1);
        live(c, 0, 500, 1);
        live(c, 0, 1700, 2);    // 1.7 - 0.5 = 1.2 s
        assertEquals(at(1700), c.chartLastCollectedUt());
        assertEquals(1_200_000, c.microsecondsSinceLastCollection());
        assertPoint(sink.at(1, T + 1), 2, NORMAL);
    }

    @Test
    void beginWithoutClockIsAppliedWithTheEndClock() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.ABSOLUTE, 1, 1);
        c.begin(123);
        c.set(0, 1);
        c.end(at(500));
        c.begin(0);
        c.set(0, 2);
        c.end(at(1900));
        assertEquals(at(1900), c.chartLastCollectedUt());
        c.begin(1_000_000);
        c.set(0, 3);
        c.end(at(50_000));
        assertEquals(at(2900), c.chartLastCollectedUt());
    }

    @Test
    void replicationStateLetsLiveDataContinueWithoutDuplicateOrHole() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.INCREMENTAL, 1, 1);
        c.addDimension(2, Algorithm.ABSOLUTE, 1, 1);

        c.replayBeginUntimed();
        assertFalse(c.replaySet(0, 1.0, 0), "RSET before a timed RBEGIN is ignored");
        c.replayBegin(T + 28, T + 29);
        assertTrue(c.replaySet(0, 5.0, 0));
        assertTrue(c.replaySet(1, 1.0, 0));
        c.replayBegin(T + 29, T + 30);
        c.replaySet(0, 6.0, 0);
        c.replaySet(1, Double.NaN, SN_FLAG_RESET);
        // what the child sent: dimensions collected at T+30.356031, x = 1000 with 300 not yet stored
        c.dimensionState(0, at(30_356) + 31, 1000, 300.0, 6.0);
        c.dimensionState(1, at(30_356) + 31, 2, 2.0, 2.0);
        c.chartState(at(30_356) + 31, at(30_000));
        c.replayEnd(true, 1);

        // first live BEGIN: 977 796 µs -> collected at T+30.356031 + 0.977796 = T+31.333827,
        // whatever the receiver's clock. Only slot T+31 is due.
        // x: +1000 -> 1000 * (31 - 30.356031) / 0.977796 + 300; y: 3
        c.begin(977_796);
        c.set(0, 2000);
        c.set(1, 3);
        c.end(at(31_900));

        assertPoint(sink.at(1, T + 29), 5.0, SN_FLAG_NONE);
        assertPoint(sink.at(1, T + 30), 6.0, SN_FLAG_NONE);
        assertGap(sink.at(2, T + 30));
        assertPoint(sink.at(1, T + 31), 1000.0 * 643_969.0 / 977_796.0 + 300.0, NORMAL);
        assertPoint(sink.at(2, T + 31), 3, NORMAL);
        assertEquals(6, sink.points.size());
        assertEquals(at(31_333) + 827, c.chartLastCollectedUt());
        assertEquals(at(31_000), c.chartLastUpdatedUt());
        assertEquals(2000, c.lastCollectedValue(0));
        assertEquals(at(31_900), c.lastCollectedUt(0));
    }

    /**
     * An answer without points whose RDSTATE hands over a dimension the sender never collected
     * (last collected time 0, value 0: a chart it defined but received no value of): the next live
     * value is the dimension's first collection, as in 1.37.1, not a delta from 0 (which stored the
     * whole counter as one rate: a spike of an interface counter in the differential test).
     */
    @Test
    void stateOfANeverCollectedDimensionDoesNotCountAsACollection() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.INCREMENTAL, 1, 1);
        c.replayBeginUntimed();
        c.dimensionState(0, 0, 0, 0.0, 0.0);
        c.chartState(at(30_000), at(30_000));
        c.replayEnd(true, 1);

        c.begin(1_000_000);
        c.set(0, 5_000_000_000L);
        c.end(at(31_000));
        c.begin(1_000_000);
        c.set(0, 5_000_000_100L);
        c.end(at(32_000));

        assertGap(sink.at(1, T + 31));
        assertPoint(sink.at(1, T + 32), 100, NORMAL);
    }

    /** A dimension the sender did collect: its state primes the next live value, which is a delta. */
    @Test
    void stateOfACollectedDimensionLetsTheFirstLiveValueBeADelta() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.INCREMENTAL, 1, 1);
        c.replayBeginUntimed();
        c.dimensionState(0, at(30_000), 4_999_999_900L, 0.0, 100.0);
        c.chartState(at(30_000), at(30_000));
        c.replayEnd(true, 1);

        c.begin(1_000_000);
        c.set(0, 5_000_000_000L);
        c.end(at(31_000));

        assertPoint(sink.at(1, T + 31), 100, NORMAL);
    }

    /**
     * A chart state whose last update lags its last collection by more than a slot: what a 1.37.1
     * parent sends when its replication thread answers while its receiver is inside
     * {@code rrdset_done} (last collected time moved on, the due slot not yet stored). The first
     * slot of the next collection then ends before the previous collection; 1.37.1's interpolation
     * takes {@code next_store_ut - last_collect_ut} as an unsigned number there (about 1.8e19), so
     * it stores garbage (a disk_space chart appearing mid-run held ±3.59e8 in its first slot). No
     * two collections span that slot: it is stored empty, and the collection is spread over the
     * slots after the previous collection only.
     */
    @Test
    void aSlotEndingBeforeThePreviousCollectionIsEmptyNotExtrapolated() {
        ChartCollector c = new ChartCollector(10, sink);
        c.addDimension(1, Algorithm.ABSOLUTE, 4096, 1L << 30);
        c.addDimension(2, Algorithm.INCREMENTAL, 1, 1);
        c.replayBeginUntimed();
        c.dimensionState(0, at(15_300), 87_654, 87_654.0 * 4096 / (1L << 30), Double.NaN);
        c.dimensionState(1, at(15_300), 1_000_000, 0.0, Double.NaN);
        // collected at T+15.3, last stored slot T: slot T+10 was due and not stored
        c.chartState(at(15_300), at(0));
        c.replayEnd(true, 10);

        live(c, 10_000_000, 25_300, 87_700, 1_001_000);

        assertGap(sink.at(1, T + 10));
        assertGap(sink.at(2, T + 10));
        assertPoint(sink.at(1, T + 20), 87_700.0 * 4096 / (1L << 30), NORMAL);
        // +1000 over (T+15.3, T+25.3]: slot T+20 gets 4.7 s of it, per second over update_every 10
        assertPoint(sink.at(2, T + 20), 1000.0 * 4.7 / 10.0 / 10.0, NORMAL);
        assertEquals(4, sink.points.size());
        assertEquals(at(20_000), c.chartLastUpdatedUt());

        // the rest of the increase goes to the next slot as usual
        live(c, 10_000_000, 35_300, 87_800, 1_002_000);
        assertPoint(sink.at(2, T + 30), (1000.0 * 5.3 / 10.0 + 1000.0 * 4.7 / 10.0) / 10.0, NORMAL);
    }

    @Test
    void replicationStateOnlyMovesTimesForward() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.ABSOLUTE, 1, 1);
        c.replayBegin(T + 9, T + 10);
        c.replaySet(0, 1, 0);
        c.chartState(at(5000), at(4000));
        c.dimensionState(0, at(5000), 42, 4.5, 4.5);
        assertEquals(at(10_000), c.chartLastCollectedUt());
        assertEquals(at(10_000), c.chartLastUpdatedUt());
        assertEquals(at(10_000), c.lastCollectedUt(0));
        assertEquals(42, c.lastCollectedValue(0));
        assertEquals(4.5, c.lastCalculatedValue(0));
    }

    @Test
    void replicatedPointIntervalBecomesTheUpdateEvery() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.ABSOLUTE, 1, 1);
        c.replayBegin(T, T + 2);
        c.replaySet(0, 7, 0);
        assertEquals(2, c.updateEvery());
        assertEquals(2, sink.at(1, T + 2).updateEvery());
        c.replayEnd(true, 5);
        assertEquals(5, c.updateEvery());
        assertThrows(IllegalArgumentException.class, () -> c.replayBegin(T + 5, T + 5));
    }

    @Test
    void dimensionAddedMidChartStartsWithAGap() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.ABSOLUTE, 1, 1);
        local(c, 500, 1);
        local(c, 1500, 2);
        int n = c.addDimension(2, Algorithm.ABSOLUTE, 1, 1);
        assertEquals(1, n);
        assertEquals(2, c.dimensionCount());
        // the new dimension's first value has no history: gap (as a real 1.37.1 parent does)
        local(c, 2500, 3, 30);
        local(c, 3500, 4, 40);
        assertPoint(sink.at(1, T + 2), 3, NORMAL);
        assertGap(sink.at(2, T + 2));
        assertPoint(sink.at(1, T + 3), 4, NORMAL);
        assertPoint(sink.at(2, T + 3), 40, NORMAL);
    }

    @Test
    void redefiningADimensionKeepsItsState() {
        ChartCollector c = new ChartCollector(1, sink);
        c.addDimension(1, Algorithm.ABSOLUTE, 1, 1);
        local(c, 500, 10);
        local(c, 1500, 10);
        c.redefineDimension(0, Algorithm.ABSOLUTE, 10, 1);
        local(c, 2500, 10);
        assertPoint(sink.at(1, T + 2), 100, NORMAL);
    }

    @Test
    void badArgumentsAreRejectedWithAMessage() {
        assertThrows(IllegalArgumentException.class, () -> new ChartCollector(0, sink));
        assertThrows(NullPointerException.class, () -> new ChartCollector(1, null));
        ChartCollector c = new ChartCollector(1, sink);
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> c.set(0, 1));
        assertTrue(e.getMessage().contains("dimension index 0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> c.updateEvery(-1));
    }
}
