package io.strata.node.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * What the quiet catch-up waits for, and what it finds while it waits: every parent holds every
 * second of a child's first chart, over the window, that the child or another parent holds. A
 * second a parent lacks is a {@link Hole}; one behind the newest second that parent holds is
 * {@linkplain Hole#behindNewest() behind}: no replication request covers it (a parent asks a
 * sender from its newest stored second, as 1.37.1 does, and its engine stores a metric's points in
 * time order), so the wait cannot end while it is there (docs/chaos.md, finding 6).
 */
final class QuietCatchUp {

    private QuietCatchUp() {
    }

    /**
     * Seconds {@code from..to} of one child's chart that {@code parent} lacks while {@code heldBy}
     * (other parents) or the child ({@code childHolds}) hold them. {@code newest}: the newest
     * second the parent holds of that chart in the window.
     */
    record Hole(String parent, long from, long to, List<String> heldBy, boolean childHolds, long newest) {

        boolean behindNewest() {
            return to < newest;
        }

        String describe() {
            List<String> holders = new ArrayList<>(heldBy);
            if (childHolds) {
                holders.add("the child");
            }
            return parent + " lacks " + from + "-" + to + " (" + (to - from + 1) + " s), held by "
                    + String.join(" and ", holders) + (childHolds ? "" : " (not the child)")
                    + (behindNewest() ? ", behind the newest second it holds (" + newest
                    + "): no request fills it" : ", after the newest second it holds (" + newest + "): still arriving");
        }
    }

    /**
     * The holes of every parent in (child.after, child.before]: runs of seconds a parent lacks
     * that the child or another parent holds, cut where the set of holders changes.
     */
    static List<Hole> holes(Series child, List<String> parentNames, List<Series> parents) {
        List<Hole> out = new ArrayList<>();
        for (int p = 0; p < parents.size(); p++) {
            Series mine = parents.get(p);
            long newest = mine.newest();
            Hole open = null;
            for (long t = child.after + 1; t <= child.before; t++) {
                List<String> heldBy = new ArrayList<>();
                if (!mine.holds(t)) {
                    for (int q = 0; q < parents.size(); q++) {
                        if (q != p && parents.get(q).holds(t)) {
                            heldBy.add(parentNames.get(q));
                        }
                    }
                }
                boolean childHolds = !mine.holds(t) && child.holds(t);
                if (heldBy.isEmpty() && !childHolds) {
                    if (open != null) {
                        out.add(open);
                        open = null;
                    }
                    continue;
                }
                if (open != null && open.to() == t - 1 && open.heldBy().equals(heldBy)
                        && open.childHolds() == childHolds) {
                    open = new Hole(open.parent(), open.from(), t, heldBy, childHolds, newest);
                } else {
                    if (open != null) {
                        out.add(open);
                    }
                    open = new Hole(parentNames.get(p), t, t, heldBy, childHolds, newest);
                }
            }
            if (open != null) {
                out.add(open);
            }
        }
        return out;
    }
}
