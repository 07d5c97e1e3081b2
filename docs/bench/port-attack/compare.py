#!/usr/bin/env python3
"""Every second of every per-second chart of a Netdata child over (after, before], as the child answers it,
compared with what the Strata parent answers for that host. Prints JSON: compared, missing, different."""
import json, sys, urllib.request, urllib.parse
child, parent, host, after, before = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
def get(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        return None
charts = get(child + "/api/v1/charts")["charts"]
compared = missing = different = charts_n = 0
samples = []
q = "&after=%d&before=%d&points=%d&group=average&format=json&options=seconds%%7Cunaligned%%7Cnonzero" % (after, before, before - after)
for cid, c in charts.items():
    if c.get("update_every") != 1:
        continue
    enc = urllib.parse.quote(cid, safe="")
    mine = get(child + "/api/v1/data?chart=" + enc + q)
    if mine is None:
        continue
    theirs = get(parent + "/host/" + host + "/api/v1/data?chart=" + enc + q)
    charts_n += 1
    prow = {}
    plabels = []
    if theirs is not None:
        plabels = theirs["labels"]
        for row in theirs["data"]:
            prow[row[0]] = row
    for col, name in enumerate(mine["labels"]):
        if col == 0:
            continue
        pcol = plabels.index(name) if name in plabels else -1
        for row in mine["data"]:
            v = row[col]
            if v is None:
                continue
            compared += 1
            pr = prow.get(row[0])
            pv = pr[pcol] if (pr is not None and pcol >= 0) else None
            if pv is None:
                missing += 1
                if len(samples) < 10: samples.append("%s/%s @%d: parent has none" % (cid, name, row[0]))
            elif abs(pv - v) > 1e-6 * max(1.0, abs(v)):
                different += 1
                if len(samples) < 10: samples.append("%s/%s @%d: child %r parent %r" % (cid, name, row[0], v, pv))
print(json.dumps({"after": after, "before": before, "charts": charts_n, "compared": compared, "missing": missing,
                  "different": different, "samples": samples}))
