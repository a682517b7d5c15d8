#!/usr/bin/env python3
"""The IDE benchmark (bench/run ide): the resident IDE solver on `cpu` against
the host tabulation solver on generated linear-constant problems
(bench/ide/bench_ide.cpp), each solve in its own process.

Per size: jump functions, the solvers' times, the throughput ratio (jump
functions per second of resident layout + create + solve, against
tabulation's solve), and peak RSS, whole and above the problem alone
(`--solver none`). Checks that both give the same solution (hash). Writes a
CSV (default bench/out/ide.csv) and prints a Markdown table.
"""
import argparse
import csv
import os
import subprocess
import sys


def run(exe, procs, solver, threads, seed):
    p = subprocess.Popen([exe, "--procs", str(procs), "--solver", solver, "--threads", str(threads), "--seed", str(seed)],
                         stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"bench_ide --procs {procs} --solver {solver} failed (status {status})")
    fields = dict(kv.split("=", 1) for kv in out.split())
    fields["peak_mib"] = ru.ru_maxrss / 1024.0
    return fields


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("--sizes", default="1000,2000,5000,10000,20000")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--csv", default="bench/out/ide.csv")
    a = ap.parse_args()
    rows = []
    for n in [int(s) for s in a.sizes.split(",")]:
        base = run(a.exe, n, "none", a.threads, a.seed)
        tab = run(a.exe, n, "tabulation", a.threads, a.seed)
        res = run(a.exe, n, "cpu", a.threads, a.seed)
        if tab["hash"] != res["hash"] or tab["jump_functions"] != res["jump_functions"]:
            sys.exit(f"{n} procedures: the resident solution differs from tabulation's")
        jf = int(tab["jump_functions"])
        t_tab = float(tab["t_solve"])
        t_res = float(res["t_layout"]) + float(res["t_create"]) + float(res["t_solve"])
        grow_tab = tab["peak_mib"] - base["peak_mib"]
        grow_res = res["peak_mib"] - base["peak_mib"]
        rows.append({
            "procs": n, "jump_functions": jf,
            "tabulation_s": t_tab, "cpu_s": t_res, "cpu_solve_s": float(res["t_solve"]),
            "cpu_reach_s": float(res["t_reach"]), "cpu_ide_op_s": float(res["t_ide_op"]),
            "speedup": t_tab / t_res, "speedup_solve": t_tab / float(res["t_solve"]),
            "tabulation_peak_mib": tab["peak_mib"], "cpu_peak_mib": res["peak_mib"], "problem_peak_mib": base["peak_mib"],
            "memory_ratio": grow_res / grow_tab if grow_tab > 0 else float("nan"),
        })
        r = rows[-1]
        print(f"{n} procs: {jf} jump functions, tabulation {t_tab:.2f} s, cpu {t_res:.3f} s "
              f"({r['speedup']:.1f}x; solve only {r['speedup_solve']:.1f}x), "
              f"peak {tab['peak_mib']:.0f} / {res['peak_mib']:.0f} MiB (problem alone {base['peak_mib']:.0f}; "
              f"growth ratio {r['memory_ratio']:.2f})", flush=True)
    os.makedirs(os.path.dirname(a.csv) or ".", exist_ok=True)
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print()
    print("| procedures | jump functions | tabulation solve (s) | cpu layout+create+solve (s) | ratio | cpu solve only (s): reach + IDE op | peak RSS tabulation / cpu / problem alone (MiB) | memory above the problem, cpu / tabulation |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['procs']} | {r['jump_functions']:,} | {r['tabulation_s']:.2f} | {r['cpu_s']:.3f} | {r['speedup']:.1f}x | "
              f"{r['cpu_solve_s']:.3f}: {r['cpu_reach_s']:.3f} + {r['cpu_ide_op_s']:.3f} | "
              f"{r['tabulation_peak_mib']:.0f} / {r['cpu_peak_mib']:.0f} / {r['problem_peak_mib']:.0f} | {r['memory_ratio']:.2f} |")
    print(f"\nCSV: {a.csv}")


if __name__ == "__main__":
    main()
