package io.strata.streaming.collect;

import java.util.ArrayList;
import java.util.List;

/** Test sink: keeps every stored point in order. */
final class RecordingSink implements StoredPointSink {

    record Point(int metricId, long time, int updateEvery, double value, int flags) { }

    final List<Point> points = new ArrayList<>();

    @Override
    public void store(int metricId, long pointTimeSeconds, int updateEvery, double value, int flags) {
        points.add(new Point(metricId, pointTimeSeconds, updateEvery, value, flags));
    }

    List<Point> of(int metricId) {
        List<Point> r = new ArrayList<>();
        for (Point p : points) {
            if (p.metricId() == metricId) {
                r.add(p);
            }
        }
        return r;
    }

    Point at(int metricId, long time) {
        Point found = null;
        for (Point p : points) {
            if (p.metricId() == metricId && p.time() == time) {
                if (found != null) {
                    throw new AssertionError("two points for metric " + metricId + " at " + time);
                }
                found = p;
            }
        }
        if (found == null) {
            throw new AssertionError("no point for metric " + metricId + " at " + time + " in " + points);
        }
        return found;
    }

    void clear() {
        points.clear();
    }
}
