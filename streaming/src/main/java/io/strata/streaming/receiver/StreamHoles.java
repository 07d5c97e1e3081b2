package io.strata.streaming.receiver;

import io.strata.engine.log.RepeatedFailureLog;
import io.strata.engine.time.Clocks;
import io.strata.streaming.server.LogText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * The holes a stream's replication answers left behind, per chart, asked again of the same stream
 * (docs/replication.md, "Holes asked again"). A hole is a window {@code (after, before]} of a chart
 * that an answer skipped ({@code RBEGIN} after two or more missing slots), or that an answer ended
 * before ({@code REND} starting the stream two or more slots before its window's end); 1.37.1's
 * answers stop at the first second without a point and go on from the next request's window, which
 * shows as the same skip at the next point.
 *
 * <p>Each hole is asked with {@code REPLAY_CHART "<chart>" "false" <after> <before>} after a
 * backoff ({@link #BACKOFF_SECONDS}), only while no other request of that chart is in flight and the
 * stream is not being handed over ({@link PeerHandOver}). Its answer's points are stored behind the
 * chart's newer ones (the engine's past path) and leave the chart's collection state alone. After
 * each answer the hole shrinks to what follows the newest point that arrived, less the slot after
 * it, which the stream has just shown it lacks (1.37.1 stops there): a hole is either filled, or
 * each answer moves past at least one slot. A hole is given up after
 * {@link #MAX_ANSWERS_WITHOUT_POINTS} answers in a row without a point, {@link #MAX_REQUESTS}
 * requests in all, once it is older than the stream's {@code seconds to replicate}, or when the
 * stream ends. At most {@link #MAX_HOLES_PER_CHART} per chart and {@link #MAX_HOLES_PER_STREAM} per
 * stream (one stream per host); more are given up at once.
 *
 * <p>Event loop only, like the parser that owns it.
 */
final class StreamHoles {

    private static final Logger LOG = LoggerFactory.getLogger(StreamHoles.class);
    /** Holes given up: a line per host at once, then a summary a minute at most. */
    private static final RepeatedFailureLog GIVEN_UP = new RepeatedFailureLog(RepeatedFailureLog.forWarn(LOG),
            60_000, Clocks.wallMillisSupplier());

    /** The wait before each request of a hole without progress; the last one repeats (the cap). */
    static final long[] BACKOFF_SECONDS = {5, 15, 45, 135, 300};
    /** Answers in a row that bring no point of the hole before it is given up. */
    static final int MAX_ANSWERS_WITHOUT_POINTS = 5;
    /** Requests of one hole in all (a hole that keeps filling a little at a time ends too). */
    static final int MAX_REQUESTS = 64;
    static final int MAX_HOLES_PER_CHART = 8;
    static final int MAX_HOLES_PER_STREAM = 1024;
    /**
     * A hole request unanswered this long is given up, and a replication request of the chart that
     * waited for its answer goes out (a sender that lost the request must not stall the chart).
     */
    static final long ANSWER_TIMEOUT_SECONDS = 120;
    /** Requests sent by one pass at most (a pass runs after each socket read). */
    static final int MAX_REQUESTS_PER_PASS = 64;

    /** One hole: the window {@code (after, before]} this parent lacks, in unix seconds. */
    static final class Hole {
        long after;
        final long before;
        /** The wall second from which it may be asked. */
        long dueSeconds;
        int requests;
        int answersWithoutPoints;
        /** When its latest request was sent (wall second). */
        long askedSeconds;
        /** While asked: the newest point of the window the answer brought; 0 when none yet. */
        long newestArrived;

        Hole(long after, long before, long dueSeconds) {
            this.after = after;
            this.before = before;
            this.dueSeconds = dueSeconds;
        }

        /** A replayed point with a value at {@code second} arrived in the answer to this hole's request. */
        void arrived(long second) {
            if (second > after && second <= before && second > newestArrived) {
                newestArrived = second;
            }
        }

        @Override
        public String toString() {
            return (after + 1) + ".." + before;
        }
    }

    private final ReceiverStats stats;
    private final long secondsToReplicate;
    private final String who;
    private final List<ReceivedChart> chartsWithHoles = new ArrayList<>();
    private int holes;

    /**
     * @param secondsToReplicate the stream's {@code seconds to replicate}: a hole older than this is
     *                           given up, and with 0 none is kept
     * @param who                the host, for the log ({@code host 'name' (guid)})
     */
    StreamHoles(ReceiverStats stats, long secondsToReplicate, String who) {
        this.stats = stats;
        this.secondsToReplicate = secondsToReplicate;
        this.who = who;
    }

    /** Holes kept (not yet filled or given up). */
    int size() {
        return holes;
    }

    /** An answer left {@code (after, before]} of chart {@code c} behind: kept to be asked again. */
    void remember(ReceivedChart c, long after, long before, long nowSeconds) {
        if (before <= after || secondsToReplicate <= 0 || before < nowSeconds - secondsToReplicate) {
            return;
        }
        stats.holesRemembered.increment();
        if (c.holes == null) {
            c.holes = new ArrayList<>(2);
        }
        // a hole next to or over one kept (not the one asked now) joins it
        for (int i = 0; i < c.holes.size(); i++) {
            Hole h = c.holes.get(i);
            if (h != c.holeAsked && after <= h.before && before >= h.after) {
                Hole joined = new Hole(Math.min(after, h.after), Math.max(before, h.before),
                        Math.min(h.dueSeconds, nowSeconds + BACKOFF_SECONDS[0]));
                c.holes.set(i, joined);
                LOG.debug("{}: chart '{}': hole {} joins {}", who, c.info.id(), joined, h);
                return;
            }
        }
        if (c.holes.size() >= MAX_HOLES_PER_CHART || holes >= MAX_HOLES_PER_STREAM) {
            giveUp(c, new Hole(after, before, 0), "more holes than " + (c.holes.size() >= MAX_HOLES_PER_CHART
                    ? MAX_HOLES_PER_CHART + " in the chart" : MAX_HOLES_PER_STREAM + " in the stream") + " are kept");
            return;
        }
        if (!chartsWithHoles.contains(c)) {
            chartsWithHoles.add(c);
        }
        Hole h = new Hole(after, before, nowSeconds + BACKOFF_SECONDS[0]);
        c.holes.add(h);
        holes++;
        LOG.debug("{}: chart '{}': the answer left {} behind; asked again from {}", who, c.info.id(), h,
                h.dueSeconds);
    }

    /**
     * The parent's hole repair found {@code (after, before]} of chart {@code c} missing behind its
     * newest second and no peer filled it (docs/replication.md, "A hole filled from the peers later"):
     * kept to be asked of this stream at once (then with the same backoff and bounds), unless a hole
     * kept already overlaps it (it is being asked: not twice at once).
     *
     * @return whether it was kept
     */
    boolean rememberFromRepair(ReceivedChart c, long after, long before, long nowSeconds) {
        if (before <= after || secondsToReplicate <= 0 || before < nowSeconds - secondsToReplicate) {
            return false;
        }
        if (c.holes != null) {
            for (Hole h : c.holes) {
                if (after < h.before && before > h.after) {
                    return false;
                }
            }
        }
        if ((c.holes != null && c.holes.size() >= MAX_HOLES_PER_CHART) || holes >= MAX_HOLES_PER_STREAM) {
            return false;
        }
        stats.holesRemembered.increment();
        if (c.holes == null) {
            c.holes = new ArrayList<>(2);
        }
        if (!chartsWithHoles.contains(c)) {
            chartsWithHoles.add(c);
        }
        Hole h = new Hole(after, before, nowSeconds);
        c.holes.add(h);
        holes++;
        LOG.debug("{}: chart '{}': the hole repair found {} missing; asking this stream", who, c.info.id(), h);
        return true;
    }

    /**
     * Asks each chart's first hole that is due, of the charts with no request in flight (no
     * replication step, no hole asked), through {@code commands} while it is writable.
     */
    void askDue(long nowSeconds, ParentCommands commands, ReceiverParser parser) {
        int sent = 0;
        for (int i = 0; i < chartsWithHoles.size() && sent < MAX_REQUESTS_PER_PASS; i++) {
            ReceivedChart c = chartsWithHoles.get(i);
            Hole asked = c.holeAsked;
            if (asked != null && nowSeconds - asked.askedSeconds > ANSWER_TIMEOUT_SECONDS) {
                c.holeAsked = null;
                remove(c, c.holes.indexOf(asked));
                giveUp(c, asked, "no answer to its request in " + ANSWER_TIMEOUT_SECONDS + " s");
                ReceiverReplication.Request waiting = c.requestAfterHole;
                if (waiting != null) {
                    c.requestAfterHole = null;
                    parser.sendReplicationRequest(c, waiting, 0, 0);
                }
            }
            if (c.replicating || c.holeAsked != null) {
                continue;
            }
            Hole due = null;
            for (int j = 0; j < c.holes.size(); j++) {
                Hole h = c.holes.get(j);
                if (h.before < nowSeconds - secondsToReplicate) {
                    remove(c, j--);
                    giveUp(c, h, "it is older than the stream's seconds to replicate (" + secondsToReplicate + ")");
                } else if (due == null && h.dueSeconds <= nowSeconds) {
                    due = h;
                }
            }
            if (c.holes.isEmpty()) {
                chartsWithHoles.remove(i--);
                continue;
            }
            if (due == null) {
                continue;
            }
            if (!commands.writable()) {
                return;
            }
            due.requests++;
            due.newestArrived = 0;
            due.askedSeconds = nowSeconds;
            c.holeAsked = due;
            stats.holesAsked.increment();
            sent++;
            LOG.debug("{}: chart '{}': asking the hole {} again (request {})", who, c.info.id(), due, due.requests);
            commands.send(new ReceiverReplication.Request(false, due.after, due.before).line(c.info.id()));
        }
    }

    /**
     * The answer to chart {@code c}'s hole request ended ({@code REND}): the hole is filled, shrinks,
     * or is given up. {@code updateEvery} is the chart's, the slot the stream showed it lacks.
     */
    void answered(ReceivedChart c, long nowSeconds, int updateEvery) {
        Hole h = c.holeAsked;
        c.holeAsked = null;
        if (h == null) {
            return;
        }
        int index = c.holes.indexOf(h);
        long ue = Math.max(1, updateEvery);
        long newest = h.newestArrived;
        if (newest >= h.before) {
            remove(c, index);
            stats.holesFilled.increment();
            LOG.debug("{}: chart '{}': the hole {} is filled (request {})", who, c.info.id(), h, h.requests);
            GIVEN_UP.recovered(who, "holes filled again");
            return;
        }
        // the stream lacks the slot after the newest point it sent (1.37.1 stops there): ask after it
        h.after = Math.max(h.after, newest) + ue;
        h.answersWithoutPoints = newest > 0 ? 0 : h.answersWithoutPoints + 1;
        if (h.after >= h.before) {
            remove(c, index);
            if (newest > 0) {
                stats.holesFilled.increment();
            } else {
                giveUp(c, h, "the stream sent no point of it");
            }
            return;
        }
        if (h.answersWithoutPoints >= MAX_ANSWERS_WITHOUT_POINTS || h.requests >= MAX_REQUESTS) {
            remove(c, index);
            giveUp(c, h, h.requests + " requests, the last " + h.answersWithoutPoints + " answered without a point");
            return;
        }
        int step = Math.min(h.answersWithoutPoints, BACKOFF_SECONDS.length - 1);
        h.dueSeconds = nowSeconds + BACKOFF_SECONDS[step];
    }

    /** The stream ended: its holes are not asked any more (a next stream finds its own). */
    void streamEnded() {
        long left = holes;
        for (ReceivedChart c : chartsWithHoles) {
            c.holes.clear();
            c.holeAsked = null;
        }
        chartsWithHoles.clear();
        holes = 0;
        if (left > 0) {
            stats.holesGivenUp.add(left);
            LOG.debug("{}: the stream ended with {} holes not filled", who, left);
        }
    }

    private void remove(ReceivedChart c, int index) {
        if (index >= 0) {
            c.holes.remove(index);
            holes--;
        }
    }

    private void giveUp(ReceivedChart c, Hole h, String why) {
        stats.holesGivenUp.increment();
        GIVEN_UP.failed(who, who + ": chart '" + LogText.escape(c.info.id()) + "': gave up asking the stream for "
                + h + ": " + why + "; those seconds stay missing here");
    }
}
