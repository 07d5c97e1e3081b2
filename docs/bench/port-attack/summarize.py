#!/usr/bin/env python3
"""The figures of run-full.sh runs (docs/benchmarks.md, "At full size, against a node process"): summarize.py TAG..."""
import json, sys, statistics, os
for tag in sys.argv[1:]:
    d = os.environ.get('ATTACK_RUNS', '/tmp/strata-attack/runs') + '/' + tag
    r = json.load(open(d + '/run.json'))
    q = r['pollerQuiet']; a = r['pollerDuringAttacks']
    s = [l.split() for l in open(d + '/samples') if len(l.split()) == 4]
    start, end = map(int, open(d + '/window').read().split())
    s = [x for x in s if start <= int(x[0]) <= end]
    rss = max(int(x[1]) for x in s) / 1024
    loads = [float(x[3]) for x in s]
    fb = open(d + '/fds-before').read().strip(); fa = open(d + '/fds-after').read().strip()
    c = json.load(open(d + '/compare.json')) if os.path.exists(d + '/compare.json') and os.path.getsize(d + '/compare.json') else {}
    print(f"== {tag}: window {start}-{end} ({end-start} s) load median {statistics.median(loads):.1f} ({min(loads):.1f}-{max(loads):.1f})")
    print(f"  child: {c.get('charts')} charts, compared {c.get('compared')}, missing {c.get('missing')}, different {c.get('different')} {c.get('samples', [])[:3]}")
    print(f"  poll quiet p50 {q['p50Millis']:.1f} p99 {q['p99Millis']:.1f} ({q['polls']} polls, {q['failed']} failed); attacks p50 {a['p50Millis']:.1f} p99 {a['p99Millis']:.1f} ratio {a['p99RatioToQuiet']:.2f}; polls failed {r['pollsFailed']} of {a['polls']}")
    for p in r['attacks']:
        po = p.get('poller', {})
        print(f"  {p['attack']:<28} launched {p['launched']} connected {p['connected']} closedByServer {p['closedByServer']} open {p['stillOpen']} median {p['secondsToCloseMedian']:.2f} max {p['secondsToCloseMax']:.2f} replies {p['replies']} | poll p99 {po.get('p99Millis', 0):.1f} ({po.get('p99RatioToQuiet', 0):.2f}x) failed {po.get('failed')}/{po.get('polls')}")
    print(f"  RSS peak {rss:.0f} MiB (bound 3072); fds {fb} -> {fa}")
