#!/usr/bin/env python3
"""The figures of run-storm.sh runs (docs/benchmarks.md, "The reconnect storm alone"): quiet and storm p99 of
the attack's poller and of curl, the load over the storm, the child's comparison, the handshakes answered."""
import json, os, sys, statistics
def p99(xs):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(len(xs) * 0.99))] if xs else float('nan')
for tag in sys.argv[1:]:
    d = os.environ.get('ATTACK_RUNS', '/tmp/strata-attack/runs') + '/' + tag
    r = json.load(open(d + '/run.json'))
    lines = [l.split(' ', 1) for l in open(d + '/attack.out') if l[0].isdigit()]
    tq = next(float(t) for t, l in lines if l.startswith('poller quiet'))
    ts = next(float(t) for t, l in lines if l.startswith('reconnect storm'))
    curl = [l.split() for l in open(d + '/curl') if len(l.split()) == 3]
    cq = [float(x[2]) * 1000 for x in curl if tq - 20 <= float(x[0]) < tq]
    cs = [float(x[2]) * 1000 for x in curl if tq <= float(x[0]) < ts]
    cfail = sum(1 for x in curl if tq - 20 <= float(x[0]) < ts and x[1] != '200')
    s = [l.split() for l in open(d + '/samples') if len(l.split()) == 4]
    loads = [float(x[3]) for x in s if tq <= int(x[0]) <= ts]
    st = r['attacks'][-1]; q = r['pollerQuiet']; po = st['poller']
    c = json.load(open(d + '/compare.json'))
    acc = sum(n for k, n in st['replies'].items() if k.startswith('Hit me baby'))
    print(f"== {tag}: storm {ts - tq:.0f} s, load median {statistics.median(loads):.1f} ({min(loads):.1f}-{max(loads):.1f})")
    print(f"  child: compared {c['compared']} missing {c['missing']} different {c['different']} {c['samples'][:3]}")
    print(f"  attack poller: quiet p99 {q['p99Millis']:.1f} storm p99 {po['p99Millis']:.1f} ratio {po['p99RatioToQuiet']:.2f} failed {po['failed']}/{po['polls']}")
    print(f"  curl: quiet p99 {p99(cq):.1f} ({len(cq)}) storm p99 {p99(cs):.1f} ({len(cs)}) ratio {p99(cs)/p99(cq):.2f}; non-200 {cfail}")
    print(f"  storm: {st['attack']} launched {st['launched']} accepted {acc} replies {st['replies']}")
    print(f"  fds {open(d + '/fds-before').read().strip()} -> {open(d + '/fds-after').read().strip()}")
