#!/usr/bin/env bash
# `weir analyze` end to end against spec/analyze.md, beyond the per-rule
# programs of test/llvm: inputs (C source, .ll, .bc, several linked, -p with
# compile_commands.json, clang flags after --), the three output formats (JSON
# fields, SARIF 2.1.0's required fields, compiler-style text), --witness,
# --entry, --fail-on-findings, --stats on stderr only, --emit-ifds (the problem
# that weir solve solves to the same path edges), and exit status 2 with
# a message naming the file (and line) for bad input.
set -u
WEIR=$1
CLANG=$2
LLVM_AS=${3:-llvm-as-14}
source "$(dirname "$0")/lib.sh"
export WEIR_CLANG=$CLANG

cat >"$tmp/inj.c" <<'C'
#include <stdlib.h>
int source(void);
void sink(int);
static int twice(int x) { return 2 * x; }
int main(void) {
  int a = source();
  int b = twice(a);
  sink(b);
  sink(twice(3));
  return 0;
}
C

# ---- a C source, JSON ---------------------------------------------------------
"$WEIR" analyze "$tmp/inj.c" --format json >"$tmp/out.json" 2>"$tmp/err"; rc=$?
check "json exit 0" $rc "rc=$rc $(cat "$tmp/err")"
python3 - "$tmp/out.json" <<'PY'; check "json fields" $? "see above"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["analysis"] == "taint", d
f = d["findings"]
assert len(f) == 1, f
f = f[0]
for k in ("rule", "function", "file", "line", "column", "message", "callee", "argument", "sources"):
    assert k in f, k
assert (f["rule"], f["function"], f["line"], f["callee"], f["argument"]) == ("taint", "main", 8, "sink", 0), f
assert f["file"].endswith("inj.c"), f
assert f["sources"] and f["sources"][0]["line"] == 6, f["sources"]
assert "trace" not in f
for k in ("functions", "instructions", "facts", "path_edges"):
    assert isinstance(d["stats"][k], int), k
assert d["stats"]["functions"] == 2
PY
check "stdout only json, nothing on stderr" "$([ -s "$tmp/err" ] && echo 1 || echo 0)" "stderr: $(cat "$tmp/err")"

# ---- witness trace ------------------------------------------------------------
"$WEIR" analyze "$tmp/inj.c" --format json --witness >"$tmp/w.json" 2>"$tmp/err"
python3 - "$tmp/w.json" <<'PY'; check "witness trace" $? "see above"
import json, sys
f = json.load(open(sys.argv[1]))["findings"][0]
t = f["trace"]
lines = [x["line"] for x in t]
assert lines[0] == 6 and lines[-1] == 8, lines       # from the source to the sink
assert any(x["function"] == "twice" for x in t), t     # the call is spelled out
assert all(a != b for a, b in zip(t, t[1:])), t       # distinct consecutive locations
PY

# ---- text and sarif -----------------------------------------------------------
"$WEIR" analyze "$tmp/inj.c" >"$tmp/out.txt" 2>"$tmp/err"
grep -Eq '^.*inj\.c:8:3: warning: tainted value reaches argument 0 of sink \[taint\]$' "$tmp/out.txt"
check "text line" $? "$(cat "$tmp/out.txt")"
check "text: one line per finding" "$([ "$(wc -l <"$tmp/out.txt")" -eq 1 ] && echo 0 || echo 1)" "$(cat "$tmp/out.txt")"
# SARIF 2.1.0's required fields (and ours: a location has a file and region, or
# only its function where the IR has no debug location): FILE RESULTS (N or N+)
cat >"$tmp/sarif_check.py" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "2.1.0" and "runs" in d and len(d["runs"]) == 1
run = d["runs"][0]
drv = run["tool"]["driver"]
assert isinstance(drv["name"], str) and drv["name"]
rules = {r["id"] for r in drv["rules"]}
res = run["results"]
want = sys.argv[2]  # N, or N+ for at least N
assert len(res) >= int(want[:-1]) if want.endswith("+") else len(res) == int(want), (len(res), want)
uri = re.compile(r"^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]+$")  # a URI reference's characters
def location(loc):
    assert loc["logicalLocations"][0]["name"] and loc["logicalLocations"][0]["kind"] == "function", loc
    if "physicalLocation" in loc:
        pl = loc["physicalLocation"]
        assert uri.match(pl["artifactLocation"]["uri"]), pl
        assert pl["region"]["startLine"] >= 1 and pl["region"]["startColumn"] >= 1
for r in res:
    assert r["message"]["text"]
    assert r["ruleId"] in rules and r["level"] in ("none", "note", "warning", "error")
    for loc in r["locations"]:
        location(loc)
    for cf in r.get("codeFlows", []):
        for tf in cf["threadFlows"]:
            assert tf["locations"], tf
            for l in tf["locations"]:
                location(l["location"])
print(json.dumps([[l.get("physicalLocation", {}).get("artifactLocation", {}).get("uri") for l in r["locations"]] for r in res]))
PY
"$WEIR" analyze "$tmp/inj.c" --format sarif --witness >"$tmp/out.sarif" 2>"$tmp/err"
python3 "$tmp/sarif_check.py" "$tmp/out.sarif" 1 >"$tmp/uris" && grep -q 'inj.c"' "$tmp/uris" &&
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]["results"][0]; assert r["codeFlows"][0]["threadFlows"][0]["locations"]' "$tmp/out.sarif"
check "sarif 2.1.0 required fields, with a code flow" $? "$(cat "$tmp/out.sarif")"
cp "$tmp/inj.c" "$tmp/my inj.c"
"$WEIR" analyze "$tmp/my inj.c" --format sarif >"$tmp/space.sarif" 2>"$tmp/err"
python3 "$tmp/sarif_check.py" "$tmp/space.sarif" 1 >"$tmp/uris" && grep -q 'my%20inj.c"' "$tmp/uris"
check "sarif: a file name with a space is a percent-encoded uri" $? "$(cat "$tmp/uris" "$tmp/err")"
"$CLANG" -emit-llvm -S -O0 -fno-discard-value-names -Xclang -disable-O0-optnone "$tmp/inj.c" -o "$tmp/inj-nodebug.ll"
"$WEIR" analyze "$tmp/inj-nodebug.ll" --format sarif >"$tmp/nodebug.sarif" 2>"$tmp/err"
python3 "$tmp/sarif_check.py" "$tmp/nodebug.sarif" 1 >"$tmp/uris" && grep -qx '\[\[null\]\]' "$tmp/uris"
check "sarif: no debug location, only the function" $? "$(cat "$tmp/nodebug.sarif" "$tmp/err")"
cat >"$tmp/u.c" <<'C'
int main(int argc, char **argv) {
  int x;
  if (argc > 1) x = 1;
  return x;
}
C
"$WEIR" analyze "$tmp/u.c" --analysis uninit --format sarif >"$tmp/u.sarif" 2>"$tmp/err"
python3 "$tmp/sarif_check.py" "$tmp/u.sarif" 1+ >"$tmp/uris" &&
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]["results"][0]; assert r["ruleId"] == "uninit" and r["locations"][0]["physicalLocation"]["region"]["startLine"] == 4, r' "$tmp/u.sarif"
check "sarif: uninit" $? "$(cat "$tmp/u.sarif" "$tmp/err")"
# Nothing to start from (only static functions, or an empty file): no findings, a note, status 0.
printf 'static int helper(int x) { return x + 1; }\n' >"$tmp/static_only.c"
: >"$tmp/empty.c"
for f in static_only.c empty.c; do
  "$WEIR" analyze "$tmp/$f" --format json >"$tmp/nothing.json" 2>"$tmp/err"; st=$?
  [ $st = 0 ] && grep -q "note: .*$f: nothing to analyze" "$tmp/err" &&
    python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["findings"] == []' "$tmp/nothing.json"
  check "nothing to analyze in $f: status 0, no findings, the file named" $? "status $st: $(cat "$tmp/err" "$tmp/nothing.json")"
done
"$WEIR" analyze "$tmp/empty.c" --analysis lca --format json >"$tmp/nothing.json" 2>"$tmp/err" &&
  python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == {"analysis": "lca", "values": []}' "$tmp/nothing.json"
check "nothing to analyze, lca: no values, status 0" $? "$(cat "$tmp/err" "$tmp/nothing.json")"
cat >"$tmp/entry.cpp" <<'CPP'
int source();
void sink(int);
namespace ns {
void other(int x) { sink(x); }
}
CPP
for e in "ns::other(int)" "ns::other" _ZN2ns5otherEi; do
  "$WEIR" analyze "$tmp/entry.cpp" --analysis uninit --entry "$e" --format json >"$tmp/entry.json" 2>"$tmp/err"
  check "--entry '$e' names a C++ function" $? "$(cat "$tmp/err")"
done
expect_fail "--entry naming no function: status 2" 2 "no function with a body" "$WEIR" analyze "$tmp/static_only.c" --entry nope
# Without debug information and value names, the variable is the IR name (`%2`), not a placeholder.
"$CLANG" -emit-llvm -S -O0 -Xclang -disable-O0-optnone "$tmp/u.c" -o "$tmp/u-unnamed.ll"
"$WEIR" analyze "$tmp/u-unnamed.ll" --analysis uninit --format json >"$tmp/u-unnamed.json" 2>"$tmp/err"
python3 - "$tmp/u-unnamed.json" "$tmp/u-unnamed.ll" <<'PY'
import json, re, sys
found = json.load(open(sys.argv[1]))["findings"]
ir = open(sys.argv[2]).read()
assert found, "no finding"
for f in found:
    v = f["variable"]
    assert re.fullmatch(r"%[0-9]+", v), v                   # the slot of an unnamed value
    assert re.search(re.escape(v) + r" = alloca", ir), v     # the local's alloca, as the IR names it
    assert f["message"] == f"use of uninitialized value '{v}'", f
PY
check "uninit: an unnamed local is named by its IR slot" $? "$(cat "$tmp/u-unnamed.json" "$tmp/err")"
printf 'int source(void);\nvoid sink(int);\nint main(void) { source(); sink(1); return 0; }\n' >"$tmp/clean.c"
"$WEIR" analyze "$tmp/clean.c" --format sarif >"$tmp/clean.sarif" 2>"$tmp/err"
python3 "$tmp/sarif_check.py" "$tmp/clean.sarif" 0 >/dev/null
check "sarif: a clean program has no results" $? "$(cat "$tmp/clean.sarif" "$tmp/err")"

# ---- .ll, .bc, several modules linked, flags after -- --------------------------
"$CLANG" -emit-llvm -S -g -O0 -fno-discard-value-names -Xclang -disable-O0-optnone "$tmp/inj.c" -o "$tmp/inj.ll"
"$CLANG" -emit-llvm -c -g -O0 -fno-discard-value-names -Xclang -disable-O0-optnone "$tmp/inj.c" -o "$tmp/inj.bc"
for f in inj.ll inj.bc; do
  n=$("$WEIR" analyze "$tmp/$f" --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["findings"]))')
  check "input $f" "$([ "$n" = 1 ] && echo 0 || echo 1)" "findings: $n"
done
cat >"$tmp/lib.c" <<'C'
void sink(int);
void report(int v) { sink(v); }
C
cat >"$tmp/app.c" <<'C'
int source(void);
void report(int v);
int main(void) { report(source() + LEVEL); return 0; }
C
out=$("$WEIR" analyze "$tmp/app.c" "$tmp/lib.c" -- -DLEVEL=1 2>&1)
echo "$out" | grep -q 'lib.c:2:22: warning: tainted value reaches argument 0 of sink'
check "two sources linked, flags after --" $? "$out"
expect_fail "a source that does not compile (no -D)" 2 "app.c" "$WEIR" analyze "$tmp/app.c" "$tmp/lib.c"

# ---- -p DIR with compile_commands.json ----------------------------------------
mkdir -p "$tmp/proj"
cp "$tmp/app.c" "$tmp/lib.c" "$tmp/proj/"
cat >"$tmp/proj/compile_commands.json" <<J
[ {"directory": "$tmp/proj", "file": "app.c", "arguments": ["cc", "-c", "-DLEVEL=2", "app.c", "-o", "app.o"]},
  {"directory": "$tmp/proj", "file": "lib.c", "command": "cc -c lib.c -o lib.o"} ]
J
out=$("$WEIR" analyze -p "$tmp/proj" 2>&1)
echo "$out" | grep -q 'lib.c:2:22: warning: tainted value reaches argument 0 of sink'
check "-p compile_commands.json" $? "$out"
# A gcc project's command: -O2, -g0, -Werror and a gcc-only warning option are left out.
cat >"$tmp/proj/compile_commands.json" <<J
[ {"directory": "$tmp/proj", "file": "app.c",
   "command": "gcc -O2 -Werror -Wno-stringop-overflow -fsanitize=address -DLEVEL=2 -c app.c -o app.o"},
  {"directory": "$tmp/proj", "file": "lib.c",
   "arguments": ["gcc", "-O2", "-g0", "-fprofile-instr-generate", "-fcoverage-mapping", "-Xclang", "-disable-O0-optnone", "-c", "lib.c"]} ]
J
out=$("$WEIR" analyze -p "$tmp/proj" 2>&1)
echo "$out" | grep -q 'lib.c:2:22: warning: tainted value reaches argument 0 of sink'
check "-p: optimization and debug levels, -Werror, sanitizers, coverage left out; -Xclang kept" $? "$out"
echo '[ {"directory": "/x", "file": "a.c" ' >"$tmp/proj/compile_commands.json"
expect_fail "-p malformed compile_commands.json" 2 "compile_commands.json" "$WEIR" analyze -p "$tmp/proj"

# ---- entries, --fail-on-findings, --stats --------------------------------------
out=$("$WEIR" analyze "$tmp/lib.c" 2>&1)
check "no main: every external function is an entry (clean)" "$([ -z "$out" ] && echo 0 || echo 1)" "$out"
"$WEIR" analyze "$tmp/inj.c" --fail-on-findings >/dev/null 2>&1; rc=$?
check "--fail-on-findings exits 1" "$([ $rc -eq 1 ] && echo 0 || echo 1)" "rc=$rc"
"$WEIR" analyze "$tmp/lib.c" --fail-on-findings >/dev/null 2>&1; rc=$?
check "--fail-on-findings, nothing found: 0" $rc "rc=$rc"
"$WEIR" analyze "$tmp/inj.c" --stats >"$tmp/out" 2>"$tmp/err"
grep -q 't_points_to=' "$tmp/err" && ! grep -q 't_points_to' "$tmp/out"
check "--stats on stderr" $? "$(cat "$tmp/err")"
out=$("$WEIR" analyze "$tmp/inj.c" --entry twice --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["findings"]))')
check "--entry twice: no sink reached" "$([ "$out" = 0 ] && echo 0 || echo 1)" "findings: $out"
for b in tabulation cpu-ref cpu; do
  "$WEIR" analyze "$tmp/inj.c" --backend $b --format json >"$tmp/b-$b.json"
done
cmp -s "$tmp/b-tabulation.json" "$tmp/b-cpu.json" && cmp -s "$tmp/b-cpu-ref.json" "$tmp/b-cpu.json"
check "backends agree byte for byte" $? "differ"

# ---- --emit-ifds: the compiled problem, solved by weir solve ------------------------
"$WEIR" analyze "$tmp/inj.c" --format json --emit-ifds "$tmp/p.ifds" >"$tmp/e.json"; rc=$?
check "--emit-ifds exit 0" $rc "rc=$rc"
"$WEIR" solve "$tmp/p.ifds" --backend tabulation --stats >"$tmp/p-tab.txt" 2>"$tmp/p-tab.err" &&
  "$WEIR" solve "$tmp/p.ifds" --backend cpu >"$tmp/p-cpu.txt" && cmp -s "$tmp/p-tab.txt" "$tmp/p-cpu.txt"
check "--emit-ifds: weir solve loads it, backends agree" $? "$(head -3 "$tmp/p-tab.err")"
python3 - "$tmp/e.json" "$tmp/p-tab.err" <<'PY'; check "--emit-ifds: same path edges as the analysis" $? "see above"
import json, re, sys
want = json.load(open(sys.argv[1]))["stats"]["path_edges"]
got = int(re.search(r"path_edges=(\d+)", open(sys.argv[2]).read()).group(1))
assert want == got and got > 0, (want, got)
PY
# ---- --witness-budget: past it, the finding without its sources and a note; 0: no limit
for b in tabulation cpu; do
  "$WEIR" analyze "$tmp/inj.c" --format json --backend "$b" --witness-budget 1 >"$tmp/wb.json" 2>"$tmp/wb.err"; rc=$?
  python3 - "$tmp/wb.json" <<'PY' && [ $rc -eq 0 ] && grep -q "^weir: note: .*without sources" "$tmp/wb.err"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
assert len(f) == 1 and f[0]["line"] == 8 and f[0]["sources"] == [], f
PY
  check "--witness-budget 1 on $b: the finding, no sources, a note" $? "rc=$rc $(cat "$tmp/wb.err")"
done
"$WEIR" analyze "$tmp/inj.c" --format json --witness-budget 0 >"$tmp/wb.json" 2>"$tmp/wb.err" &&
  cmp -s "$tmp/wb.json" "$tmp/out.json" && [ ! -s "$tmp/wb.err" ]
check "--witness-budget 0 (no limit): sources as by default" $? "$(cat "$tmp/wb.err")"
# the traces count against the budget too: past it, findings keep their sources without a trace
{ echo 'int source(void); void sink(int);'; echo 'int main(void) {'; echo '  int a = source();'
  for i in $(seq 1 300); do echo "  sink(a + $i);"; done; echo '  return 0;'; echo '}'; } >"$tmp/many.c"
for b in 1M 0; do
  "$WEIR" analyze "$tmp/many.c" --format json --witness --witness-budget $b >"$tmp/wb-$b.json" 2>"$tmp/wb-$b.err"; rc=$?
  python3 - "$tmp/wb-$b.json" "$b" <<'PY' && [ $rc -eq 0 ]
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
traced = sum(1 for x in f if x.get("trace"))
assert len(f) == 300 and all(x["sources"] for x in f), len(f)
assert (0 < traced < 300) if sys.argv[2] == "1M" else traced == 300, traced
PY
  check "--witness --witness-budget $b on 300 findings: every source, traces within the budget" $? "rc=$rc $(cat "$tmp/wb-$b.err")"
done
grep -q "^weir: note: [0-9]* of 300 findings come without traces" "$tmp/wb-1M.err" && [ ! -s "$tmp/wb-0.err" ]
check "a note says how many findings come without traces" $? "$(cat "$tmp/wb-1M.err" "$tmp/wb-0.err")"
expect_fail "--witness-budget needs a size" 2 "witness-budget needs a size" "$WEIR" analyze "$tmp/inj.c" --witness-budget 12X
expect_fail "--witness-budget without a value" 2 "witness-budget" "$WEIR" analyze "$tmp/inj.c" --witness-budget
expect_fail "--emit-ifds to an unwritable path" 2 "cannot write" "$WEIR" analyze "$tmp/inj.c" --emit-ifds "$tmp/no/such/dir/p.ifds"

# ---- bad input ------------------------------------------------------------------
printf 'define i32 @main() {\n  ret i32 %%x\n}\n' >"$tmp/bad.ll"
expect_fail "invalid IR names file and line" 2 "bad.ll:2:" "$WEIR" analyze "$tmp/bad.ll"
printf '\x00\x01garbage' >"$tmp/bad.bc"
expect_fail "garbage bitcode" 2 "bad.bc" "$WEIR" analyze "$tmp/bad.bc"
expect_fail "missing input" 2 "nope.ll" "$WEIR" analyze "$tmp/nope.ll"
printf '{\n "functions": [\n  {"name": "f", "ret": 3}\n ]\n}\n' >"$tmp/cfg.json"
expect_fail "malformed config names file and line" 2 "cfg.json:3:" "$WEIR" analyze "$tmp/inj.c" --config "$tmp/cfg.json"
expect_fail "malformed config, lca too" 2 "cfg.json:3:" "$WEIR" analyze "$tmp/inj.c" --analysis lca --config "$tmp/cfg.json"
expect_fail "empty --config" 2 "--config needs a file" "$WEIR" analyze "$tmp/inj.c" --config ""
expect_fail "clang makes no bitcode (-fsyntax-only)" 2 "clang wrote no LLVM bitcode" "$WEIR" analyze "$tmp/inj.c" -- -fsyntax-only
expect_fail "clang makes no bitcode (-E)" 2 "clang wrote no LLVM bitcode" "$WEIR" analyze "$tmp/inj.c" -- -E
expect_write_error "write error" "$WEIR" analyze "$tmp/inj.c" --format json
expect_fail "unknown analysis" 2 "unknown analysis" "$WEIR" analyze "$tmp/inj.c" --analysis typestate
# lca (IDE): values by line; its problem as .ide; what is for findings only is refused
printf 'int main(void) {\n  int x = 4;\n  int y = x * 3;\n  return y;\n}\n' >"$tmp/lca.c"
for b in tabulation cpu-ref cpu; do
  "$WEIR" analyze "$tmp/lca.c" --analysis lca --backend "$b" --emit-ifds "$tmp/lca.ide" >"$tmp/lca-$b.txt" 2>"$tmp/lca.err"
  [ "$(sed 's|^.*lca.c:||' "$tmp/lca-$b.txt" | tr '\n' ';')" = "2: x = 4;3: x = 4;3: y = 12;4: x = 4;4: y = 12;" ]
  check "lca text on $b" $? "$(cat "$tmp/lca-$b.txt" "$tmp/lca.err")"
done
"$WEIR" analyze "$tmp/lca.c" --analysis lca --format json | python3 -c '
import json, sys
v = json.load(sys.stdin)
assert v["analysis"] == "lca", v
assert {(x["function"], x["line"], x["variable"], x["value"]) for x in v["values"]} == {
    ("main", 2, "x", 4), ("main", 3, "x", 4), ("main", 3, "y", 12), ("main", 4, "x", 4), ("main", 4, "y", 12)}, v'
check "lca json" $? "see above"
head -1 "$tmp/lca.ide" | grep -q "^ide 1 linear" && "$WEIR" solve "$tmp/lca.ide" --backend tabulation >"$tmp/lca-t.txt" &&
  "$WEIR" solve "$tmp/lca.ide" --backend cpu >"$tmp/lca-c.txt" && cmp -s "$tmp/lca-t.txt" "$tmp/lca-c.txt" &&
  grep -q "=12" "$tmp/lca-t.txt"
check "lca --emit-ifds writes an .ide problem that weir solve solves" $? "$(head -3 "$tmp/lca.ide")"
expect_fail "lca refuses sarif" 2 "sarif" "$WEIR" analyze "$tmp/lca.c" --analysis lca --format sarif
# The options about findings are accepted and change nothing: lca has values, no findings (exit 0).
"$WEIR" analyze "$tmp/lca.c" --analysis lca --format json >"$tmp/lca-plain.json"
for extra in --fail-on-findings --witness "--witness-budget 1M"; do
  # shellcheck disable=SC2086
  "$WEIR" analyze "$tmp/lca.c" --analysis lca --format json $extra >"$tmp/lca-extra.json" 2>"$tmp/err"
  st=$?
  [ $st = 0 ] && cmp -s "$tmp/lca-plain.json" "$tmp/lca-extra.json"
  check "lca with $extra: the same values, exit 0" $? "status $st: $(cat "$tmp/err")"
done
# cuda (both stages on the GPU, stage 2 as the IR kernels): the values of cpu where built and a GPU is
# there, else status 4 (no device) or 2 (not built), saying so.
"$WEIR" analyze "$tmp/lca.c" --analysis lca --backend cuda >"$tmp/lca-cuda-out" 2>"$tmp/lca-cuda"; st=$?
case $st in
  0) "$WEIR" analyze "$tmp/lca.c" --analysis lca --backend cpu | cmp -s - "$tmp/lca-cuda-out" ;;
  4) grep -q "no CUDA device" "$tmp/lca-cuda" ;;
  *) [ "$st" -eq 2 ] && grep -q "not available in this build" "$tmp/lca-cuda" ;;
esac
check "lca on cuda: the cpu values, or says why not (status $st)" $? "$(cat "$tmp/lca-cuda")"
expect_fail "unknown entry" 2 "nope" "$WEIR" analyze "$tmp/inj.c" --entry nope
expect_fail "no input" 2 "no input" "$WEIR" analyze
expect_fail "unknown option" 2 "--frobnicate" "$WEIR" analyze "$tmp/inj.c" --frobnicate
expect_fail "bad format" 2 "--format" "$WEIR" analyze "$tmp/inj.c" --format xml
"$WEIR" analyze --help >"$tmp/out" 2>&1; rc=$?
grep -q "weir analyze" "$tmp/out"
check "analyze --help" $(( rc || $? )) "rc=$rc"
finish
