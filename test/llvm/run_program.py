#!/usr/bin/env python3
"""Runs `weir analyze` on one test program's IR on every backend and checks
its findings against the program's `// expect-finding` lines
(test/llvm/programs/README.md).

usage: run_program.py WEIR SOURCE LL [LL...] [--backends B,B,...]
  SOURCE is the annotated C/C++ file (for the expected lines and options);
  each LL is its IR (as compiled, and after mem2reg for `// mem2reg` files).
Prints what differs and exits 1 on any difference, 0 when every form on
every backend reports exactly the expected lines.
"""
import json
import os
import re
import subprocess
import sys


def expectations(source):
    args, expected = [], set()
    with open(source, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = re.match(r"\s*//\s*weir-args:\s*(.*)", line)
            if m:
                args += m.group(1).split()
            if "// expect-finding" in line:
                expected.add(n)
    return args, expected


def main():
    argv = sys.argv[1:]
    backends = ["tabulation", "cpu-ref", "cpu"]
    if "--backends" in argv:
        i = argv.index("--backends")
        backends = argv[i + 1].split(",")
        del argv[i:i + 2]
    weir, source, lls = argv[0], argv[1], argv[2:]
    analysis = "uninit" if os.sep + "uninit" + os.sep in source or os.path.basename(os.path.dirname(source)) == "uninit" else "taint"
    args, expected = expectations(source)
    base = os.path.basename(source)
    failed = False
    for ll in lls:
        results = {}
        for b in backends:
            cmd = [weir, "analyze", ll, "--analysis", analysis, "--backend", b, "--format", "json"] + args
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                print(f"FAIL {base} [{os.path.basename(ll)}, {b}]: exit {p.returncode}\n{p.stderr}")
                failed = True
                continue
            out = json.loads(p.stdout)
            found = {(f["line"]) for f in out["findings"] if os.path.basename(f["file"]) == base}
            other = [f for f in out["findings"] if os.path.basename(f["file"]) != base]
            results[b] = (found, out["findings"])
            missing, extra = expected - found, found - expected
            if missing or extra or other:
                failed = True
                print(f"FAIL {base} [{os.path.basename(ll)}, {b}]: missing lines {sorted(missing)}, "
                      f"unexpected lines {sorted(extra)}" + (f", findings in other files {other}" if other else ""))
                for f in out["findings"]:
                    if f["line"] in extra:
                        print(f"  unexpected: {f['function']}:{f['line']}:{f['column']}: {f['message']}")
        full = {b: r[1] for b, r in results.items()}
        if len({json.dumps(v, sort_keys=True) for v in full.values()}) > 1:
            failed = True
            print(f"FAIL {base} [{os.path.basename(ll)}]: backends disagree: {full}")
    if not failed:
        print(f"ok {base}: lines {sorted(expected)} on {', '.join(backends)} ({len(lls)} form(s))")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
