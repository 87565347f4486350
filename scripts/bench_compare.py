#!/usr/bin/env python3
"""Prints, per pipeline and size, Depthbook's total median, the fastest peer's, and the ratio.
Usage: bench_compare.py RESULTS.jsonl"""
import json
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
ours, peers = {}, {}
for r in rows:
    if r.get("stage") != "total":
        continue
    key = (r["pipeline"].split(":")[0], r["size"])
    # P2 counts only true-disc variants (ours is a true disc): skip the box approximations.
    if r["pipeline"].startswith("P2") and "disc" not in r["pipeline"]:
        continue
    if r["lib"].startswith("depthbook"):
        if key not in ours or r["ms_median"] < ours[key]["ms_median"]:
            ours[key] = r
    elif key not in peers or r["ms_median"] < peers[key]["ms_median"]:
        peers[key] = r

print(f"{'pipeline':8} {'size':8} {'depthbook ms':>13} {'fastest peer':>28} {'peer ms':>9} {'ratio':>6}")
for key in sorted(set(ours) | set(peers)):
    o, p = ours.get(key), peers.get(key)
    om = f"{o['ms_median']:.1f}" if o else "-"
    pn = f"{p['lib']} t{p['threads']} {p['pipeline']}" if p else "-"
    pm = f"{p['ms_median']:.1f}" if p else "-"
    ratio = f"{o['ms_median'] / p['ms_median']:.2f}" if o and p else "-"
    print(f"{key[0]:8} {key[1]:8} {om:>13} {pn:>28} {pm:>9} {ratio:>6}")

# Work no peer does (the learned person matte, a background job per photo): Depthbook's figure alone.
for r in rows:
    if r["lib"].startswith("depthbook") and r["pipeline"] == "matte":
        print(f"{'matte':8} {r['size']:8} {r['ms_median']:13.1f} {'(no peer: ' + r['stage'] + ')':>28}")
