#!/usr/bin/env python3
"""The whole `weir solve` process, phase by phase, against its tabulation backend.

For each size, a generated taint problem (bench_ifds --write) is solved by
`weir solve FILE --backend B --stats` for B in tabulation and cpu, taken in
turn for --rounds rounds (fresh processes; stdout to /dev/null). Each run
records its wall time and peak RSS (the child's ru_maxrss from wait4) and
the phases weir prints with --stats (t_load, t_layout, t_upload, t_solve,
t_extract, t_output). Writes a CSV, prints the best run of each backend per
size with the ratios, and draws the phases when matplotlib is there.

usage: whole_process.py WEIR BENCH_IFDS [--sizes N,N,...] [--rounds R] [--csv PATH]
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile
import time

PHASES = ["t_load", "t_layout", "t_upload", "t_solve", "t_extract", "t_output"]
BACKENDS = ["tabulation", "cpu"]


def run_once(weir, path, backend):
    """Runs weir once; returns (wall seconds, peak RSS MiB, {phase: seconds})."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([weir, "solve", path, "--backend", backend, "--stats"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"whole_process: weir failed on {path} ({backend}), status {proc.returncode}:\n{err}")
    stats = {k: float(v) for k, v in re.findall(r"(t_[a-z]+)=([0-9.e+-]+)", err)}
    return wall, usage.ru_maxrss / 1024.0, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weir")
    ap.add_argument("bench_ifds")
    ap.add_argument("--sizes", default="2000,8000,32000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--csv", default="bench/out/cli.csv")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",") if s]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = os.path.join(tmp, f"taint_{n}.ifds")
            subprocess.run([a.bench_ifds, "--write", path, "--procs", str(n)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            mb = os.path.getsize(path) / 1e6
            for r in range(a.rounds):
                for b in BACKENDS:
                    wall, rss, st = run_once(a.weir, path, b)
                    rows.append({"procs": n, "MB": round(mb, 2), "backend": b, "round": r + 1,
                                 "wall_s": round(wall, 4), "peak_rss_mib": round(rss, 1),
                                 **{p: st.get(p, 0.0) for p in PHASES}})
            os.remove(path)
    os.makedirs(os.path.dirname(a.csv) or ".", exist_ok=True)
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)

    best = {}
    for r in rows:
        k = (r["procs"], r["backend"])
        if k not in best or r["wall_s"] < best[k]["wall_s"]:
            best[k] = r
    print(f"best of {a.rounds} fresh processes per backend and size (seconds; RSS in MiB)")
    head = f"{'procs':>6} {'MB':>6} {'backend':>10} {'wall':>7} {'RSS':>7} " + " ".join(f"{p[2:]:>8}" for p in PHASES)
    print(head)
    for n in sizes:
        for b in BACKENDS:
            r = best[(n, b)]
            print(f"{n:>6} {r['MB']:>6} {b:>10} {r['wall_s']:>7.3f} {r['peak_rss_mib']:>7.1f} " +
                  " ".join(f"{r[p]:>8.4f}" for p in PHASES))
        t, c = best[(n, "tabulation")], best[(n, "cpu")]
        load = f"; load {c['MB'] / c['t_load']:.0f} MB/s" if c["t_load"] > 0 else ""
        print(f"{'':>6} whole process: cpu {t['wall_s'] / c['wall_s']:.2f}x tabulation; "
              f"peak RSS cpu / tabulation {c['peak_rss_mib'] / t['peak_rss_mib']:.2f}{load}")
    print(f"CSV: {a.csv}")
    plot(sizes, best, a.csv[:-4] + ".png" if a.csv.endswith(".csv") else a.csv + ".png")


def plot(sizes, best, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("whole_process: no matplotlib, so no plot (apt-get install python3-matplotlib)")
        return
    fig, axes = plt.subplots(1, len(sizes), figsize=(3.2 * len(sizes), 4), squeeze=False)
    for ax, n in zip(axes[0], sizes):
        bottom = [0.0, 0.0]
        for p in PHASES:
            vals = [best[(n, b)][p] for b in BACKENDS]
            ax.bar(BACKENDS, vals, bottom=bottom, label=p[2:])
            bottom = [x + y for x, y in zip(bottom, vals)]
        ax.plot(BACKENDS, [best[(n, b)]["wall_s"] for b in BACKENDS], "k_", markersize=30, label="whole process")
        ax.set_title(f"{n} procedures")
        ax.set_ylabel("seconds")
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"plot: {png}")


if __name__ == "__main__":
    main()
