package io.strata.node.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a chaos run found: the faults by kind, the samples checked, missing, different and
 * excepted (with reasons), the catch-up times, each node's RSS and file descriptors at the start
 * and the end, and the bounds they are held to. {@link #ok()} only when nothing is missing or
 * different, every query answered the same on every parent, and no node broke a bound or died
 * without a fault.
 */
public final class ChaosReport {

    /**
     * Growth allowed between the start of the schedule and the end of the check, for a node that
     * was not restarted: RSS at most twice the start plus 128 MiB (the JIT, the caches filling up
     * to their bounds), file descriptors at most the start plus 64 (connections of the moment).
     */
    static final long RSS_SLACK_BYTES = 128L << 20;
    static final long FD_SLACK = 64;

    final ChaosOptions options;
    final Path dir;
    String partitions = "";
    String netdataChild = "";
    String disks = "";
    final Map<String, Integer> faults = new TreeMap<>();
    final Map<String, long[]> resourcesStart = new LinkedHashMap<>();
    final Map<String, long[]> resourcesEnd = new LinkedHashMap<>();
    final Map<String, Integer> starts = new LinkedHashMap<>();
    Map<Integer, Double> catchUps = new LinkedHashMap<>();
    double quietCatchUpSeconds;
    long windowStart;
    long windowEnd;
    List<String> plan = List.of();
    List<String> events = List.of();
    final List<String> problems = new ArrayList<>();
    ReplicaCheck check = new ReplicaCheck();

    ChaosReport(ChaosOptions options, Path dir) {
        this.options = options;
        this.dir = dir;
    }

    public boolean ok() {
        return check.ok() && problems.isEmpty() && boundsBroken().isEmpty();
    }

    /** The longest catch-up: after any parent's fault, and the quiet one at the end. -1 when one never came. */
    public double maxCatchUpSeconds() {
        double max = quietCatchUpSeconds;
        for (double c : catchUps.values()) {
            if (c < 0) {
                return -1;
            }
            max = Math.max(max, c);
        }
        return max;
    }

    List<String> boundsBroken() {
        List<String> out = new ArrayList<>();
        resourcesStart.forEach((name, s) -> {
            long[] e = resourcesEnd.get(name);
            if (e == null || s[0] < 0 || e[0] < 0 || starts.getOrDefault(name, 1) > 1) {
                return; // restarted: another process
            }
            if (e[0] > 2 * s[0] + RSS_SLACK_BYTES) {
                out.add(name + ": RSS grew from " + s[0] + " to " + e[0] + " bytes (bound 2x + 128 MiB)");
            }
            if (e[1] > s[1] + FD_SLACK) {
                out.add(name + ": file descriptors grew from " + s[1] + " to " + e[1] + " (bound + " + FD_SLACK + ")");
            }
        });
        return out;
    }

    public long samplesChecked() {
        return check.checked;
    }

    public long samplesMissing() {
        return check.missing + check.childEngineMissing;
    }

    public long samplesDifferent() {
        return check.different;
    }

    public long samplesExcepted() {
        return check.excepted.values().stream().mapToLong(Long::longValue).sum();
    }

    public String json() {
        ObjectMapper m = new ObjectMapper();
        ObjectNode o = m.createObjectNode();
        o.put("ok", ok());
        o.put("seed", options.seed());
        o.put("minutes", options.minutes());
        o.put("parents", options.parents());
        o.put("children", options.children());
        o.put("netdata_child", netdataChild);
        o.put("partitions", partitions);
        o.put("disks", disks);
        ObjectNode f = o.putObject("faults");
        faults.forEach(f::put);
        o.put("samples_checked", check.checked);
        o.put("samples_missing", samplesMissing());
        o.put("samples_missing_from_child_engine", check.childEngineMissing);
        o.put("samples_different", check.different);
        o.put("samples_excepted", samplesExcepted());
        ObjectNode reasons = o.putObject("samples_excepted_reasons");
        check.excepted.forEach(reasons::put);
        o.put("queries_compared", check.queriesCompared);
        o.put("queries_different", check.queriesDifferent);
        o.put("max_catch_up_seconds", round(maxCatchUpSeconds()));
        o.put("quiet_catch_up_seconds", round(quietCatchUpSeconds));
        ObjectNode cu = o.putObject("catch_up_seconds_by_fault");
        catchUps.forEach((k, v) -> cu.put("#" + k, round(v)));
        o.put("window_start", windowStart);
        o.put("window_end", windowEnd);
        ObjectNode nodes = o.putObject("nodes");
        resourcesStart.forEach((name, s) -> {
            long[] e = resourcesEnd.getOrDefault(name, new long[]{-1, -1});
            ObjectNode n = nodes.putObject(name);
            n.put("starts", starts.getOrDefault(name, 1));
            n.put("rss_bytes_start", s[0]);
            n.put("rss_bytes_end", e[0]);
            n.put("fds_start", s[1]);
            n.put("fds_end", e[1]);
        });
        array(o.putArray("bounds_broken"), boundsBroken());
        array(o.putArray("problems"), problems);
        array(o.putArray("first_differences"), check.firstDifferences);
        array(o.putArray("gaps"), check.gapRanges());
        ObjectNode unreadable = o.putObject("unreadable");
        check.unreadable.forEach(unreadable::put);
        array(o.putArray("schedule"), plan);
        o.put("directory", dir.toString());
        return o.toString();
    }

    /** The human report; on a failure also the fault schedule as it was played and the first differences. */
    public String table() {
        StringBuilder s = new StringBuilder();
        s.append(String.format("strata chaos: seed %d, %s min, %d parents, %d children (%s); partitions: %s%n",
                options.seed(), options.minutes(), options.parents(), options.children(), netdataChild, partitions));
        s.append("disks: ").append(disks).append('\n');
        s.append(String.format("window (%d, %d], %d s; nodes' directories and logs in %s%n", windowStart, windowEnd,
                windowEnd - windowStart, dir));
        s.append("\nfaults by kind\n");
        faults.forEach((k, v) -> s.append(String.format("  %-28s %6d%n", k, v)));
        s.append("\nsamples\n");
        s.append(String.format("  %-28s %12d%n", "checked", check.checked));
        s.append(String.format("  %-28s %12d%n", "missing on a parent", check.missing));
        s.append(String.format("  %-28s %12d%n", "missing in the child's engine", check.childEngineMissing));
        s.append(String.format("  %-28s %12d%n", "different", check.different));
        s.append(String.format("  %-28s %12d%n", "excepted", samplesExcepted()));
        check.excepted.forEach((k, v) -> s.append(String.format("    %10d  %s%n", v, k)));
        s.append(String.format("  %-28s %12d (%d different)%n", "queries compared byte for byte", check.queriesCompared,
                check.queriesDifferent));
        s.append(String.format("%ncatch-up: longest %.1f s (quiet at the end %.1f s); per parent fault:",
                maxCatchUpSeconds(), quietCatchUpSeconds));
        catchUps.forEach((k, v) -> s.append(String.format(" #%d %s", k, v < 0 ? "never" : String.format("%.1f s", v))));
        s.append("\n\nnode                      starts   RSS start MiB  RSS end MiB   fds start  fds end\n");
        resourcesStart.forEach((name, st) -> {
            long[] e = resourcesEnd.getOrDefault(name, new long[]{-1, -1});
            s.append(String.format("  %-24s %5d %14.1f %12.1f %11d %8d%n", name, starts.getOrDefault(name, 1),
                    st[0] / 1048576.0, e[0] / 1048576.0, st[1], e[1]));
        });
        s.append("  bounds for a node not restarted: RSS <= 2 x start + 128 MiB, fds <= start + 64\n");
        for (String b : boundsBroken()) {
            s.append("  BOUND BROKEN: ").append(b).append('\n');
        }
        if (!check.unreadable.isEmpty()) {
            s.append("\nunreadable:\n");
            check.unreadable.forEach((k, v) -> s.append("  ").append(k).append(": ").append(v).append('\n'));
        }
        for (String p : problems) {
            s.append("PROBLEM: ").append(p).append('\n');
        }
        if (!ok()) {
            s.append("\nthe fault schedule as played:\n");
            events.forEach(e -> s.append("  ").append(e).append('\n'));
            s.append("seconds missing, per parent and child:\n");
            check.gapRanges().forEach(g -> s.append("  ").append(g).append('\n'));
            s.append("first differences:\n");
            check.firstDifferences.forEach(d -> s.append("  ").append(d).append('\n'));
        } else {
            s.append("\nschedule:\n");
            plan.forEach(e -> s.append("  ").append(e).append('\n'));
        }
        s.append(ok() ? "\nOK: nothing missing, nothing different\n"
                : "\nFAILED: replay with --seed " + options.seed() + "\n");
        return s.toString();
    }

    private static void array(ArrayNode a, List<String> items) {
        items.forEach(a::add);
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }
}
