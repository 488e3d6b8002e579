#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares two builds of bench/competitive run alternately (an A/B of one change).

    scripts/compare_builds.py DIR

DIR holds the --json outputs of the runs, named <n>_base.json (the build before the change)
and <n>_new.json (the build with it). Each run is classified by its own ping-pong median (the
one-way core-to-core handoff it measured): near below 120 ns, far above 180 ns, anything else
mixed (left out). Within each placement, per mccc row: E2E throughput as the median of all
rounds pooled per build, publish-only as the median of the runs' medians; then the ratio of the
new build to the base build (> 1 = faster) and the median ratio over the rows.
"""
import glob
import json
import os
import re
import statistics
import sys


def placement(handoff_ns):
    if handoff_ns < 120.0:
        return "near"
    if handoff_ns > 180.0:
        return "far"
    return "mixed"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = []
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*_*.json"))):
        match = re.match(r".*?(\d+)_(base|new)\.json$", path)
        if not match:
            continue
        results = json.load(open(path))["results"]
        handoff = results["one_way_handoff_ns"]["median"]
        runs.append((int(match.group(1)), match.group(2), handoff, results))
    for number, build, handoff, _ in runs:
        print(f"run {number} {build:<4} handoff {handoff:.0f} ns ({placement(handoff)})")
    for where in ("near", "far"):
        chosen = [r for r in runs if placement(r[2]) == where]
        base_runs = sum(1 for r in chosen if r[1] == "base")
        new_runs = sum(1 for r in chosen if r[1] == "new")
        print(f"\n{where}: {base_runs} base runs, {new_runs} new runs")
        if base_runs == 0 or new_runs == 0:
            continue
        ratios = []
        keys = sorted({(e["contender"], e["payload_bytes"], e["producers"])
                       for r in chosen for e in r[3]["e2e"] if e["contender"].startswith("mccc")})
        print("  E2E throughput, M msg/s (median of pooled rounds): base, new, new/base")
        for key in keys:
            samples = {"base": [], "new": []}
            for r in chosen:
                for e in r[3]["e2e"]:
                    if (e["contender"], e["payload_bytes"], e["producers"]) == key:
                        samples[r[1]] += e["samples"]
            if samples["base"] and samples["new"]:
                base = statistics.median(samples["base"]) / 1e6
                new = statistics.median(samples["new"]) / 1e6
                ratios.append(new / base)
                print(f"    {key[0]:<45}{key[1]:>4} B {key[2]}p  {base:7.2f} {new:7.2f}  {new / base:.3f}")
        print(f"  E2E median new/base {statistics.median(ratios):.3f} "
              f"(rows {len(ratios)}, min {min(ratios):.3f}, max {max(ratios):.3f})")
        ratios = []
        names = sorted({e["contender"] for r in chosen for e in r[3]["publish_only"]
                        if e["contender"].startswith("mccc")})
        print("  Publish-only, ns/msg (median of run medians): base, new, base/new")
        for name in names:
            values = {"base": [], "new": []}
            for r in chosen:
                for e in r[3]["publish_only"]:
                    if e["contender"] == name:
                        values[r[1]].append(e["ns_per_msg"]["median"])
            if values["base"] and values["new"]:
                base = statistics.median(values["base"])
                new = statistics.median(values["new"])
                ratios.append(base / new)
                print(f"    {name:<45} {base:7.2f} {new:7.2f}  {base / new:.3f}")
        print(f"  Publish-only median base/new {statistics.median(ratios):.3f} "
              f"(rows {len(ratios)}, min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
