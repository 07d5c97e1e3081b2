package io.strata.replication.sender;

import io.netty.buffer.ByteBuf;
import io.strata.engine.StorageEngine;
import io.strata.engine.meta.ChartInfo;
import io.strata.engine.meta.DimensionInfo;
import io.strata.engine.meta.MetadataStore;
import io.strata.engine.page.StorageNumber;
import io.strata.engine.registry.MetricRegistry;
import io.strata.streaming.sender.SenderWireFormat;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * A parent's answer to a peer asking for a past range of one host's chart
 * ({@code GET /host/<guid>/api/v1/replay_chart}, docs/format/peer-replay.md): the stored tier-0 points
 * in {@code (after, before]} in a replication answer's own text, {@code RBEGIN "<chart>"}, then per
 * point {@code RBEGIN '' <start> <end> <wall clock>} and one {@code RSET} per dimension written by
 * {@link ReplayPointWriter} (the bytes a stream's replay carries, so the asking parent stores the
 * same storage numbers a replication would), then {@code REND ... false <after> <before used>}. No
 * collection state ({@code RDSTATE}/{@code RSSTATE}): the asker stores points behind its newest
 * second and collects nothing from this.
 *
 * <p>Bounded: at most {@link #MAX_SLOTS} slots of the chart's {@code update_every} and at most
 * {@link #MAX_VALUES} values (slots × dimensions) per answer; the {@code before} of {@code REND}
 * says where the answer stopped, and the asker continues from there. A slot where no dimension holds
 * a value is left out. Reads the engine (disk I/O): never on an event loop. Stateless; thread-safe.
 */
public final class PastRangeAnswer {

    /** Slots of one answer: a tier-0 page. */
    public static final int MAX_SLOTS = 1024;
    /** Values (slots × dimensions) of one answer: about 8 MiB of text. */
    public static final int MAX_VALUES = 1 << 18;

    /** What an answer found. */
    public enum Outcome {
        /** {@code out} holds the answer. */
        ANSWERED,
        /** The engine holds no such host. */
        UNKNOWN_HOST,
        /** The host has no such chart (or none of its dimensions is known). */
        UNKNOWN_CHART
    }

    private PastRangeAnswer() {
    }

    /**
     * Writes the answer for {@code chartId} of {@code host} over {@code (after, before]} into {@code out}.
     * Nothing is written unless the outcome is {@link Outcome#ANSWERED}.
     *
     * @throws IllegalArgumentException when {@code after >= before} or a time is outside unsigned 32-bit seconds
     * @throws IOException when the engine cannot read the range (nothing is left in {@code out})
     */
    public static Outcome write(StorageEngine engine, UUID host, String chartId, long after, long before,
                                long wallClockSeconds, ByteBuf out) throws IOException {
        if (after < 0 || before <= after || before > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("after must be below before, both unsigned 32-bit seconds");
        }
        MetadataStore meta = engine.metadata();
        if (meta.hostId(host) < 0) {
            return Outcome.UNKNOWN_HOST;
        }
        int chart = meta.chartId(host, chartId);
        if (chart < 0) {
            return Outcome.UNKNOWN_CHART;
        }
        ChartInfo info = meta.chart(chart);
        List<Integer> all = meta.metrics(chart);
        int[] metrics = new int[all.size()];
        byte[][] ids = new byte[all.size()][];
        int n = 0;
        for (int m : all) {
            DimensionInfo d = meta.dimension(m);
            if (d != null) {
                metrics[n] = m;
                ids[n] = SenderWireFormat.utf8(d.id());
                n++;
            }
        }
        if (n == 0) {
            return Outcome.UNKNOWN_CHART;
        }
        int ue = info.updateEvery();
        int slots = (int) Math.max(1, Math.min(MAX_SLOTS, MAX_VALUES / n));
        long end = Math.min(before, after + (long) slots * ue);
        slots = (int) ((end - after + ue - 1) / ue);

        // one row of storage numbers per dimension, a column per slot (end time after + (i + 1) * ue
        // on the chart's grid; a point off that grid takes the slot it ends in)
        int[][] sns = new int[n][slots];
        long[] slotEnd = new long[slots];
        MetricRegistry reg = engine.registry();
        long first = 0;
        long last = 0;
        for (int d = 0; d < n; d++) {
            int[] row = sns[d];
            Arrays.fill(row, StorageNumber.SN_EMPTY_SLOT);
            engine.queryTier0Runs(metrics[d], after + 1, end, (runSns, from, to, firstTime, step) -> {
                long t = firstTime;
                for (int i = from; i < to; i++, t += step) {
                    if (t <= after || t > end) {
                        continue;
                    }
                    int slot = (int) ((t - after - 1) / ue);
                    row[slot] = runSns[i];
                    if (slotEnd[slot] == 0 || !StorageNumber.isEmpty(runSns[i])) {
                        slotEnd[slot] = t;
                    }
                }
            });
            long f = reg.firstTime(metrics[d], 0);
            long l = reg.lastTime(metrics[d], 0);
            if (f != MetricRegistry.NO_TIME && (first == 0 || f < first)) {
                first = f;
            }
            last = Math.max(last, l);
        }

        int maxIdBytes = 0;
        for (int d = 0; d < n; d++) {
            maxIdBytes = Math.max(maxIdBytes, ids[d].length);
        }
        SenderWireFormat.replayBegin(out, info.id());
        ReplayPointWriter points = new ReplayPointWriter();
        for (int s = 0; s < slots; s++) {
            if (slotEnd[s] == 0 || !anyValue(sns, n, s)) {
                continue;
            }
            points.begin(slotEnd[s] - ue, slotEnd[s], wallClockSeconds, n, maxIdBytes);
            for (int d = 0; d < n; d++) {
                int sn = sns[d][s];
                if (StorageNumber.isEmpty(sn)) {
                    points.empty(ids[d]);
                } else {
                    points.set(out, ids[d], sn);
                }
            }
            points.drainTo(out);
        }
        SenderWireFormat.replayEnd(out, ue, first, last, false, after, end, wallClockSeconds);
        return Outcome.ANSWERED;
    }

    private static boolean anyValue(int[][] sns, int n, int slot) {
        for (int d = 0; d < n; d++) {
            if (!StorageNumber.isEmpty(sns[d][slot])) {
                return true;
            }
        }
        return false;
    }
}
