#!/usr/bin/env python3
"""Runs `weir analyze` on one test program's IR on every backend and checks
its findings against the program's `// expect-finding` lines, or for a
program under lca/ its values against the `// expect: VAR=VALUE ...` lines
(test/llvm/programs/README.md).

usage: run_program.py WEIR SOURCE LL [LL...] [--backends B,B,...]
  SOURCE is the annotated C/C++ file (for the expected lines and options);
  each LL is its IR (as compiled, and after mem2reg for `// mem2reg` files).
Prints what differs and exits 1 on any difference, 0 when every form on
every backend reports exactly the expected lines. `cuda`, when listed, is
left out with a SKIPPED line where the machine has no GPU (exit 4).
"""
import json
import os
import re
import subprocess
import sys


def expectations(source):
    """Runner arguments, the points-to engines to run under (None: the
    default), and the expected findings' lines (lca: (line, variable, value)
    triples)."""
    args, engines, expected = [], [None], set()
    with open(source, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = re.match(r"\s*//\s*weir-args:\s*(.*)", line)
            if m:  # `{dir}` stands for the source's directory
                here = os.path.dirname(os.path.abspath(source))
                args += [a.replace("{dir}", here) for a in m.group(1).split()]
            m = re.match(r"\s*//\s*points-to:\s*(.*)", line)
            if m:
                engines = m.group(1).split()
            if "// expect-finding" in line:
                expected.add(n)
            m = re.search(r"//\s*expect:(.*)$", line)
            if m:
                for pair in m.group(1).split():
                    var, value = pair.split("=")
                    expected.add((n, var, int(value)))
    return args, engines, expected


def analysis_of(source):
    d = os.path.basename(os.path.dirname(source))
    return d if d in ("uninit", "lca") else "taint"


def main():
    argv = sys.argv[1:]
    backends = ["tabulation", "cpu-ref", "cpu"]
    if "--backends" in argv:
        i = argv.index("--backends")
        backends = argv[i + 1].split(",")
        del argv[i:i + 2]
    weir, source, lls = argv[0], argv[1], argv[2:]
    analysis = analysis_of(source)
    args, engines, expected = expectations(source)
    base = os.path.basename(source)
    failed = False
    skipped = set()
    for ll, engine in [(ll, e) for ll in lls for e in engines]:
        results = {}
        where = os.path.basename(ll) + (f", --points-to {engine}" if engine else "")
        for b in backends:
            cmd = [weir, "analyze", ll, "--analysis", analysis, "--backend", b, "--format", "json"] + args
            if engine:
                cmd += ["--points-to", engine]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if b == "cuda" and p.returncode == 4 and "no CUDA device" in p.stderr:
                skipped.add(b)  # the build has cuda but this machine has no GPU: say so, never pass for it
                continue
            if p.returncode != 0:
                print(f"FAIL {base} [{where}, {b}]: exit {p.returncode}\n{p.stderr}")
                failed = True
                continue
            out = json.loads(p.stdout)
            items = out["values"] if analysis == "lca" else out["findings"]
            if analysis == "lca":
                found = {(v["line"], v["variable"], v["value"]) for v in items if os.path.basename(v["file"]) == base}
            else:
                found = {(f["line"]) for f in items if os.path.basename(f["file"]) == base}
            other = [f for f in items if os.path.basename(f["file"]) != base]
            results[b] = (found, items)
            missing, extra = expected - found, found - expected
            if missing or extra or other:
                failed = True
                print(f"FAIL {base} [{where}, {b}]: missing {sorted(missing)}, "
                      f"unexpected {sorted(extra)}" + (f", results in other files {other}" if other else ""))
                for f in items:
                    if analysis != "lca" and f["line"] in extra:
                        print(f"  unexpected: {f['function']}:{f['line']}:{f['column']}: {f['message']}")
        full = {b: r[1] for b, r in results.items()}
        if len({json.dumps(v, sort_keys=True) for v in full.values()}) > 1:
            failed = True
            print(f"FAIL {base} [{where}]: backends disagree: {full}")
    ran = [b for b in backends if b not in skipped]
    if not failed:
        print(f"ok {base}: {sorted(expected)} on {', '.join(ran)} ({len(lls)} form(s), "
              f"points-to {', '.join(e or 'default' for e in engines)})")
    for b in sorted(skipped):
        print(f"SKIPPED {base} on {b}: no CUDA device on this machine (the build has the cuda backend)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
