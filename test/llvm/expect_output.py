#!/usr/bin/env python3
"""Runs a command and checks that its stdout has a line matching each
--expect regular expression and that it exits 0.

usage: expect_output.py --expect REGEX [--expect REGEX ...] -- COMMAND [ARG...]
"""
import re
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    sep = argv.index("--")
    patterns = [argv[i + 1] for i in range(0, sep, 2) if argv[i] == "--expect"]
    p = subprocess.run(argv[sep + 1:], capture_output=True, text=True)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    ok = p.returncode == 0
    if not ok:
        print(f"FAIL: exit status {p.returncode}")
    lines = p.stdout.splitlines()
    for pat in patterns:
        if not any(re.search(pat, l) for l in lines):
            print(f"FAIL: no line matches {pat!r}")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
