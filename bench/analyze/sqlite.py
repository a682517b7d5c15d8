#!/usr/bin/env python3
"""`weir analyze` on the SQLite amalgamation (issue 30), analysis by analysis, backend by backend.

The input is fetched by name at run time and never committed: the npm package
better-sqlite3@12.11.1 (`npm pack`, else the registry's tarball over HTTPS,
checked against the registry's sha512), whose deps/sqlite3/ holds the
amalgamation (sqlite3.c, sqlite3.h; SQLite 3.53.2). It goes to the cache
folder (default .cache/sqlite/ at the repository root, which .gitignore
ignores). sqlite3.c and our driver (bench/analyze/sqlite_driver.c: SQL from
argv, getenv or fgets into sqlite3_exec, rows through printf) are compiled
each with

    clang-14 -c -emit-llvm -g -O0 -fno-discard-value-names -Xclang -disable-O0-optnone
             -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION

(the .bc files are kept in the cache and reused while newer than their
sources and compiled with the same command) and linked by llvm-link-14 into
CACHE/sqlite.bc. Then, for each analysis (taint with --config libc, or the
file --taint-config names; uninit) and backend, a fresh process

    WEIR analyze CACHE/sqlite.bc --analysis A [--config libc] --backend B --format json --stats

(bench/analyze/sqlite_sql_injection.json is a configuration whose sinks SQLite
does reach: the SQL argument of sqlite3_exec and sqlite3_prepare_v2, with
argv, getenv and fgets as sources.)

runs under an address-space limit (RLIMIT_AS, --memory-limit, default 8G; not
applied to --backend cuda, whose driver reserves address space by the GPU's
size) and a timeout (--timeout, default 600 s). Recorded: wall seconds, peak
RSS (the child's ru_maxrss from wait4), how it ended, the fields of the
`weir: analysis=...` line of --stats and the number of findings in the JSON
(saved to OUT/analyze-A-B.json). A failed run (timeout, out of memory, a
signal, a non-zero exit) is recorded as such, with the tail of its stderr.
Prints a markdown table and writes a CSV (default bench/out/analyze.csv).

usage: sqlite.py [--weir PATH] [--backends B,B] [--analyses taint,uninit,lca] [--taint-config FILE]
                 [--timeout S] [--memory-limit SIZE] [--cache DIR] [--out DIR] [--csv PATH] [--prepare-only]
"""
import argparse
import base64
import csv
import hashlib
import io
import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PACKAGE, VERSION = "better-sqlite3", "12.11.1"
TARBALL = f"{PACKAGE}-{VERSION}.tgz"
REGISTRY = "https://registry.npmjs.org"
AMALGAMATION = ("sqlite3.c", "sqlite3.h")
DRIVER = os.path.join(ROOT, "bench", "analyze", "sqlite_driver.c")
CFLAGS = ["-c", "-emit-llvm", "-g", "-O0", "-fno-discard-value-names", "-Xclang", "-disable-O0-optnone",
          "-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION"]
STAT_FIELDS = ["functions", "instructions", "nodes", "facts", "rows", "path_edges", "jump_functions", "findings", "values"]
PHASES = ["t_load", "t_points_to", "t_construction", "t_layout", "t_solve", "t_report"]


def rel(path):
    """The path relative to the current folder when it is under it, else as given."""
    r = os.path.relpath(path)
    return path if r.startswith("..") else r


def log(msg):
    print(f"sqlite.py: {msg}", file=sys.stderr, flush=True)


def parse_size(text):
    """Bytes from '8G', '512M', '1024' (powers of 1024); 0 means no limit."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", text, re.I)
    if not m:
        raise argparse.ArgumentTypeError(f"bad size '{text}' (e.g. 8G, 512M, 0 for none)")
    return int(float(m.group(1)) * 1024 ** " KMGT".index((m.group(2) or " ").upper()))


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


# ---------------------------------------------------------------- the input

def fetch_tarball(cache):
    """CACHE/better-sqlite3-12.11.1.tgz, by `npm pack`, else over HTTPS (checked against the registry's sha512)."""
    path = os.path.join(cache, TARBALL)
    if os.path.exists(path):
        return path
    if shutil.which("npm"):
        log(f"npm pack {PACKAGE}@{VERSION} (into {rel(cache)})")
        r = subprocess.run(["npm", "pack", f"{PACKAGE}@{VERSION}", "--silent"], cwd=cache,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        if r.returncode == 0 and os.path.exists(path):
            return path
        log(f"npm pack failed ({r.returncode}): {r.stderr.decode(errors='replace').strip()[-500:]}; trying HTTPS")
    meta_url = f"{REGISTRY}/{PACKAGE}/{VERSION}"
    log(f"fetching {meta_url}")
    with urllib.request.urlopen(meta_url, timeout=60) as f:
        dist = json.load(f)["dist"]
    log(f"fetching {dist['tarball']}")
    with urllib.request.urlopen(dist["tarball"], timeout=300) as f:
        data = f.read()
    integrity = dist.get("integrity", "")
    if integrity.startswith("sha512-"):
        got = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
        if got != integrity:
            sys.exit(f"sqlite.py: {dist['tarball']}: sha512 mismatch ({got} != {integrity})")
    elif dist.get("shasum") and hashlib.sha1(data).hexdigest() != dist["shasum"]:
        sys.exit(f"sqlite.py: {dist['tarball']}: sha1 mismatch")
    with open(path + ".part", "wb") as f:
        f.write(data)
    os.replace(path + ".part", path)
    return path


def find_amalgamation(names_and_readers):
    """From (member name, reader) pairs of an archive, {sqlite3.c: bytes, sqlite3.h: bytes}: preferably
    from deps/sqlite3/, else from any folder, else from an archive nested inside (a .tar.gz or .zip of
    the amalgamation, as some releases of the package ship)."""
    members = list(names_and_readers)
    for prefer in ("deps/sqlite3/", ""):
        found = {}
        for name, read in members:
            base = name.rsplit("/", 1)[-1]
            if base in AMALGAMATION and prefer in name and base not in found:
                found[base] = read()
        if len(found) == len(AMALGAMATION):
            return found
    for name, read in members:
        nested = None
        if re.search(r"\.(tar\.gz|tgz|tar\.xz|tar\.bz2|tar)$", name):
            nested = tarfile.open(fileobj=io.BytesIO(read()))
            found = find_amalgamation((m.name, (lambda m=m: nested.extractfile(m).read()))
                                      for m in nested.getmembers() if m.isfile())
        elif name.endswith(".zip"):
            nested = zipfile.ZipFile(io.BytesIO(read()))
            found = find_amalgamation((n, (lambda n=n: nested.read(n))) for n in nested.namelist())
        if nested is not None and found:
            return found
    return None


def amalgamation(cache):
    """CACHE/sqlite3.c and CACHE/sqlite3.h, fetched and unpacked when missing."""
    os.makedirs(cache, exist_ok=True)
    paths = [os.path.join(cache, n) for n in AMALGAMATION]
    if all(os.path.exists(p) for p in paths):
        return paths
    tgz = fetch_tarball(cache)
    with tarfile.open(tgz) as t:
        found = find_amalgamation((m.name, (lambda m=m: t.extractfile(m).read()))
                                  for m in t.getmembers() if m.isfile())
    if not found:
        sys.exit(f"sqlite.py: {tgz} holds no sqlite3.c and sqlite3.h (looked in deps/sqlite3/, "
                 "everywhere, and inside nested archives)")
    for name, data in found.items():
        with open(os.path.join(cache, name) + ".part", "wb") as f:
            f.write(data)
        os.replace(os.path.join(cache, name) + ".part", os.path.join(cache, name))
    version = re.search(rb'#define SQLITE_VERSION\s+"([^"]+)"', found["sqlite3.h"])
    log(f"SQLite {version.group(1).decode() if version else '(version unknown)'} from {TARBALL}: "
        f"sqlite3.c {human(len(found['sqlite3.c']))}")
    return paths


# ---------------------------------------------------------------- the module

def up_to_date(out, sources, command):
    """Whether `out` exists, is newer than every source and was made by `command` (its .cmd stamp)."""
    stamp = out + ".cmd"
    if not (os.path.exists(out) and os.path.exists(stamp)):
        return False
    if open(stamp).read() != shlex.join(command):
        return False
    t = os.path.getmtime(out)
    return all(os.path.getmtime(s) < t for s in sources)


def make(out, sources, command, what):
    if up_to_date(out, sources, command):
        return False
    log(what)
    t0 = time.perf_counter()
    subprocess.run(["nice", "-n", "10"] + command, check=True)
    with open(out + ".cmd", "w") as f:
        f.write(shlex.join(command))
    log(f"  {time.perf_counter() - t0:.1f} s, {human(os.path.getsize(out))}")
    return True


def module_size(bc):
    """Counts of the linked module by llvm-dis-14: defined functions, declarations, instructions, basic blocks."""
    n = {"defined_functions": 0, "declared_functions": 0, "ir_instructions": 0, "basic_blocks": 0}
    p = subprocess.Popen(["llvm-dis-14", bc, "-o", "-"], stdout=subprocess.PIPE)
    inside = False
    for line in io.TextIOWrapper(p.stdout, errors="replace"):
        if inside:
            if line.startswith("}"):
                inside = False
            elif line.startswith("  ") and not line.startswith("  ;"):
                n["ir_instructions"] += 1
            elif line[:1].isalnum() or line[:1] in "._-\"$":
                n["basic_blocks"] += 1  # a label (the entry block has none; counted below)
        elif line.startswith("define "):
            inside = True
            n["defined_functions"] += 1
            n["basic_blocks"] += 1
        elif line.startswith("declare "):
            n["declared_functions"] += 1
    if p.wait() != 0:
        sys.exit(f"sqlite.py: llvm-dis-14 {bc} failed")
    n["bc_bytes"] = os.path.getsize(bc)
    return n


def prepare(cache):
    """CACHE/sqlite.bc (compiled and linked when needed) and its size."""
    c, h = amalgamation(cache)
    sq_bc, drv_bc, bc = (os.path.join(cache, n) for n in ("sqlite3.bc", "sqlite_driver.bc", "sqlite.bc"))
    changed = make(sq_bc, [c, h], ["clang-14"] + CFLAGS + [c, "-o", sq_bc],
                   "clang-14 -emit-llvm sqlite3.c")
    changed |= make(drv_bc, [DRIVER, h], ["clang-14"] + CFLAGS + ["-I", cache, DRIVER, "-o", drv_bc],
                    "clang-14 -emit-llvm sqlite_driver.c")
    changed |= make(bc, [sq_bc, drv_bc], ["llvm-link-14", drv_bc, sq_bc, "-o", bc], "llvm-link-14 -> sqlite.bc")
    size_file = bc + ".size.json"
    if changed or not os.path.exists(size_file) or os.path.getmtime(size_file) < os.path.getmtime(bc):
        size = module_size(bc)
        with open(size_file, "w") as f:
            json.dump(size, f)
    else:
        size = json.load(open(size_file))
    return bc, size


# ---------------------------------------------------------------- the runs

def run_weir(cmd, json_path, timeout, memory_limit):
    """Runs cmd (stdout to json_path, kept only on success); returns a dict of what happened."""
    err_path = json_path + ".stderr"
    part = json_path + ".part"

    def limit():
        os.setsid()  # its own process group, so a timeout kills everything it started
        if memory_limit:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    t0 = time.perf_counter()
    with open(part, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, preexec_fn=limit)
    timed_out = False
    delay = 0.01
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - t0 > timeout:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.25)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = open(err_path, errors="replace").read()
    os.remove(err_path)
    r = {"wall_s": round(wall, 3), "peak_rss_mib": round(usage.ru_maxrss / 1024.0, 1),
         "exit": proc.returncode, "stderr_tail": ""}
    stats = next((ln for ln in stderr.splitlines() if ln.startswith("weir: analysis=")), "")
    r.update({k: v for k, v in re.findall(r"(\w+)=(\S+)", stats)})
    oom = re.search(r"bad_alloc|out of memory|Cannot allocate memory|MemoryError", stderr, re.I)
    if timed_out:
        r["status"] = f"timeout ({timeout:g} s)"
    elif proc.returncode == 0:
        r["status"] = "ok"
    elif oom:
        r["status"] = "out of memory" + (f" (signal {signal.Signals(-proc.returncode).name})" if proc.returncode < 0
                                         else f" (exit {proc.returncode})")
    elif proc.returncode < 0:
        name = signal.Signals(-proc.returncode).name
        r["status"] = f"killed by {name}" + (" (the kernel's OOM killer?)" if name == "SIGKILL" else "")
    else:
        r["status"] = f"exit {proc.returncode}"
    if r["status"] == "ok":
        os.replace(part, json_path)
        try:
            doc = json.load(open(json_path))
            r["json_findings"] = len(doc.get("findings", doc.get("values", [])))  # lca: its values
            rules = {}
            for f in doc.get("findings", []):
                rules[f.get("rule", "?")] = rules.get(f.get("rule", "?"), 0) + 1
            r["rules"] = " ".join(f"{k}:{v}" for k, v in sorted(rules.items()))
        except (ValueError, OSError) as e:
            r["status"] = f"ok, but the JSON does not parse ({e})"
    else:
        if os.path.exists(json_path):
            os.remove(json_path)  # no stale findings from an earlier run
        os.remove(part)
        lines = [ln for ln in stderr.splitlines() if ln.strip()]
        r["stderr_tail"] = "\n".join(lines[-15:])
    return r


def find_weir():
    """The first of build/src/weir and build-llvm/src/weir that has `analyze`."""
    for cand in ("build/src/weir", "build-llvm/src/weir"):
        path = os.path.join(ROOT, cand)
        if os.access(path, os.X_OK) and has_analyze(path):
            return path
    return None


def has_analyze(weir):
    r = subprocess.run([weir, "analyze", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = r.stdout.decode(errors="replace")
    return r.returncode == 0 and "unknown command" not in text and "not available" not in text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weir", help="the weir binary (default: the first of build/src/weir, build-llvm/src/weir "
                                   "with `analyze`)")
    ap.add_argument("--backends", default="cpu", help="comma-separated (tabulation, cpu-ref, cpu, cuda; default cpu)")
    ap.add_argument("--analyses", default="taint,uninit")
    ap.add_argument("--taint-config", default="libc", help="taint's --config (default libc)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per run (default 600)")
    ap.add_argument("--memory-limit", type=parse_size, default=parse_size("8G"),
                    help="address-space limit per run (RLIMIT_AS; default 8G; 0: none)")
    ap.add_argument("--cache", default=os.path.join(ROOT, ".cache", "sqlite"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out"), help="where the JSON findings go")
    ap.add_argument("--csv", default=None, help="default OUT/analyze.csv")
    ap.add_argument("--prepare-only", action="store_true", help="fetch, compile and link sqlite.bc, then stop")
    a = ap.parse_args()
    analyses = [x for x in a.analyses.split(",") if x]
    backends = [x for x in a.backends.split(",") if x]
    for x in analyses:
        if x not in ("taint", "uninit", "lca"):
            ap.error(f"unknown analysis '{x}' (taint, uninit, lca)")

    bc, size = prepare(os.path.abspath(a.cache))
    print(f"module: {rel(bc)}: {human(size['bc_bytes'])}, {size['defined_functions']} defined functions "
          f"({size['declared_functions']} declared), {size['basic_blocks']} basic blocks, "
          f"{size['ir_instructions']} IR instructions (llvm-dis-14)")
    if a.prepare_only:
        return 0

    weir = a.weir or find_weir()
    if not weir:
        sys.exit("sqlite.py: no weir binary with `analyze` (build/src/weir, build-llvm/src/weir); "
                 "build one with LLVM 14 (meson setup -Dllvm=enabled) or pass --weir PATH")
    if not has_analyze(weir):
        sys.exit(f"sqlite.py: {weir} has no `analyze` (built without LLVM 14?)")
    os.makedirs(a.out, exist_ok=True)
    csv_path = a.csv or os.path.join(a.out, "analyze.csv")
    print(f"weir: {rel(weir)}; timeout {a.timeout:g} s; address-space limit "
          f"{human(a.memory_limit) if a.memory_limit else 'none'}")

    rows = []
    for an in analyses:
        for b in backends:
            cmd = [weir, "analyze", bc, "--analysis", an] + (["--config", a.taint_config] if an == "taint" else []) + \
                  ["--backend", b, "--format", "json", "--stats"]
            limit = 0 if b == "cuda" else a.memory_limit
            log(f"{an} / {b}: {shlex.join(rel(x) if os.path.isabs(x) else x for x in cmd)}")
            r = run_weir(cmd, os.path.join(a.out, f"analyze-{an}-{b}.json"), a.timeout, limit)
            r.update({"analysis": an, "backend": b, "memory_limit": limit})
            log(f"  {r['status']}: {r['wall_s']} s, {r['peak_rss_mib']} MiB" +
                (f", {r['json_findings']} findings" if "json_findings" in r else ""))
            if r["stderr_tail"]:
                log("  stderr (tail):\n" + "\n".join("    " + ln for ln in r["stderr_tail"].splitlines()))
            rows.append(r)

    fields = ["analysis", "backend", "status", "exit", "wall_s", "peak_rss_mib", "memory_limit"] + \
             [f for f in STAT_FIELDS] + ["json_findings", "rules"] + PHASES + \
             ["bc_bytes", "defined_functions", "ir_instructions", "stderr_tail"]
    os.makedirs(os.path.dirname(os.path.abspath(csv_path)), exist_ok=True)
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({**size, **r})

    print()
    print("| analysis | backend | status | load | points-to | construction | layout | solve | report | wall | "
          "peak RSS | nodes | facts | path edges | findings |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        ph = " | ".join(f"{float(r[p]):.2f}" if p in r else "" for p in PHASES)
        findings = r.get("json_findings", r.get("findings", ""))
        print(f"| {r['analysis']} | {r['backend']} | {r['status']} | {ph} | {r['wall_s']:.2f} | "
              f"{r['peak_rss_mib']:.0f} MiB | {r.get('nodes', '')} | {r.get('facts', '')} | "
              f"{r.get('path_edges', '')} | {findings} |")
    print(f"\nseconds; peak RSS: the process's ru_maxrss. CSV: {rel(csv_path)}; "
          f"findings: {rel(a.out)}/analyze-ANALYSIS-BACKEND.json")
    return 0 if all(r["status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
