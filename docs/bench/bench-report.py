#!/usr/bin/env python3
"""Runs Strata's benchmarks, keeps their JSON under docs/bench/results/, draws docs/bench/*.svg.

  docs/bench/bench-report.py list                      the figures, their commands and whether they run here
  docs/bench/bench-report.py run FIGURE [--runs N] [--anchor COMMIT] [--results DIR] [--set KEY=VALUE ...]
  docs/bench/bench-report.py plot [--results DIR] [--out DIR]
  docs/bench/bench-report.py summary [--results DIR]   median, spread and runs of every figure, as text

`run` executes a figure's command N times (default 5) and writes results/FIGURE.json with every
run's own JSON (`./strata bench engine|replay ... --json`, `disk-check --json`, JMH `-rf json`),
the machine, the build (git describe) and the load average at each start. With `--anchor COMMIT`
the same command also runs from a checkout of COMMIT (a detached git worktree under /tmp, built
by its own ./strata), alternated run by run, so that the figure comes with a ratio to the
previous build measured in the same session. Figures marked "manual" (a load against a separate
parent process, an it-tests benchmark, a real Netdata beside Strata) print their command instead.

Only the Python 3 standard library is used; the SVG is written by hand.
"""
import argparse
import datetime
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "docs", "bench")
DATASET = "engine/src/test/resources/datasets/netdata-child-1h.csv.gz"
JMH_JAR = "jmh/target/strata-benchmarks.jar"

# Each figure: how to run it (kind, argv with {dir} for a fresh temporary directory, {strata}
# for the launcher), which value of a run is the figure (a dotted path into the run's JSON),
# its unit and scale for display, and the goal it is judged against.
FIGURES = {
    "engine-write-1tier-1w": dict(
        title="Engine write rate, tier 0 only, 1 writer (100 000 metrics x 1 h, real data)",
        kind="strata", argv=["{strata}", "bench", "engine", "--metrics", "100000", "--seconds", "3600",
                             "--tiers", "1", "--writers", "1", "--dataset", DATASET, "--dir", "{dir}/db", "--json"],
        metric="points_per_second", unit="M points/s", scale=1e-6, goal=12e6, goal_op=">="),
    "engine-write-1tier-2w": dict(
        title="Engine write rate, tier 0 only, 2 writers (100 000 metrics x 1 h, real data)",
        kind="strata", argv=["{strata}", "bench", "engine", "--metrics", "100000", "--seconds", "3600",
                             "--tiers", "1", "--writers", "2", "--dataset", DATASET, "--dir", "{dir}/db", "--json"],
        metric="points_per_second", unit="M points/s", scale=1e-6, goal=12e6, goal_op=">="),
    "engine-3tiers-1w-8000s": dict(
        title="Engine, 3 tiers, 1 writer, 100 000 metrics x 8 000 s: write rate and memory per metric",
        kind="strata", argv=["{strata}", "bench", "engine", "--metrics", "100000", "--seconds", "8000",
                             "--tiers", "3", "--writers", "1", "--dataset", DATASET, "--dir", "{dir}/db", "--json"],
        metric="points_per_second", unit="M points/s", scale=1e-6),
    "engine-write-3tiers-2w2r": dict(
        title="Engine write rate, 3 tiers, 2 writers beside 2 readers checking every value",
        kind="strata", argv=["{strata}", "bench", "engine", "--metrics", "100000", "--seconds", "3600",
                             "--tiers", "3", "--writers", "2", "--readers", "2", "--dataset", DATASET,
                             "--dir", "{dir}/db", "--json"],
        metric="points_per_second", unit="M points/s", scale=1e-6, goal=10e6, goal_op=">="),
    "engine-bytes-per-point": dict(
        title="Bytes per point on disk per tier, all files (1 105 metrics x 48 h, real data)",
        kind="strata", argv=["{strata}", "bench", "engine", "--metrics", "1105", "--seconds", "172800",
                             "--tiers", "3", "--dataset", DATASET, "--dir", "{dir}/db", "--json"],
        metric="bytes_per_sample.0", unit="bytes/point", scale=1),
    "engine-cold-scan": dict(
        title="Cold scan of tier 0 (read and check every extent) beside disk-check's sequential read",
        kind="cold-scan",
        setup=["{strata}", "bench", "engine", "--metrics", "100000", "--seconds", "3600", "--tiers", "3",
               "--writers", "2", "--dataset", DATASET, "--dir", "{dir}/db", "--json"],
        argv=["{strata}", "bench", "engine", "--tiers", "3", "--dir", "{dir}/db", "--scan-only", "--json"],
        anchor_argv=["{strata}", "disk-check", "{dir}", "--json"],
        metric="scan.cold_scan_mb_s", unit="MiB/s", scale=1, note="needs root (drops the page cache)"),
    "engine-sweep-metrics": dict(
        title="Engine, 3 tiers, 1 writer, 3 600 s: write rate and memory against the number of metrics",
        kind="sweep", sweep=[10000, 30000, 100000, 300000],
        argv=["{strata}", "bench", "engine", "--metrics", "{metrics}", "--seconds", "{seconds}", "--tiers", "3",
              "--writers", "1", "--dataset", DATASET, "--dir", "{dir}/db", "--json"],
        defaults={"seconds": "3600"}, metric="points_per_second", unit="M points/s", scale=1e-6),
    "replay-rate": dict(
        title="Replay rate between two Strata nodes on loopback (20 hosts x 2 000 metrics x 600 s)",
        kind="strata", argv=["{strata}", "bench", "replay", "--json"],
        metric="samples_per_second", unit="M samples/s", scale=1e-6, goal=6e6, goal_op=">="),
    "replay-phases": dict(
        title="Replay: CPU per sample of each step, one thread, no sockets",
        kind="strata", argv=["{strata}", "bench", "replay", "--phases", "--json"],
        metric="parse_and_store_ns_per_sample", unit="ns/sample", scale=1),
    "stream-ingest": dict(
        title="Streaming ingest into a parent, 20 children x 5 000 metrics, LZ4, 3 tiers",
        kind="manual", metric="samples_per_parent_cpu_second", unit="M samples per parent CPU-second", scale=1e-6,
        goal=2e6, goal_op=">=",
        command="./strata node --config DIR &   # a parent: 3 tiers, one API key, [web] bind to = 127.0.0.1:PORT\n"
                "./strata load --parent 127.0.0.1:PORT --children 20 --metrics-per-child 5000 --seconds 30 "
                "--compression on --parent-pid PID --json"),
    "compare-netdata": dict(
        title="Strata against Netdata 1.37.1 as a parent, same machine, same real-time load, ratios Strata/Netdata",
        kind="manual", metric="ratios_strata_to_netdata.cpu_ns_per_sample", unit="Strata/Netdata, CPU per sample",
        scale=1, goal=0.2, goal_op="<=",
        command="./strata compare --children 100 --charts 50 --dimensions 8 --seconds 120 --warmup 30 --json"),
    "api-data-p99": dict(
        title="/api/v1/data p99, 64 clients sending 1 000 requests/s, beside a real Netdata parent",
        kind="manual", metric="p99_ms", unit="ms", scale=1, goal=2, goal_op="<=",
        command="./mvnw -o -q -pl query-api,node,it-tests verify -Dit.test=DataLatencyBenchIT -Dtest=none "
                "-Dsurefire.failIfNoSpecifiedTests=false -Dstrata.bench.data=true -Dstrata.bench.runs=5 "
                "-Dstrata.bench.seconds=10"),
    "catch-up": dict(
        title="Catch-up of a parent down 10 minutes (2 parents, 20 children x 2 000 metrics)",
        kind="manual", metric="caught_up_seconds", unit="s", scale=1,
        command="./mvnw -o -q -pl engine,streaming,replication,query-api,node,it-tests verify -Dtest=NoSuchTest "
                "-Dsurefire.failIfNoSpecifiedTests=false -Dit.test=ParentDownTenMinutesCatchUpIT "
                "-Dstrata.bench.catchup=true -Dstrata.bench.downSeconds=600"),
    "refill-24h": dict(
        title="A parent with an empty disk refilled from its peer holding 24 h of 20 children x 100 metrics",
        kind="manual", metric="caught_up_seconds", unit="s", scale=1,
        command="./mvnw -o -q -B -pl it-tests -am verify -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false "
                "-Dit.test=ReplacedParentRefilledFromPeerIT -Dstrata.bench.refill=true"),
    "failover": dict(
        title="Failover of a child when its parent is killed or cut off",
        kind="manual", metric="seconds", unit="s", scale=1,
        command="./mvnw -o -q -pl engine,streaming,replication,query-api,node,it-tests verify -Dtest=NoSuchTest "
                "-Dsurefire.failIfNoSpecifiedTests=false -Dit.test='ParentKilledIT,ParentPartitionedIT'"),
    "jmh-page-codec": dict(
        title="JMH PageCodecBenchmark: tier-0 page encode and decode",
        kind="jmh", pattern="PageCodecBenchmark", args=["-f", "1", "-wi", "3", "-i", "5", "-w", "1s", "-r", "2s"],
        metric="primaryMetric.score", unit="M points/s", scale=1e-6),
    "jmh-query-from-cache": dict(
        title="JMH QueryFromCacheBenchmark: queries of pages in the clean-page cache, one thread",
        kind="jmh", pattern="QueryFromCache", args=["-f", "1", "-wi", "3", "-i", "5", "-w", "2s", "-r", "3s"],
        metric="primaryMetric.score", unit="M points/s", scale=1e-6, goal=50e6, goal_op=">="),
    "jmh-engine": dict(
        title="JMH: storage numbers, extents, queries from disk, the store path",
        kind="jmh", pattern="io.strata.jmh.engine.(StorageNumber|Extent|Query|EngineWrite)Benchmark",
        args=["-f", "1", "-wi", "3", "-i", "5", "-w", "2s", "-r", "2s"],
        metric="primaryMetric.score", unit="M points/s", scale=1e-6),
    "jmh-stream-ingest": dict(
        title="JMH StreamIngestBenchmark: 4 children x 250 charts x 8 dimensions, stream bytes to a 3-tier engine"
              " without sockets, one thread",
        kind="jmh", pattern="StreamIngestBenchmark",
        args=["-p", "dimensionsPerChart=8", "-f", "2", "-wi", "3", "-i", "5", "-w", "2s", "-r", "3s"],
        metric="primaryMetric.score", unit="M samples/s", scale=1e-6),
}

# The plots: each row is (figure, series label or None for every series, the run value's path,
# the row's label[, its colour]). Rows of one panel share an axis.
PLOTS = {
    "engine-write-rate": dict(title="Engine write rate (M points/s), median bar, one dot a run", panels=[
        dict(unit="M points/s", scale=1e-6, goal=10e6, goal_label="goal with 2 readers: 10", rows=[
            ("engine-write-1tier-1w", None, "points_per_second", "1 tier, 1 writer, 1 h"),
            ("engine-write-1tier-2w", None, "points_per_second", "1 tier, 2 writers, 1 h"),
            ("engine-3tiers-1w-8000s", None, "points_per_second", "3 tiers, 1 writer, 8 000 s"),
            ("engine-write-3tiers-2w2r", None, "points_per_second", "3 tiers, 2 writers + 2 readers, 1 h"),
        ])]),
    "engine-memory": dict(title="Memory per collected metric: RSS peak over the settled baseline (bytes)", panels=[
        dict(unit="bytes a metric", scale=1, goal=5120, goal_label="goal 5 120", rows=[
            ("engine-3tiers-1w-8000s", None, "memory_per_metric_peak_over_baseline_bytes",
             "100 000 metrics, 3 tiers, 8 000 s"),
        ])]),
    "engine-bytes-per-point": dict(title="Bytes per point on disk, all files of each tier, beside Netdata 1.37.1",
                                   panels=[
        dict(unit="bytes/point, tier 0", scale=1, goal=0.4, goal_label="goal 0.4", rows=[
            ("engine-bytes-per-point", None, "bytes_per_sample.0", "tier 0 (1 s)")]),
        dict(unit="bytes/point, tier 1", scale=1, goal=4, goal_label="goal 4", rows=[
            ("engine-bytes-per-point", None, "bytes_per_sample.1", "tier 1 (1 min)")]),
        dict(unit="bytes/point, tier 2", scale=1, goal=8, goal_label="goal 8", rows=[
            ("engine-bytes-per-point", None, "bytes_per_sample.2", "tier 2 (1 h)")]),
    ]),
    "engine-cold-scan": dict(title="Cold scan of tier 0 beside the disk's sequential read (MiB/s), per round",
                             panels=[
        dict(unit="MiB/s", scale=1, rows=[
            ("engine-cold-scan", None, "disk_check.seq_read_mb_s", "disk-check sequential read", "#8c8c8c"),
            ("engine-cold-scan", None, "scan.cold_scan_mb_s", "scan: read and check, 4 reads in flight"),
            ("engine-cold-scan", None, "scan.cold_scan_decode_mb_s", "scan: also decode every page"),
        ])]),
    "stream-ingest": dict(title="Streaming ingest: samples per parent CPU-second (M)", panels=[
        dict(unit="M samples per parent CPU-second", scale=1e-6, goal=2e6, goal_label="goal 2", rows=[
            ("stream-ingest", None, "samples_per_parent_cpu_second", "{series}")])]),
    "api-data-p99": dict(title="/api/v1/data p99 latency (ms), 64 clients, 1 000 requests/s, one dot a run", panels=[
        dict(unit="ms", scale=1, goal=2, goal_label="goal 2 ms", rows=[
            ("api-data-p99", None, "p99_ms", "{series}")])]),
    "replay-rate": dict(title="Replay rate between two Strata nodes (M samples/s)", panels=[
        dict(unit="M samples/s", scale=1e-6, goal=6e6, goal_label="goal 6", rows=[
            ("replay-rate", None, "samples_per_second", "{series}")])]),
    "jmh-page-codec": dict(title="Tier-0 page codec, JMH (M points/s a thread)", panels=[
        dict(unit="M points/s", scale=1e-6, rows=[
            ("jmh-page-codec", None, "primaryMetric.score", "{benchmark}")])]),
    "engine-sweep": dict(kind="line", title="Engine, 3 tiers, 1 writer: against the number of metrics",
                         figure="engine-sweep-metrics", x="metrics", ys=[
        ("points_per_second", 1e-6, "M points/s"),
        ("memory_per_metric_peak_over_baseline_bytes", 1, "bytes a metric (RSS peak over baseline)")]),
}

COLOURS = ["#1f6fb4", "#8c8c8c", "#e07b24", "#3a9a48", "#9b4fb0"]


def colour(label, i):
    """Strata blue, Netdata orange, an anchor build grey; others by position."""
    if "Netdata" in label:
        return "#e07b24"
    if "anchor" in label:
        return "#8c8c8c"
    return "#1f6fb4" if i == 0 else COLOURS[(i + 2) % len(COLOURS)]


def value(obj, path):
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj if isinstance(obj, (int, float)) else None


def load_results(results):
    out = {}
    if not os.path.isdir(results):
        return out
    for name in sorted(os.listdir(results)):
        if name.endswith(".json"):
            with open(os.path.join(results, name)) as f:
                data = json.load(f)
            # a results file written by hand may lack the key: its file name names the figure
            out[data.get("figure", name[:-len(".json")])] = data
    return out


# ---------------------------------------------------------------- running

def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            mem = "%.0f GiB" % (int(f.readline().split()[1]) / 1048576)
    except OSError:
        pass
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    return "%d cores (%s), %s, %s, %s" % (os.cpu_count() or 0, model, mem, java[0] if java else "java ?",
                                           platform.platform())


def build_of(root):
    r = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=root, capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def load_average():
    return round(os.getloadavg()[0], 2)


def substitute(argv, strata, directory, params):
    out = []
    for a in argv:
        a = a.replace("{strata}", strata).replace("{dir}", directory)
        for k, v in params.items():
            a = a.replace("{" + k + "}", str(v))
        out.append(a)
    return out


def run_json(argv, cwd):
    print("  $ " + " ".join(argv), file=sys.stderr)
    r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-4000:])
        raise SystemExit("bench-report: exit %d from %s" % (r.returncode, argv[1:3]))
    lines = [l for l in r.stdout.splitlines() if l.strip().startswith("{")]
    if not lines:
        raise SystemExit("bench-report: no JSON in the output of " + " ".join(argv))
    return json.loads(lines[-1])


def one_run(fig, root, params):
    strata = os.path.join(root, "strata")
    with tempfile.TemporaryDirectory(prefix="strata-bench-") as d:
        run = {"load_average_at_start": load_average()}
        if fig["kind"] == "cold-scan":
            run_json(substitute(fig["setup"], strata, d, params), root)
            run["disk_check"] = run_json(substitute(fig["anchor_argv"], strata, d, params), root)
            run["scan"] = run_json(substitute(fig["argv"], strata, d, params), root)
        elif fig["kind"] == "jmh":
            jar = os.path.join(root, JMH_JAR)
            if not os.path.exists(jar):
                subprocess.run(["./mvnw", "-q", "-B", "-DskipTests", "package", "-pl", "jmh", "-am"], cwd=root,
                               check=True)
            out = os.path.join(d, "jmh.json")
            argv = ["java", "-jar", jar, fig["pattern"]] + fig["args"] + ["-rf", "json", "-rff", out]
            print("  $ " + " ".join(argv), file=sys.stderr)
            subprocess.run(argv, cwd=root, check=True, stdout=sys.stderr)
            with open(out) as f:
                run["jmh"] = json.load(f)
        else:
            run.update(run_json(substitute(fig["argv"], strata, d, params), root))
        return run


def anchor_checkout(commit):
    path = os.path.join(tempfile.gettempdir(), "strata-anchor-" + commit)
    if not os.path.isdir(path):
        subprocess.run(["git", "worktree", "add", "--detach", path, commit], cwd=ROOT, check=True)
    return path


def cmd_run(args):
    if args.figure not in FIGURES:
        raise SystemExit("bench-report: no figure %r (see `list`)" % args.figure)
    fig = FIGURES[args.figure]
    if fig["kind"] == "manual":
        print("%s is measured by hand (another process or a real Netdata beside it):\n%s"
              % (args.figure, fig["command"]))
        return 2
    params = dict(fig.get("defaults", {}))
    for kv in args.set or []:
        k, _, v = kv.partition("=")
        params[k] = v
    builds = [("Strata " + build_of(ROOT), ROOT)]
    if args.anchor:
        builds.append(("Strata " + args.anchor + " (anchor)", anchor_checkout(args.anchor)))
    sweep = fig.get("sweep", [None])
    if fig["kind"] == "sweep" and args.sweep:
        sweep = [int(x) for x in args.sweep.split(",")]
    series = {label: [] for label, _ in builds}
    for i in range(args.runs):
        for x in sweep:
            for label, root in builds:  # alternated run by run
                p = dict(params)
                if x is not None:
                    p["metrics"] = x
                print("%s: run %d/%d, %s%s" % (args.figure, i + 1, args.runs, label,
                                                "" if x is None else ", %d metrics" % x), file=sys.stderr)
                if fig["kind"] == "jmh":
                    jmh = one_run(fig, root, p)
                    for b in jmh["jmh"]:
                        series[label].append({"load_average_at_start": jmh["load_average_at_start"],
                                              "benchmark": b["benchmark"].rsplit(".", 2)[-2] + "."
                                              + b["benchmark"].rsplit(".", 1)[-1],
                                              "params": b.get("params", {}), "primaryMetric": b["primaryMetric"]})
                else:
                    series[label].append(one_run(fig, root, p))
    doc = {"figure": args.figure, "title": fig["title"],
           "source": "run by docs/bench/bench-report.py on %s" % datetime.datetime.now(datetime.timezone.utc)
           .strftime("%Y-%m-%d %H:%M UTC"),
           "command": " ".join(substitute(fig.get("argv", [fig.get("pattern", "")]), "./strata", "DIR", params)),
           "machine": machine(), "build": build_of(ROOT),
           "series": [{"label": label, "runs": runs} for label, runs in series.items()]}
    os.makedirs(args.results, exist_ok=True)
    path = os.path.join(args.results, args.figure + ".json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("wrote " + path, file=sys.stderr)
    return 0


def cmd_list(args):
    for name, fig in FIGURES.items():
        cmd = fig.get("command") or " ".join(substitute(fig.get("argv", []), "./strata", "DIR",
                                                           fig.get("defaults", {})))
        if fig["kind"] == "jmh":
            cmd = "java -jar %s '%s' %s -rf json" % (JMH_JAR, fig["pattern"], " ".join(fig["args"]))
        if fig["kind"] == "cold-scan":
            cmd = "; ".join(" ".join(substitute(fig[k], "./strata", "DIR", {})) for k in ("setup", "anchor_argv", "argv"))
        print("%-26s %-9s %s\n%26s %s" % (name, fig["kind"], fig["title"], "", cmd))
    return 0


def spread(values):
    values = sorted(values)
    return statistics.median(values), values[0], values[-1]


def cmd_summary(args):
    for name, data in load_results(args.results).items():
        fig = FIGURES.get(name, {})
        print("%s  (%s; %s)" % (name, data.get("source", ""), data.get("build", "")))
        if "series" not in data:
            # runs recorded in another shape (by a script of their own): the file itself has them
            print("  runs recorded in their own shape: docs/bench/results/%s.json" % name)
            continue
        for s in data["series"]:
            groups = {}
            for run in s["runs"]:
                key = run.get("benchmark", "") + (" " + json.dumps(run["params"]) if run.get("params") else "")
                v = value(run, fig.get("metric", ""))
                if v is not None:
                    groups.setdefault(key, []).append(v * fig.get("scale", 1))
            for key, vs in groups.items():
                m, lo, hi = spread(vs)
                print("  %-40s %-24s median %.4g, %.4g..%.4g %s, %d runs"
                      % (s["label"], key, m, lo, hi, fig.get("unit", ""), len(vs)))
    return 0


# ---------------------------------------------------------------- SVG

def nice_axis(v):
    """(axis maximum, tick step): at most 6 steps of 1, 2 or 5 times a power of ten, above v."""
    v = max(v * 1.04, 1e-9)
    exp = 10 ** math.floor(math.log10(v / 6))
    for m in (1, 2, 2.5, 5, 10, 20):
        step = m * exp
        if math.ceil(v / step) <= 6:
            return math.ceil(v / step) * step, step
    return math.ceil(v / (50 * exp)) * 50 * exp, 50 * exp


def fmt(v):
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return "{:,.0f}".format(v).replace(",", " ")
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    if abs(v) >= 1:
        return "%.2f" % v
    return "%.3f" % v


def tick(v, step):
    decimals = 0
    while decimals < 6 and abs(step * 10 ** decimals - round(step * 10 ** decimals)) > 1e-6:
        decimals += 1
    if decimals == 0:
        return "{:,}".format(int(round(v))).replace(",", " ")
    return "%.*f" % (decimals, v)


def footer(svg, sources, width=150):
    for s in sources:
        while s:
            cut = len(s) if len(s) <= width else s.rfind(" ", 0, width)
            cut = width if cut <= 0 else cut
            svg.text(10, svg.y, s[:cut], size=9, colour="#666")
            svg.y += 12
            s = s[cut:].lstrip()
            if s:
                s = "    " + s


class Svg:
    def __init__(self, width):
        self.width = width
        self.parts = []
        self.y = 0

    def text(self, x, y, s, size=12, anchor="start", colour="#222", weight="normal"):
        self.parts.append('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" fill="%s" font-weight="%s">%s</text>'
                          % (x, y, size, anchor, colour, weight, escape(s)))

    def line(self, x1, y1, x2, y2, colour="#999", width=1, dash=None):
        self.parts.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%s"%s/>'
                          % (x1, y1, x2, y2, colour, width, ' stroke-dasharray="%s"' % dash if dash else ""))

    def rect(self, x, y, w, h, colour, opacity=1.0):
        self.parts.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="%.2f"/>'
                          % (x, y, max(w, 0.5), h, colour, opacity))

    def circle(self, x, y, r, colour):
        self.parts.append('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" stroke="white" stroke-width="0.8"/>'
                          % (x, y, r, colour))

    def polyline(self, points, colour):
        self.parts.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                          % (colour, " ".join("%.1f,%.1f" % p for p in points)))

    def render(self):
        return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
                'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">\n<rect width="100%%" height="100%%" '
                'fill="white"/>\n%s\n</svg>\n' % (self.width, self.y, self.width, self.y, "\n".join(self.parts)))


def rows_of(panel, results):
    """(label, series label, values, colour) for each row of a panel: a row per series (and per JMH
    benchmark and parameters), the series of one benchmark side by side."""
    rows = []
    for figure, only, path, label, *fixed in panel["rows"]:
        data = results.get(figure)
        if not data:
            continue
        keys = []
        for i, s in enumerate(data.get("series", [])):
            if only and s["label"] != only:
                continue
            groups = {}
            for run in s["runs"]:
                v = value(run, path)
                if v is None:
                    continue
                key = run.get("benchmark", "").replace("Benchmark.", ".")
                if run.get("params"):
                    key += ", " + ", ".join("%s" % p for p in run["params"].values())
                groups.setdefault(key, []).append(v * panel["scale"])
                if key not in keys:
                    keys.append(key)
            for key, vs in groups.items():
                text = label.replace("{series}", s["label"]).replace("{benchmark}", key).strip()
                sub = s["label"] if "{series}" not in label else ""
                rows.append((keys.index(key), i, (text, sub, vs, fixed[0] if fixed else colour(s["label"], i))))
    return [r for _, _, r in sorted(rows, key=lambda r: (r[0], r[1]))] if len(panel["rows"]) == 1 \
        else [r for _, _, r in rows]


def bar_plot(spec, results, sources):
    svg = Svg(820)
    left, right, pitch = 300, 620, 36
    svg.text(10, 22, spec["title"], size=14, weight="bold")
    svg.y = 34
    drew = False
    for panel in spec["panels"]:
        rows = rows_of(panel, results)
        if not rows:
            continue
        drew = True
        top = max(max(vs) for _, _, vs, _ in rows)
        goal = panel.get("goal")
        axis_max, step = nice_axis(max(top, goal * panel["scale"] if goal else 0))
        scale = (right - left) / axis_max
        y0 = svg.y + 8
        for i, (label, sub, vs, colour) in enumerate(rows):
            y = y0 + i * pitch
            median = statistics.median(vs)
            svg.text(left - 8, y + (12 if sub else 16), label, anchor="end", size=11)
            if sub:
                svg.text(left - 8, y + 25, sub, anchor="end", size=9, colour="#666")
            svg.rect(left, y + 4, median * scale, 16, colour, 0.35)
            if len(vs) > 1:
                svg.line(left + min(vs) * scale, y + 12, left + max(vs) * scale, y + 12, colour, 1.5)
            for v in vs:
                svg.circle(left + v * scale, y + 12, 3.6, colour)
            svg.text(left + max(vs) * scale + 8, y + 16, fmt(median) + ("" if len(vs) == 1 else
                     " (%s–%s, %d runs)" % (fmt(min(vs)), fmt(max(vs)), len(vs))), size=10, colour="#444")
        bottom = y0 + len(rows) * pitch
        svg.line(left, y0, left, bottom, "#444")
        svg.line(left, bottom, right, bottom, "#444")
        for k in range(int(round(axis_max / step)) + 1):
            v = k * step
            x = left + v * scale
            svg.line(x, bottom, x, bottom + 4, "#444")
            svg.text(x, bottom + 16, tick(v, step), size=10, anchor="middle", colour="#444")
        if goal:
            gx = left + goal * panel["scale"] * scale
            svg.line(gx, y0 - 4, gx, bottom, "#c0392b", 1.2, "5,3")
            svg.text(gx, y0 - 6, panel.get("goal_label", "goal"), size=10, anchor="middle", colour="#c0392b")
        svg.text(right, bottom + 30, panel["unit"], size=10, anchor="end", colour="#444")
        svg.y = bottom + 44
    if not drew:
        return None
    footer(svg, sources)
    svg.y += 6
    return svg.render()


def line_plot(spec, results, sources):
    data = results.get(spec["figure"])
    if not data:
        return None
    svg = Svg(820)
    svg.text(10, 22, spec["title"], size=14, weight="bold")
    svg.y = 40
    left, right, height = 90, 760, 180
    for path, scale, unit in spec["ys"]:
        lines = []
        for i, s in enumerate(data.get("series", [])):
            by_x = {}
            for run in s["runs"]:
                x, v = value(run, spec["x"]), value(run, path)
                if x is not None and v is not None:
                    by_x.setdefault(x, []).append(v * scale)
            if by_x:
                lines.append((s["label"], sorted((x, statistics.median(vs), vs) for x, vs in by_x.items()),
                              colour(s["label"], i)))
        if not lines:
            continue
        xs = [p[0] for _, pts, _ in lines for p in pts]
        x_max, x_step = nice_axis(max(xs))
        y_max, y_step = nice_axis(max(v for _, pts, _ in lines for p in pts for v in p[2]))
        top, bottom = svg.y + 10, svg.y + 10 + height
        svg.line(left, top, left, bottom, "#444")
        svg.line(left, bottom, right, bottom, "#444")
        for k in range(int(round(y_max / y_step)) + 1):
            yv = k * y_step
            yy = bottom - yv / y_max * height
            svg.line(left - 4, yy, right, yy, "#e4e4e4" if k else "#444")
            svg.text(left - 8, yy + 4, tick(yv, y_step), size=10, anchor="end", colour="#444")
        for k in range(int(round(x_max / x_step)) + 1):
            xv = k * x_step
            xx = left + xv / x_max * (right - left)
            svg.text(xx, bottom + 16, tick(xv, x_step), size=10, anchor="middle", colour="#444")
        for n, (label, pts, c) in enumerate(lines):
            svg.polyline([(left + x / x_max * (right - left), bottom - m / y_max * height) for x, m, _ in pts], c)
            for x, _, vs in pts:
                for v in vs:
                    svg.circle(left + x / x_max * (right - left), bottom - v / y_max * height, 3.4, c)
            svg.text(right, top + 12 + 14 * n, label, size=10, anchor="end", colour=c)
        svg.text(left, top - 2, unit, size=11, colour="#222")
        svg.text(right, bottom + 30, "metrics", size=10, anchor="end", colour="#444")
        svg.y = bottom + 50
    footer(svg, sources)
    svg.y += 6
    return svg.render()


def cmd_plot(args):
    results = load_results(args.results)
    os.makedirs(args.out, exist_ok=True)
    wrote = 0
    for name, spec in PLOTS.items():
        figures = [spec["figure"]] if spec.get("kind") == "line" else \
            sorted({r[0] for p in spec["panels"] for r in p["rows"]})
        sources = []
        for f in figures:
            d = results.get(f)
            if d:
                sources.append("%s: %s. Machine: %s" % (f, d.get("source", ""), d.get("machine", "")))
        svg = line_plot(spec, results, sources) if spec.get("kind") == "line" else bar_plot(spec, results, sources)
        path = os.path.join(args.out, name + ".svg")
        if svg is None:
            print("no results for %s: %s not drawn" % (", ".join(figures), path), file=sys.stderr)
            continue
        with open(path, "w") as f:
            f.write(svg)
        wrote += 1
        print("wrote " + path, file=sys.stderr)
    return 0 if wrote else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    r = sub.add_parser("run")
    r.add_argument("figure")
    r.add_argument("--runs", type=int, default=5)
    r.add_argument("--anchor", help="a commit to run alternately, built from a detached worktree")
    r.add_argument("--sweep", help="engine-sweep-metrics: metric counts, comma-separated")
    r.add_argument("--set", action="append", help="KEY=VALUE for a {KEY} of the command (e.g. seconds=600)")
    r.add_argument("--results", default=os.path.join(HERE, "results"))
    s = sub.add_parser("summary")
    s.add_argument("--results", default=os.path.join(HERE, "results"))
    g = sub.add_parser("plot")
    g.add_argument("--results", default=os.path.join(HERE, "results"))
    g.add_argument("--out", default=HERE)
    args = p.parse_args()
    return {"list": cmd_list, "run": cmd_run, "summary": cmd_summary, "plot": cmd_plot}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
