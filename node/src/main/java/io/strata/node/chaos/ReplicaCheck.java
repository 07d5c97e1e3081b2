package io.strata.node.chaos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.SortedSet;

/**
 * The proof after the quiet catch-up. For every child and every chart it collects each second,
 * over the window, second by second and dimension by dimension:
 * <ul>
 *   <li>where the child's own engine has a value, every parent has it, the same (relative 1e-6,
 *       the storage number's precision);</li>
 *   <li>where the child has none (it lost what was in its memory at a SIGKILL, or never collected
 *       it), the parents agree with each other: all or none hold it, with the same value; a second
 *       some parents hold and the child lacks is also counted as missing from the child's own
 *       engine, unless a SIGKILL of the child came after it;</li>
 *   <li>the same queries (json, csv, datatable) to every parent give the same bytes.</li>
 * </ul>
 * Excepted, counted apart with their reason: the seconds of a child's clock shift (a child restarted
 * with its clock ahead stamps seconds that its next life collects again: its own engine refuses them
 * the second time and does not stream them, so a parent that lacked the first life's seconds holds a
 * gap there; docs/chaos.md, finding 3), a child's last second before its SIGKILL (which it may not
 * have sent), a second the child lost from its memory at a later SIGKILL, and a real Netdata
 * child's first second of a chart (its {@code first_entry}) when no parent holds it: 1.37.1 never
 * replays that second ({@link #FIRST_SECOND_NOT_REPLAYED}), so it lives only in the live stream,
 * which a fault can cut. A Strata child's first second, or one some parents hold, is not excepted.
 */
final class ReplicaCheck {

    /** Samples in a child's clock shift and this many seconds after it are not compared with the child's. */
    static final int SHIFT_MARGIN_SECONDS = 5;
    static final int FIRST_DIFFERENCES = 20;
    /** Seconds per query (the window is read in pieces of at most this). */
    static final int PIECE = 3600;
    /** Charts per child whose queries are compared byte for byte (all a Strata child's; a Netdata child's first). */
    static final int BYTE_CHARTS = 20;
    /**
     * The reason of a real Netdata child's first second of a chart that no parent holds: a 1.37.1
     * child clamps a replication request to its chart's first entry and sends the points after it,
     * so that second reaches a parent only in the live stream (docs/replication.md, "A chart's
     * first seconds"; docs/chaos.md, finding 7).
     */
    static final String FIRST_SECOND_NOT_REPLAYED = "a Netdata 1.37.1 child's first second of a chart, on no parent"
            + " (its replication answers start after a chart's first entry: docs/replication.md, A chart's first"
            + " seconds)";

    long checked;
    long missing;
    long different;
    long childEngineMissing;
    long queriesCompared;
    long queriesDifferent;
    final Map<String, Long> excepted = new TreeMap<>();
    final List<String> firstDifferences = new ArrayList<>();
    final Map<String, String> unreadable = new LinkedHashMap<>();
    /** Per "parent child": the seconds of the child missing on the parent (any chart, any dimension). */
    final Map<String, TreeSet<Long>> gaps = new TreeMap<>();

    /** Per child: its SIGKILLs (epoch seconds) and clock shifts ({from, to, offset}). */
    record ChildHistory(List<Long> kills, List<long[]> shifts) {
    }

    void run(ChaosCluster cluster, long after, long before, Map<String, ChildHistory> history)
            throws InterruptedException {
        List<String> parentNames = cluster.parents.stream().map(p -> p.name).toList();
        for (ChaosNode child : cluster.children) {
            ChildHistory h = history.getOrDefault(child.name, new ChildHistory(List.of(), List.of()));
            boolean netdata = child.kind == ChaosNode.Kind.NETDATA_CHILD;
            Map<String, Long> charts;
            try {
                charts = Series.firstEntries(child, netdata ? null : child.name);
            } catch (IOException e) {
                unreadable.put(child.name, "its chart list: " + e.getMessage());
                continue;
            }
            int bytesCharts = 0;
            for (Map.Entry<String, Long> chart : charts.entrySet()) {
                for (long a = after; a < before; a += PIECE) {
                    long b = Math.min(before, a + PIECE);
                    compare(cluster, parentNames, child, netdata, chart.getKey(), chart.getValue(), a, b, h);
                }
                if (bytesCharts++ < (netdata ? BYTE_CHARTS : Integer.MAX_VALUE)) {
                    sameBytes(cluster, child.name, chart.getKey(), after, before);
                }
            }
        }
    }

    private void compare(ChaosCluster cluster, List<String> parentNames, ChaosNode child, boolean netdata,
                         String chart, long firstEntry, long a, long b, ChildHistory h) throws InterruptedException {
        Series truth;
        try {
            truth = Series.fetch(child, netdata ? null : child.name, chart, a, b);
        } catch (IOException e) {
            unreadable.put(child.name + " " + chart, e.getMessage());
            return;
        }
        List<Series> onParents = new ArrayList<>();
        for (ChaosNode p : cluster.parents) {
            try {
                onParents.add(Series.fetch(p, child.name, chart, a, b));
            } catch (IOException e) {
                unreadable.put(p.name + " " + child.name + " " + chart, e.getMessage());
                return;
            }
        }
        compare(child.name, netdata, chart, firstEntry, h, truth, parentNames, onParents);
    }

    /**
     * One chart of one child over (truth.after, truth.before]: the child's own answer ({@code truth})
     * against each parent's ({@code onParents}, in the order of {@code parentNames}).
     * {@code firstEntry} is the chart's first second in the child's own engine (its
     * {@code /api/v1/charts} {@code first_entry}; 0 when unknown).
     */
    void compare(String child, boolean netdata, String chart, long firstEntry, ChildHistory h, Series truth,
                 List<String> parentNames, List<Series> onParents) {
        long a = truth.after;
        long b = truth.before;
        SortedSet<String> dims = new TreeSet<>(truth.dimensions());
        for (Series p : onParents) {
            dims.addAll(p.dimensions());
        }
        for (String dim : dims) {
            for (long t = a + 1; t <= b; t++) {
                double tv = truth.at(dim, t);
                String shift = shiftAt(h, t);
                if (!Double.isNaN(tv)) {
                    if (netdata && shift == null && t == firstEntry && onNone(onParents, dim, t)) {
                        for (int p = 0; p < onParents.size(); p++) {
                            except(FIRST_SECOND_NOT_REPLAYED);
                        }
                        continue;
                    }
                    for (int p = 0; p < onParents.size(); p++) {
                        double pv = onParents.get(p).at(dim, t);
                        if (shift != null) {
                            except(shift);
                            continue;
                        }
                        checked++;
                        if (Double.isNaN(pv)) {
                            missing++;
                            gap(parentNames.get(p), child, t);
                            note(child + " " + chart + " " + dim + " at " + t + ": the child has " + tv + ", "
                                    + parentNames.get(p) + " nothing");
                        } else if (!same(tv, pv)) {
                            different++;
                            note(child + " " + chart + " " + dim + " at " + t + ": the child has " + tv + ", "
                                    + parentNames.get(p) + " " + pv);
                        }
                    }
                    if (shift == null) {
                        continue;
                    }
                }
                // the parents with each other
                int holding = 0;
                double first = Double.NaN;
                int firstAt = -1;
                for (int p = 0; p < onParents.size(); p++) {
                    double pv = onParents.get(p).at(dim, t);
                    if (!Double.isNaN(pv)) {
                        holding++;
                        if (firstAt < 0) {
                            first = pv;
                            firstAt = p;
                        } else if (!same(first, pv)) {
                            different++;
                            note(child + " " + chart + " " + dim + " at " + t + ": " + parentNames.get(firstAt) + " has " + first + ", " + parentNames.get(p) + " " + pv);
                        }
                    }
                }
                if (holding == 0 || !Double.isNaN(tv)) {
                    continue;
                }
                String lastSecond = killAt(h, t);
                if (holding < onParents.size()) {
                    if (lastSecond != null) {
                        except(lastSecond);
                    } else {
                        missing += onParents.size() - holding;
                        List<String> lacking = new ArrayList<>();
                        for (int p = 0; p < onParents.size(); p++) {
                            if (Double.isNaN(onParents.get(p).at(dim, t))) {
                                lacking.add(parentNames.get(p));
                                gap(parentNames.get(p), child, t);
                            }
                        }
                        note(child + " " + chart + " " + dim + " at " + t + ": " + holding + " of "
                                + onParents.size() + " parents hold it (" + first + "), not " + lacking
                                + ", nor the child");
                    }
                }
                // a second the child collected and its own engine lacks
                if (lastSecond == null && shift == null) {
                    if (lostAtLaterKill(h, t)) {
                        except("in the child's memory at a later SIGKILL (docs/format/README.md, Crash consistency)");
                    } else if (!netdata) {
                        childEngineMissing++;
                        note(child + " " + chart + " " + dim + " at " + t + ": the parents hold " + first
                                + ", the child's own engine nothing, and it was not killed after");
                    }
                }
            }
        }
    }

    private void sameBytes(ChaosCluster cluster, String host, String chart, long after, long before)
            throws InterruptedException {
        for (String q : List.of("&points=" + Math.min(before - after, 600) + "&format=json",
                "&points=20&format=csv&group=max", "&points=10&format=datatable&options=percentage")) {
            // A grouped query's rows are aligned to its group (as Netdata aligns them): its last row
            // reaches up to a group past `before`, into seconds still arriving on a parent that is
            // catching up, and its first row a group before `after`. The grouped queries ask for a
            // window a group inside the checked one, so that every row they answer is settled.
            int points = Integer.parseInt(q.substring("&points=".length(), q.indexOf('&', 1)));
            long inset = points >= before - after ? 0 : (before - after + points - 1) / points + 1;
            String path = "/host/" + host + "/api/v1/data?chart=" + chart + "&after=" + (after + inset)
                    + "&before=" + (before - inset) + q;
            String firstBody = null;
            String firstName = null;
            for (ChaosNode p : cluster.parents) {
                String body;
                try {
                    body = p.fetch(path);
                } catch (IOException e) {
                    String m = String.valueOf(e.getMessage());
                    int status = m.indexOf(" with 404: ");
                    if (status < 0) {
                        unreadable.put(p.name + " " + path, m);
                        return;
                    }
                    // a 404 is an answer too: the same on every parent
                    body = m.substring(status);
                }
                if (firstBody == null) {
                    firstBody = body;
                    firstName = p.name;
                } else if (!firstBody.equals(body)) {
                    queriesDifferent++;
                    int at = 0;
                    while (at < firstBody.length() && at < body.length() && firstBody.charAt(at) == body.charAt(at)) {
                        at++;
                    }
                    note(path + ": " + firstName + " and " + p.name + " answer differently (" + firstBody.length()
                            + " and " + body.length() + " bytes), from byte " + at + ": "
                            + excerpt(firstBody, at) + " | " + excerpt(body, at));
                }
            }
            queriesCompared++;
        }
    }

    private void gap(String parent, String child, long t) {
        gaps.computeIfAbsent(parent + " lacks " + child, k -> new TreeSet<>()).add(t);
    }

    /** The gaps as ranges of seconds, e.g. {@code chaos-parent-1 lacks chaos-child-1: 1795733348-1795733397 (50 s)}. */
    List<String> gapRanges() {
        List<String> out = new ArrayList<>();
        gaps.forEach((who, seconds) -> {
            StringBuilder b = new StringBuilder(who).append(':');
            long start = -1;
            long prev = -1;
            for (long t : seconds) {
                if (start < 0) {
                    start = t;
                } else if (t != prev + 1) {
                    b.append(' ').append(start).append('-').append(prev).append(" (").append(prev - start + 1)
                            .append(" s)");
                    start = t;
                }
                prev = t;
            }
            b.append(' ').append(start).append('-').append(prev).append(" (").append(prev - start + 1).append(" s)");
            out.add(b.toString());
        });
        return out;
    }

    private static String excerpt(String body, int at) {
        return body.substring(Math.max(0, at - 40), Math.min(body.length(), at + 60)).replace('\n', ' ');
    }

    private static boolean onNone(List<Series> onParents, String dim, long t) {
        for (Series p : onParents) {
            if (!Double.isNaN(p.at(dim, t))) {
                return false;
            }
        }
        return true;
    }

    private static boolean same(double a, double b) {
        return Math.abs(a - b) <= Math.max(1e-9, Math.abs(a) * 1e-6);
    }

    private void except(String reason) {
        excepted.merge(reason, 1L, Long::sum);
    }

    private void note(String s) {
        if (firstDifferences.size() < FIRST_DIFFERENCES) {
            firstDifferences.add(s);
        }
    }

    private static String shiftAt(ChildHistory h, long t) {
        for (long[] s : h.shifts()) {
            if (t >= s[0] - SHIFT_MARGIN_SECONDS && t <= s[1] + Math.abs(s[2]) + SHIFT_MARGIN_SECONDS) {
                return "collected around the child's clock shift (its lives stamp the same seconds twice: its engine"
                        + " keeps the first; a parent that lacked it holds a gap; docs/chaos.md, finding 3)";
            }
        }
        return null;
    }

    private static String killAt(ChildHistory h, long t) {
        for (long k : h.kills()) {
            if (t >= k - 1 && t <= k + 1) {
                return "the child's last second before its SIGKILL (docs/replication.md, ChildKilledIT)";
            }
        }
        return null;
    }

    private static boolean lostAtLaterKill(ChildHistory h, long t) {
        for (long k : h.kills()) {
            if (k >= t) {
                return true;
            }
        }
        return false;
    }

    boolean ok() {
        return missing == 0 && different == 0 && childEngineMissing == 0 && queriesDifferent == 0
                && unreadable.isEmpty();
    }
}
