#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Renders the benchmark JSON logs into SVG charts with gnuplot (Debian: gnuplot-nox).

Usage: scripts/plot_benchmarks.py [--competitive FILE] [--mccc FILE] [--out DIR]

Without file arguments the newest bench/results/competitive-*.json and
bench/results/mccc_benchmark-*.json are used (the raw files of a run, named
<program>-<commit>-<machine>-<compiler>.json; newest by the start time each records). Charts are written to DIR
(default docs/benchmarks/, where docs/benchmarks.md shows them). Needs only the Python standard
library and the gnuplot binary.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS_DIR = os.path.join(ROOT, "bench", "results")
CHART_DIR = os.path.join(ROOT, "docs", "benchmarks")


def started(path):
    """The run's start time as recorded in its JSON ("" when unreadable): file names carry the
    commit, not the time, so they do not sort by age."""
    try:
        with open(path) as f:
            return json.load(f).get("run", {}).get("started_utc", "")
    except (OSError, ValueError):
        return ""


def newest(pattern):
    files = glob.glob(os.path.join(RESULTS_DIR, pattern))
    return max(files, key=lambda path: (started(path), path)) if files else None


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def gnuplot(script, out_path):
    proc = subprocess.run(["gnuplot"], input=script.encode(), capture_output=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr.decode())
        raise SystemExit("gnuplot failed for " + out_path)
    print("wrote", os.path.relpath(out_path, os.getcwd()))


def bar_chart(out_path, title, ylabel, rows, log_y=False, second=None):
    """rows: [(label, value, low, high)]; second: optional label of a second value column
    (rows are then (label, v1, lo1, hi1, v2)). Error bars show min/max over the rounds."""
    data = "\n".join(
        " ".join([quote(r[0])] + ["%g" % x for x in r[1:]]) for r in rows)
    height = 520
    width = max(900, 60 * len(rows) + 200)
    script = [
        "set terminal svg size %d,%d dynamic font 'sans,11' background rgb 'white'" % (width, height),
        # Labels are names such as spsc_queue or try_enqueue_bulk: no '_' subscripts.
        "set termoption noenhanced",
        "set output %s" % quote(out_path),
        "set title %s" % quote(title),
        "set ylabel %s" % quote(ylabel),
        "set style data histograms",
        "set style histogram errorbars gap 1 lw 1",
        "set style fill solid 0.8 border -1",
        "set xtics rotate by -35 left nomirror",
        "set grid ytics",
        "set bmargin 14",
        "set rmargin 12",
        "set key top right",
        "set yrange [0:*]" if not log_y else "set logscale y",
        "$data << EOD",
        data,
        "EOD",
    ]
    if second:
        script.append("plot $data using 2:3:4:xtic(1) title 'median (min..max)' lc rgb '#3465a4', "
                      "$data using 5:5:5 title %s lc rgb '#f57900'" % quote(second))
    else:
        script.append("plot $data using 2:3:4:xtic(1) title 'median (min..max)' lc rgb '#3465a4'")
    gnuplot("\n".join(script) + "\n", out_path)


def line_chart(out_path, title, xlabel, ylabel, series, logscale_x=False):
    """series: {name: [(x, y), ...]}"""
    blocks = []
    plots = []
    for i, (name, points) in enumerate(series.items()):
        blocks.append("$s%d << EOD\n%s\nEOD" % (i, "\n".join("%g %g" % p for p in points)))
        plots.append("$s%d using 1:2 with linespoints lw 2 title %s" % (i, quote(name)))
    script = [
        "set terminal svg size 900,520 dynamic font 'sans,11' background rgb 'white'",
        "set termoption noenhanced",
        "set output %s" % quote(out_path),
        "set title %s" % quote(title),
        "set xlabel %s" % quote(xlabel),
        "set ylabel %s" % quote(ylabel),
        "set grid",
        "set key outside right top",
        "set yrange [0:*]",
    ]
    if logscale_x:
        script.append("set logscale x 2")
    script += blocks
    script.append("plot " + ", ".join(plots))
    gnuplot("\n".join(script) + "\n", out_path)


# mccc rows drawn on the by-size line chart.
BY_SIZE_MCCC_ROWS = ("mccc MPSC FULL callback", "mccc MPSC FULL callback PublishFast",
                     "mccc SPSC FULL callback", "mccc SPSC FULL callback PublishFast")


def competitive_charts(path, out_dir):
    with open(path) as f:
        doc = json.load(f)
    res = doc["results"]
    e2e = [r for r in res["e2e"] if r["producers"] == 1]
    rows = [(r["contender"], r["msgs_per_sec"]["median"] / 1e6, r["msgs_per_sec"]["min"] / 1e6,
             r["msgs_per_sec"]["max"] / 1e6)
            for r in e2e if r["payload_bytes"] == 24 and r["kind"] != "peer-sync"]
    rows.sort(key=lambda r: -r[1])
    bar_chart(os.path.join(out_dir, "competitive_e2e_24b.svg"),
              "E2E throughput, 24-byte payload, 1 producer -> 1 consumer (cores 0 -> 1)",
              "M msg/s", rows)
    sync = [(r["contender"], r["msgs_per_sec"]["median"] / 1e6, r["msgs_per_sec"]["min"] / 1e6,
             r["msgs_per_sec"]["max"] / 1e6)
            for r in e2e if r["payload_bytes"] == 24 and r["kind"] == "peer-sync"]
    if sync:
        bar_chart(os.path.join(out_dir, "competitive_sync_24b.svg"),
                  "Synchronous signal/slot baselines (same thread, no queue), 24-byte payload",
                  "M msg/s", sync)
    # One line per contender would be 30 entries, and the key would squeeze the plot to
    # nothing: the main mccc rows, the ideal ring, the batch rows and the peer queues that
    # reach 5 M msg/s at 24 B (the rest are in the bar chart and the tables).
    at24 = {r["contender"]: r["msgs_per_sec"]["median"] / 1e6
            for r in e2e if r["payload_bytes"] == 24}
    def on_size_chart(r):
        if r["kind"] in ("mccc-mpsc", "mccc-spsc"):
            return r["contender"] in BY_SIZE_MCCC_ROWS
        if r["kind"] == "limit":
            return r["contender"].startswith("ideal")
        if r["kind"] in ("peer-mpsc", "peer-spsc"):
            return at24.get(r["contender"], 0.0) >= 5.0
        return r["kind"] == "batch"
    series = {}
    for r in e2e:
        if on_size_chart(r):
            series.setdefault(r["contender"], []).append(
                (r["payload_bytes"], r["msgs_per_sec"]["median"] / 1e6))
    series = {k: sorted(v) for k, v in series.items() if len(v) > 1}
    if series:
        line_chart(os.path.join(out_dir, "competitive_e2e_by_size.svg"),
                   "E2E throughput by payload size (medians)", "payload bytes", "M msg/s",
                   series, logscale_x=True)
    pub = [(r["contender"], r["ns_per_msg"]["median"], r["ns_per_msg"]["min"],
            r["ns_per_msg"]["max"]) for r in res["publish_only"]]
    pub.sort(key=lambda r: r[1])
    bar_chart(os.path.join(out_dir, "competitive_publish_only.svg"),
              "Publish-only: 100,000 x 24 B into an empty queue (lower is better)", "ns / message",
              pub)
    lat = [(r["contender"], r["p50_ns"]["median"], r["p50_ns"]["min"], r["p50_ns"]["max"],
            r["p99_ns"]["median"]) for r in res["latency"]]
    lat.sort(key=lambda r: r[1])
    bar_chart(os.path.join(out_dir, "competitive_latency.svg"),
              "Latency publish -> delivery, one in flight (one-way core handoff %.0f ns)"
              % res["one_way_handoff_ns"]["median"], "ns (log)", lat, log_y=True,
              second="P99 (median over rounds)")


# The performance modes as the documentation spells them; older result files recorded the
# original MCCC's upper-case names.
MODE_NAMES = {"FULL_FEATURED": "kFullFeatured", "NO_STATS": "kNoStats", "BARE_METAL": "kBareMetal"}


def mode_label(mode):
    for old, new in MODE_NAMES.items():
        mode = mode.replace(old, new)
    return mode


def mccc_charts(path, out_dir):
    with open(path) as f:
        doc = json.load(f)
    res = doc["results"]
    rows = [(mode_label(r["mode"]), r["msgs_per_sec"]["median"] / 1e6, r["msgs_per_sec"]["min"] / 1e6,
             r["msgs_per_sec"]["max"] / 1e6) for r in res["modes"]]
    bar_chart(os.path.join(out_dir, "mccc_modes.svg"),
              "mccc modes and dispatch, E2E 24-byte payload", "M msg/s", rows)
    sus = res["sustained"]
    interval = sus["interval_s"]
    points = [((i + 1) * interval, v / 1e6) for i, v in enumerate(sus["processed_per_sec_series"])]
    line_chart(os.path.join(out_dir, "mccc_sustained.svg"),
               "Sustained run: messages processed per second", "seconds", "M msg/s",
               {"processed": points})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--competitive", default=newest("competitive-*.json"))
    parser.add_argument("--mccc", default=newest("mccc_benchmark-*.json"))
    parser.add_argument("--out", default=CHART_DIR)
    args = parser.parse_args()
    if shutil.which("gnuplot") is None:
        raise SystemExit("gnuplot not found (Debian: apt-get install gnuplot-nox)")
    os.makedirs(args.out, exist_ok=True)
    if args.competitive:
        competitive_charts(args.competitive, args.out)
    if args.mccc:
        mccc_charts(args.mccc, args.out)
    if not args.competitive and not args.mccc:
        raise SystemExit("no benchmark JSON found; run the benchmarks with --json first")


if __name__ == "__main__":
    main()
