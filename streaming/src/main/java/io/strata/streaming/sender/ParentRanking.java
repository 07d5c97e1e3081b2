package io.strata.streaming.sender;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;

/**
 * The order in which a child tries its parents, from what each answered to
 * {@code /api/v3/stream_info} ({@link StreamInfoReply}), as Netdata 2.9.0's
 * {@code stream_parent_connect_to_one_unsafe()} decides it, with one difference said below:
 *
 * <ul>
 * <li>a parent whose {@code ingest_type} for this host is {@code localhost} or {@code virtual} is
 *     this host itself (or serves it as its own): it is set aside for an hour
 *     ({@value #POSTPONE_ORIGIN_SECONDS} s; 2.9.0 bans it for one to two hours);</li>
 * <li>a parent whose {@code ingest_status} is {@code initializing} (its database is still
 *     opening) is set aside for 30 to 60 s, chosen at random, as 2.9.0 does;</li>
 * <li>every other parent is tried, the newest {@code last_time_s} first: the parent that already
 *     holds this host's most recent data, so that the least has to be replicated. A parent that
 *     said nothing about the host (404, a 1.37.1 parent without the endpoint, no answer) counts as
 *     holding nothing (0), as in 2.9.0;</li>
 * <li>parents that hold the same newest second keep the order of the destination list (which
 *     rotates after every connection). 2.9.0 instead shuffles parents whose newest seconds lie
 *     within 120 s of each other, to spread the children of a cluster; Strata keeps the list's
 *     order among equals and ranks by every second of freshness, so that the operator's order is
 *     the tie-break and a child always returns to the parent that lost least.</li>
 * </ul>
 *
 * <p>With no stream_info anywhere (only 1.37.1 parents), the order is the list's, unchanged.
 */
public final class ParentRanking {

    /** How long a parent that is this host itself is set aside. */
    public static final int POSTPONE_ORIGIN_SECONDS = 3600;
    /** The shortest postponement of an initializing parent (2.9.0: 30 to 60 s). */
    public static final int POSTPONE_INITIALIZING_MIN_SECONDS = 30;
    /** The longest postponement of an initializing parent. */
    public static final int POSTPONE_INITIALIZING_MAX_SECONDS = 60;

    private ParentRanking() {
    }

    /** A parent set aside, for how long and why. */
    public record SetAside(Destination destination, int seconds, String reason) {
    }

    /**
     * @param order    the parents to try, in this order
     * @param setAside the parents not to try now
     */
    public record Ranking(List<Destination> order, List<SetAside> setAside) {
    }

    /**
     * @param available the destinations not postponed, in the list's order
     * @param probes    what each answered (a destination without an entry counts as no answer)
     * @param random    given n, a number in [0, n) (the initializing postponement's jitter)
     */
    public static Ranking rank(List<Destination> available, Map<Destination, StreamInfoReply.Probe> probes,
                               IntUnaryOperator random) {
        List<Destination> order = new ArrayList<>(available.size());
        List<SetAside> aside = new ArrayList<>();
        List<Long> freshness = new ArrayList<>(available.size());
        for (Destination d : available) {
            StreamInfoReply.Probe p = probes.get(d);
            if (p != null && p.kind() == StreamInfoReply.Kind.HOLDS_HOST) {
                String type = p.info().ingestType();
                if (type.equals("localhost") || type.equals("virtual")) {
                    aside.add(new SetAside(d, POSTPONE_ORIGIN_SECONDS, "the parent is this host's origin (ingest_type "
                            + type + ")"));
                    continue;
                }
                if (p.info().ingestStatus().equals("initializing")) {
                    int span = POSTPONE_INITIALIZING_MAX_SECONDS - POSTPONE_INITIALIZING_MIN_SECONDS + 1;
                    aside.add(new SetAside(d, POSTPONE_INITIALIZING_MIN_SECONDS + random.applyAsInt(span),
                            "the parent is initializing"));
                    continue;
                }
            }
            order.add(d);
            freshness.add(p == null ? 0 : p.lastTimeS());
        }
        Integer[] idx = new Integer[order.size()];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
        }
        // a stable sort: equals keep the list's order
        Arrays.sort(idx, Comparator.comparingLong((Integer i) -> freshness.get(i)).reversed());
        List<Destination> ranked = new ArrayList<>(order.size());
        for (Integer i : idx) {
            ranked.add(order.get(i));
        }
        return new Ranking(List.copyOf(ranked), List.copyOf(aside));
    }
}
