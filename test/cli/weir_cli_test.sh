#!/usr/bin/env bash
# `weir solve` end to end against spec/ifds-format.md: exact result output for
# the data files (computed by hand from the spec), backend agreement, JSON,
# --stats on stderr only, witnesses (valid paths, `no path` + status 1), and
# exit status 2 with a diagnostic on stderr (and nothing on stdout) for bad
# files, bad --witness requests, bad backends and missing files; CRLF/BOM input.
set -u
WEIR=$1
DATA=$2
VERSION=$3
source "$(dirname "$0")/lib.sh"

# ---- exact results (hand-computed from the spec) ------------------------------
# Lines in node declaration order (a proc line declares START then EXIT), facts in
# declaration order with 0 first; nodes that hold nothing are left out.
want_spec_examples="m.start: 0
m.exit: 0 x y
n1: 0 x
n2: 0 x
n3: 0 y
n4: 0 x y"
# rec(p) returns r (base case); through the recursion u is generated only on the
# zero context; main gets r back as t, and t does not bypass the call.
want_recursion="main.s: 0
main.e: 0 t
main.gen: 0
main.call: 0 t
main.ret: 0 t
rec.s: 0 p
rec.e: 0 p r u
rec.call: 0 p
rec.ret: 0 p r u"
# a passes x through, b sees x as y and returns it as z; the ctrflow passes only 0.
want_indirect="main.s: 0
main.e: 0 x z
main.call: 0 x
main.ret: 0 x z
a.s: 0 x
a.e: 0 x
b.s: 0 y
b.e: 0 y"
# s1 comes back only to after1, s2 only to after2 (no mixing between sites).
want_two_sites="main.s: 0
main.e: 0 s2 h
call1: 0 s1
after1: 0 s1 h
pre2: 0
call2: 0 s2
after2: 0 s2 h
helper.s: 0 s1 s2
helper.e: 0 s1 s2 h
helper.mid: 0 s1 s2 h"

for name in spec_examples recursion indirect two_sites; do
  var="want_$name"
  want=${!var}
  f="$DATA/$name.ifds"
  expect_out "solve-$name" "$want" "$WEIR" solve "$f"
  expect_out "solve-$name-tabulation" "$want" "$WEIR" solve "$f" --backend tabulation
  expect_out "solve-$name-cpu-ref" "$want" "$WEIR" solve "$f" --backend cpu-ref
  # exact bytes: one line per node, each ending in LF, nothing else
  "$WEIR" solve "$f" >"$tmp/exact" 2>/dev/null
  printf '%s\n' "$want" | cmp -s - "$tmp/exact"
  check "solve-$name-bytes" $? "stdout is not byte-identical to the expected text"
done

# Every data file (also ones added later): tabulation and cpu-ref agree byte for byte.
for f in "$DATA"/*.ifds; do
  b=$(basename "$f")
  "$WEIR" solve "$f" --backend tabulation >"$tmp/tab" 2>"$tmp/err"; rc1=$?
  "$WEIR" solve "$f" --backend cpu-ref >"$tmp/ref" 2>"$tmp/err"; rc2=$?
  [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ -s "$tmp/tab" ] && cmp -s "$tmp/tab" "$tmp/ref"
  check "backends-agree-$b" $? "tabulation (rc $rc1) and cpu-ref (rc $rc2) differ"
done

# ---- JSON ---------------------------------------------------------------------
expect_out json-spec_examples '{"m.start":["0"],"m.exit":["0","x","y"],"n1":["0","x"],"n2":["0","x"],"n3":["0","y"],"n4":["0","x","y"]}' \
  "$WEIR" solve "$DATA/spec_examples.ifds" --format json
expect_out json-two_sites '{"main.s":["0"],"main.e":["0","s2","h"],"call1":["0","s1"],"after1":["0","s1","h"],"pre2":["0"],"call2":["0","s2"],"after2":["0","s2","h"],"helper.s":["0","s1","s2"],"helper.e":["0","s1","s2","h"],"helper.mid":["0","s1","s2","h"]}' \
  "$WEIR" solve "$DATA/two_sites.ifds" --format json --backend cpu-ref
expect_out format-text "$want_indirect" "$WEIR" solve "$DATA/indirect.ifds" --format text
expect_fail format-bad 2 "format" "$WEIR" solve "$DATA/indirect.ifds" --format xml
# a binary file: the error names it and shows its bytes escaped, never raw
printf '\177ELF\002\001\001\377\376\000\n' > "$tmp/binary.ifds"
expect_fail binary-file 2 "binary.ifds:1: error: .*\\\\x7fELF\\\\x02\\\\x01\\\\x01\\\\xff\\\\xfe" "$WEIR" solve "$tmp/binary.ifds"
if LC_ALL=C grep -q '[^[:print:]]' "$tmp/err"; then echo "FAIL binary-file-raw: stderr holds raw bytes"; fails=$((fails+1)); else echo "ok   binary-file-raw"; fi

# ---- --stats: stderr only, stdout unchanged ----------------------------------------
for be in tabulation cpu-ref; do
  "$WEIR" solve "$DATA/recursion.ifds" --backend "$be" --stats >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$want_recursion" ] && [ -s "$tmp/err" ] && grep -q "path_edges" "$tmp/err"
  check "stats-$be" $? "rc=$rc, stdout changed or no stats on stderr: $(cat "$tmp/err")"
done

# The default backend is cpu, with the same result.
"$WEIR" solve "$DATA/recursion.ifds" --stats >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$want_recursion" ] && grep -q "backend=cpu " "$tmp/err"
check "stats-default-backend-cpu" $? "rc=$rc, want backend=cpu and the same result: $(cat "$tmp/err")"

# ---- the heap: huge pages from 1 MiB of input on (vyre::use_huge_page_heap) ---------
# The same problem padded with a comment to 1.1 MB: the same result, and the
# stats say which heap it ran with (no heap settings inherited from the caller).
cp "$DATA/recursion.ifds" "$tmp/big.ifds"
{ printf '#'; head -c 1100000 /dev/zero | tr '\0' x; printf '\n'; } >>"$tmp/big.ifds"
heap_of() { sed -n 's/.* heap=\([a-z_]*\) .*/\1/p' "$tmp/err"; }
want_big=default
huge_heap_able && want_big=huge_pages
hints_of() { sed -n 's/.* huge_pages=\([a-z]*\) .*/\1/p' "$tmp/err"; }
# The restart also sets OMP_WAIT_POLICY=passive, unless the caller set a policy.
omp_of() { sed -n 's/.* omp_wait=\([a-z]*\) .*/\1/p' "$tmp/err"; }
want_omp=default
[ "$want_big" = huge_pages ] && want_omp=passive
for be in tabulation cpu; do
  VYRE_HUGE_PAGES=on env -u GLIBC_TUNABLES -u VYRE_DEFAULT_HEAP -u VYRE_HEAP_RESTARTED -u OMP_WAIT_POLICY "$WEIR" solve "$tmp/big.ifds" --backend "$be" --stats >"$tmp/out" 2>"$tmp/err"; rc=$?
  [ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$want_recursion" ] && [ "$(heap_of)" = "$want_big" ] && [ "$(omp_of)" = "$want_omp" ]
  check "heap-big-$be" $? "rc=$rc, want heap=$want_big omp_wait=$want_omp and the small file's result: $(cat "$tmp/err")"
done
VYRE_HUGE_PAGES=on OMP_WAIT_POLICY=active env -u GLIBC_TUNABLES -u VYRE_DEFAULT_HEAP -u VYRE_HEAP_RESTARTED "$WEIR" solve "$tmp/big.ifds" --stats >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$want_recursion" ] && [ "$(heap_of)" = "$want_big" ] && [ "$(omp_of)" = active ]
check "heap-big-user-omp-policy" $? "rc=$rc, want heap=$want_big and the caller's omp_wait=active kept: $(cat "$tmp/err")"
# VYRE_HUGE_PAGES=off: the default heap and no hints; auto (unset): the heap in huge pages
# exactly where the hints were measured to pay
VYRE_HUGE_PAGES=off env -u GLIBC_TUNABLES -u VYRE_DEFAULT_HEAP -u VYRE_HEAP_RESTARTED -u OMP_WAIT_POLICY "$WEIR" solve "$tmp/big.ifds" --stats >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$want_recursion" ] && [ "$(heap_of)" = default ] && [ "$(hints_of)" = off ] &&
  [ "$(omp_of)" = default ]
check "heap-hints-off" $? "rc=$rc, want heap=default huge_pages=off omp_wait=default (no restart) with VYRE_HUGE_PAGES=off: $(cat "$tmp/err")"
env -u GLIBC_TUNABLES -u VYRE_DEFAULT_HEAP -u VYRE_HEAP_RESTARTED -u VYRE_HUGE_PAGES "$WEIR" solve "$tmp/big.ifds" --stats >"$tmp/out" 2>"$tmp/err"; rc=$?
want_auto=default
[ "$want_big" = huge_pages ] && [ "$(hints_of)" = on ] && want_auto=huge_pages
[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$want_recursion" ] && [ "$(heap_of)" = "$want_auto" ] &&
  { [ "$(hints_of)" = on ] || [ "$(hints_of)" = off ] || [ "$(hints_of)" = unmeasured ]; }
check "heap-hints-auto" $? "rc=$rc, want huge_pages=on|off|unmeasured and heap=$want_auto with it: $(cat "$tmp/err")"
env -u GLIBC_TUNABLES -u VYRE_DEFAULT_HEAP -u VYRE_HEAP_RESTARTED -u OMP_WAIT_POLICY "$WEIR" solve "$DATA/recursion.ifds" --stats >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && [ "$(heap_of)" = default ] && [ "$(omp_of)" = default ]
check "heap-small-default" $? "rc=$rc, want heap=default omp_wait=default below 1 MiB: $(cat "$tmp/err")"
env -u GLIBC_TUNABLES -u VYRE_HEAP_RESTARTED VYRE_DEFAULT_HEAP=1 "$WEIR" solve "$tmp/big.ifds" --stats >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$want_recursion" ] && [ "$(heap_of)" = default ]
check "heap-opt-out" $? "rc=$rc, want heap=default with VYRE_DEFAULT_HEAP=1: $(cat "$tmp/err")"

# ---- witnesses ----------------------------------------------------------------------
# Exact where the realizable path is unique.
expect_out witness-spec-n4-x "m.start 0
n1 0
n2 0
n3 y
n4 x" "$WEIR" solve "$DATA/spec_examples.ifds" --witness n4:x
expect_out witness-indirect-ret-z "main.s 0
main.call x
b.s y
b.e y
main.ret z" "$WEIR" solve "$DATA/indirect.ifds" --witness main.ret:z
expect_out witness-seed-itself "m.start 0" "$WEIR" solve "$DATA/spec_examples.ifds" --witness m.start:0

# Elsewhere: one `NODE FACT` per line, first line a seed, last line the target, and
# every vertex on the path holds in the solution (a realizable path from a seed
# only visits vertices of the solution).
witness_ok() { # name file seed-line node fact
  local name=$1 f=$2 seedline=$3 node=$4 fact=$5
  "$WEIR" solve "$f" --witness "$node:$fact" >"$tmp/w" 2>"$tmp/err"; local rc=$?
  "$WEIR" solve "$f" >"$tmp/sol" 2>/dev/null
  local bad=""
  [ $rc -eq 0 ] || bad="rc=$rc"
  [ "$(head -n1 "$tmp/w")" = "$seedline" ] || bad="$bad; first line '$(head -n1 "$tmp/w")' is not the seed"
  [ "$(tail -n1 "$tmp/w")" = "$node $fact" ] || bad="$bad; last line '$(tail -n1 "$tmp/w")' is not the target"
  while read -r n d extra; do
    if [ -z "$n" ] || [ -z "$d" ] || [ -n "${extra:-}" ]; then bad="$bad; malformed line '$n $d $extra'"; continue; fi
    grep -q -- "^$n:.* $d\( \|\$\)" "$tmp/sol" || bad="$bad; ($n, $d) does not hold"
  done <"$tmp/w"
  [ -z "$bad" ]; check "$name" $? "$bad"
}
witness_ok witness-recursion-main-e-t "$DATA/recursion.ifds" "main.s 0" main.e t
witness_ok witness-recursion-rec-ret-u "$DATA/recursion.ifds" "main.s 0" rec.ret u
witness_ok witness-recursion-rec-e-r "$DATA/recursion.ifds" "main.s 0" rec.e r
witness_ok witness-two-sites-after2-h "$DATA/two_sites.ifds" "main.s 0" after2 h
witness_ok witness-two-sites-helper-e-s1 "$DATA/two_sites.ifds" "main.s 0" helper.e s1
# The recursion witness must go into rec with p and come back with r as t.
"$WEIR" solve "$DATA/recursion.ifds" --witness main.e:t >"$tmp/w" 2>/dev/null
grep -qx "main.call t" "$tmp/w" && grep -qx "rec.s p" "$tmp/w" && grep -qx "rec.e r" "$tmp/w" && grep -qx "main.ret t" "$tmp/w"
check witness-recursion-through-call $? "$(cat "$tmp/w")"

# Facts that do not hold: `no path`, status 1.
nopath() { # name file node:fact
  "$WEIR" solve "$2" --witness "$3" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  [ $rc -eq 1 ] && [ "$(cat "$tmp/out")" = "no path" ]
  check "$1" $? "rc=$rc stdout='$(cat "$tmp/out")'"
}
nopath nopath-two-sites-after2-s1 "$DATA/two_sites.ifds" after2:s1
nopath nopath-two-sites-after1-s2 "$DATA/two_sites.ifds" after1:s2
nopath nopath-spec-n3-x "$DATA/spec_examples.ifds" n3:x
nopath nopath-recursion-main-e-u "$DATA/recursion.ifds" main.e:u
nopath nopath-indirect-main-ret-y "$DATA/indirect.ifds" main.ret:y
# Several requests: status 1 when any does not hold, both answered.
"$WEIR" solve "$DATA/two_sites.ifds" --witness after2:h --witness after1:s2 >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -qx "after2 h" "$tmp/out" && grep -qx "no path" "$tmp/out"
check witness-several $? "rc=$rc stdout='$(cat "$tmp/out")'"

# Bad witness requests: status 2 before solving.
expect_fail witness-unknown-node 2 "no node called 'nope'" "$WEIR" solve "$DATA/spec_examples.ifds" --witness nope:x
expect_fail witness-bad-backend 2 "unknown backend 'nope'" "$WEIR" solve "$DATA/spec_examples.ifds" --backend nope --witness n4:x
expect_fail witness-json 2 "not available with --witness" "$WEIR" solve "$DATA/spec_examples.ifds" --format json --witness n4:x
expect_fail witness-unknown-fact 2 "no fact called 'q'" "$WEIR" solve "$DATA/spec_examples.ifds" --witness n4:q
expect_fail witness-fact-is-node-name 2 "no fact called 'n1'" "$WEIR" solve "$DATA/spec_examples.ifds" --witness n4:n1
expect_fail witness-no-colon 2 "NODE:FACT" "$WEIR" solve "$DATA/spec_examples.ifds" --witness n4
expect_fail witness-no-value 2 "witness" "$WEIR" solve "$DATA/spec_examples.ifds" --witness

# ---- backends -----------------------------------------------------------------------
expect_fail unknown-backend 2 "unknown backend 'nope'" "$WEIR" solve "$DATA/two_sites.ifds" --backend nope
expect_fail backend-no-value 2 "backend" "$WEIR" solve "$DATA/two_sites.ifds" --backend
for be in cpu cuda; do
  # Not built: status 2 saying so. (When a build has it, it must agree with the oracle.)
  "$WEIR" solve "$DATA/two_sites.ifds" --backend "$be" >"$tmp/out" 2>"$tmp/err"; rc=$?
  if [ $rc -eq 0 ]; then
    [ "$(cat "$tmp/out")" = "$want_two_sites" ]; check "backend-$be-built" $? "differs from the expected result"
  elif [ $rc -eq 4 ]; then
    # Built, but no device here: status 4 saying so.
    [ ! -s "$tmp/out" ] && grep -q "no CUDA device" "$tmp/err"
    check "backend-$be-no-device" $? "rc=$rc stderr: $(cat "$tmp/err")"
  else
    [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "backend '$be'" "$tmp/err" && grep -q "not available" "$tmp/err"
    check "backend-$be-not-built" $? "rc=$rc stderr: $(cat "$tmp/err")"
  fi
done

# ---- malformed files: status 2, FILE:LINE and the token on stderr, nothing on stdout ----
printf 'ifds 1\nfacts x\nproc main s e\nflow s e bogus\nseed s 0\n' >"$tmp/bad_term.ifds"
expect_fail bad-term 2 "bad_term.ifds:4:" "$WEIR" solve "$tmp/bad_term.ifds"
expect_fail bad-term-token 2 "bogus" "$WEIR" solve "$tmp/bad_term.ifds"
printf 'ifds 1\nfacts x\nproc main s e\nflow s e id\nseed s 0\nseed s 0\n' >"$tmp/dup_seed.ifds"
expect_fail duplicate-seed 2 "dup_seed.ifds:6:" "$WEIR" solve "$tmp/dup_seed.ifds"
printf 'ifds 1\nfacts x\nproc main s e\nflow s e gen:y\nseed s 0\n' >"$tmp/unknown_fact.ifds"
expect_fail unknown-fact 2 "unknown_fact.ifds:4:" "$WEIR" solve "$tmp/unknown_fact.ifds"
printf 'ifds 1\nproc main s e\nnode n main\nseed n 0\n' >"$tmp/seed_not_start.ifds"
expect_fail seed-not-start 2 "seed_not_start.ifds:4:" "$WEIR" solve "$tmp/seed_not_start.ifds"
printf 'ifds 1\nproc main s e\nflow s e id\n\n# the end\n' >"$tmp/no_seed.ifds"
expect_fail no-seed-last-line 2 "no_seed.ifds:5:" "$WEIR" solve "$tmp/no_seed.ifds"
: >"$tmp/empty.ifds"
expect_fail empty-file 2 "empty.ifds:1:" "$WEIR" solve "$tmp/empty.ifds"
printf 'facts x\nifds 1\n' >"$tmp/no_header.ifds"
expect_fail header-not-first 2 "no_header.ifds:1:" "$WEIR" solve "$tmp/no_header.ifds"
printf 'ifds 1\nproc main s e\nflow s e kill:0\nseed s 0\n' >"$tmp/kill_zero.ifds"
expect_fail kill-zero 2 "kill_zero.ifds:3:" "$WEIR" solve "$tmp/kill_zero.ifds"
# Errors are also reported on the resident backend's path (the loader runs first).
expect_fail bad-term-cpu-ref 2 "bad_term.ifds:4:" "$WEIR" solve "$tmp/bad_term.ifds" --backend cpu-ref

# ---- --memory-budget: status 3 and nothing on stdout past it; the same result within it ----
for be in tabulation cpu-ref; do
  expect_fail "memory-budget-tiny-$be" 3 "memory budget of 16" "$WEIR" solve "$DATA/recursion.ifds" --backend "$be" --memory-budget 16
  expect_out "memory-budget-enough-$be" "$want_recursion" "$WEIR" solve "$DATA/recursion.ifds" --backend "$be" --memory-budget 64M
done
expect_fail memory-budget-witness 3 "memory budget of 16" "$WEIR" solve "$DATA/recursion.ifds" --memory-budget 16 --witness main.e:t
expect_out memory-budget-zero-is-none "$want_recursion" "$WEIR" solve "$DATA/recursion.ifds" --memory-budget 0
expect_fail memory-budget-bad 2 "memory-budget needs a size" "$WEIR" solve "$DATA/recursion.ifds" --memory-budget 12X
expect_fail memory-budget-overflow 2 "memory-budget needs a size" "$WEIR" solve "$DATA/recursion.ifds" --memory-budget 99999999999999999999G
expect_fail memory-budget-no-value 2 "memory-budget" "$WEIR" solve "$DATA/recursion.ifds" --memory-budget

# ---- missing file, usage ---------------------------------------------------------------
expect_fail missing-file 2 "none.ifds" "$WEIR" solve "$tmp/none.ifds"
expect_fail directory 2 "$tmp" "$WEIR" solve "$tmp"
expect_fail no-file 2 "no file" "$WEIR" solve
expect_fail two-files 2 "more than one file" "$WEIR" solve "$DATA/two_sites.ifds" "$DATA/indirect.ifds"
expect_fail unknown-option 2 "unknown option '--frobnicate'" "$WEIR" solve "$DATA/two_sites.ifds" --frobnicate
expect_fail unknown-command 2 "unknown command 'dissolve'" "$WEIR" dissolve "$DATA/two_sites.ifds"
# --help and --version: stdout, status 0, nothing on stderr
for args in "--help" "-h" "solve --help" "solve $DATA/two_sites.ifds --help"; do
  # shellcheck disable=SC2086
  out=$("$WEIR" $args 2>"$tmp/err"); rc=$?
  [ $rc -eq 0 ] && grep -q "^usage: weir solve FILE" <<<"$out" && [ ! -s "$tmp/err" ]
  check "help-${args// /_}" $? "rc=$rc, stdout: $out, stderr: $(cat "$tmp/err")"
done
expect_out version "weir $VERSION" "$WEIR" --version
expect_fail no-args 2 "usage: weir solve FILE" "$WEIR"

# ---- lexical rules: CRLF, BOM, tabs, comments right after tokens ----------------------------
printf '\xef\xbb\xbfifds 1\r\nfacts x y# two facts\r\n\r\nproc main\tm.s  m.e\r\nnode mid main\r\nflow m.s mid gen:x#gen\r\nflow mid m.e id kill:x x>y\r\nseed m.s 0\r\n' >"$tmp/crlf.ifds"
want_crlf="m.s: 0
m.e: 0 y
mid: 0 x"
expect_out crlf-bom "$want_crlf" "$WEIR" solve "$tmp/crlf.ifds"
expect_out crlf-bom-cpu-ref "$want_crlf" "$WEIR" solve "$tmp/crlf.ifds" --backend cpu-ref
"$WEIR" solve "$tmp/crlf.ifds" >"$tmp/out" 2>/dev/null
! grep -q $'\r' "$tmp/out"; check crlf-no-cr-in-output $? "a CR leaked into the output"
expect_out crlf-witness "m.s 0
mid x
m.e y" "$WEIR" solve "$tmp/crlf.ifds" --witness m.e:y
# CRLF in an error: the line number still counts lines, and no CR in the message's token.
printf 'ifds 1\r\nproc main s e\r\nflow s e bogus\r\nseed s 0\r\n' >"$tmp/crlf_bad.ifds"
expect_fail crlf-error 2 "crlf_bad.ifds:3:" "$WEIR" solve "$tmp/crlf_bad.ifds"
! grep -q $'\r' "$tmp/err"; check crlf-error-no-cr $? "a CR leaked into the error message"
# Names that look like keywords are legal; output uses them as written.
printf 'ifds 1\nfacts id kill\nproc seed gen flow\nflow gen flow id kill:id gen:kill,id\nseed gen 0\n' >"$tmp/keywords.ifds"
expect_out keyword-names "gen: 0
flow: 0 id kill" "$WEIR" solve "$tmp/keywords.ifds"

# ---- .ide files (ide-format.md): the header decides; every host backend ------------------
printf 'ide 1 linear\nfacts x y\nproc main s e\nnode c main\nnode r main\nproc inc is ie\nflow s c gen:x=1\ncall c inc r\nctrflow c id kill:x\nflow r e id x>y=2*x+1\nflow is ie x>x=x+10\nseed s 0\n' >"$tmp/a.ide"
want_ide="s: 0
e: 0 x=11 y=23
c: 0 x=1
r: 0 x=11
is: 0 x=1
ie: 0 x=11"
expect_out ide-solve "$want_ide" "$WEIR" solve "$tmp/a.ide" --backend tabulation
expect_out ide-json '{"s":{"0":null},"e":{"0":null,"x":"11","y":"23"},"c":{"0":null,"x":"1"},"r":{"0":null,"x":"11"},"is":{"0":null,"x":"1"},"ie":{"0":null,"x":"11"}}' "$WEIR" solve "$tmp/a.ide" --backend tabulation --format json
expect_out ide-witness "s 0
c x
is x
ie x
r x
e y" "$WEIR" solve "$tmp/a.ide" --backend tabulation --witness e:y
for b in cpu cpu-ref; do
  expect_out "ide-solve-$b" "$want_ide" "$WEIR" solve "$tmp/a.ide" --backend "$b"
done
expect_out ide-solve-default "$want_ide" "$WEIR" solve "$tmp/a.ide"
expect_out ide-json-cpu '{"s":{"0":null},"e":{"0":null,"x":"11","y":"23"},"c":{"0":null,"x":"1"},"r":{"0":null,"x":"11"},"is":{"0":null,"x":"1"},"ie":{"0":null,"x":"11"}}' "$WEIR" solve "$tmp/a.ide" --format json
"$WEIR" solve "$tmp/a.ide" --stats >/dev/null 2>"$tmp/ide_stats"
grep -q "backend=cpu problem=ide family=linear jump_functions=12 contexts=3 heap=[a-z_]* huge_pages=[a-z]* omp_wait=.*ide_stage2=op .*t_reach=.*t_ide_op=" "$tmp/ide_stats"
check ide-stats $? "--stats on an IDE problem: $(cat "$tmp/ide_stats")"

# ---- input read once (pipes, FIFOs), output that cannot be written --------------
expect_out pipe-ifds "$want_spec_examples" bash -c 'cat "$1" | "$2" solve /dev/stdin' _ "$DATA/spec_examples.ifds" "$WEIR"
expect_out pipe-ide "$want_ide" bash -c 'cat "$1" | "$2" solve /dev/stdin --backend tabulation' _ "$tmp/a.ide" "$WEIR"
mkfifo "$tmp/fifo.ifds"
cat "$DATA/spec_examples.ifds" >"$tmp/fifo.ifds" &
expect_out fifo-ifds "$want_spec_examples" timeout 60 "$WEIR" solve "$tmp/fifo.ifds"
wait
# an IDE header after more than 4 KiB of blanks on its line is still an IDE header
{ printf '%5000s' ''; cat "$tmp/a.ide"; } >"$tmp/lead.ide"
expect_out ide-header-after-blanks "$want_ide" "$WEIR" solve "$tmp/lead.ide" --backend tabulation
expect_write_error write-error-solve "$WEIR" solve "$DATA/spec_examples.ifds"
expect_write_error write-error-solve-ide "$WEIR" solve "$tmp/a.ide"
expect_write_error write-error-version "$WEIR" --version
# sizes up to 2^64 - 1 bytes; one more is refused
expect_out budget-max "$want_spec_examples" "$WEIR" solve "$DATA/spec_examples.ifds" --memory-budget 18446744073709551615
expect_fail budget-over-max 2 "memory-budget needs a size" "$WEIR" solve "$DATA/spec_examples.ifds" --memory-budget 18446744073709551616
# cuda (both stages on the GPU, stage 2 as the IR kernels): the same values where built and a GPU is there,
# else status 4 (no device) or 2 (not built), saying so.
"$WEIR" solve "$tmp/a.ide" --backend cuda >"$tmp/ide_cuda_out" 2>"$tmp/ide_cuda"
st=$?
case $st in
  0) [ "$(cat "$tmp/ide_cuda_out")" = "$want_ide" ] ;;
  4) [ ! -s "$tmp/ide_cuda_out" ] && grep -q "no CUDA device" "$tmp/ide_cuda" ;;
  *) [ "$st" -eq 2 ] && grep -q "not available in this build" "$tmp/ide_cuda" ;;
esac
check ide-cuda $? "--backend cuda on IDE (status $st): $(cat "$tmp/ide_cuda")"
# --memory-budget on IDE: status 3 past it (on every host backend), the same values within it.
for b in tabulation cpu cpu-ref; do
  expect_fail "ide-memory-budget-tiny-$b" 3 "memory budget of 64" "$WEIR" solve "$tmp/a.ide" --backend "$b" --memory-budget 64
  expect_out "ide-memory-budget-enough-$b" "$want_ide" "$WEIR" solve "$tmp/a.ide" --backend "$b" --memory-budget 64M
done
printf 'ide 1 linear\nfacts x\nproc main s e\nflow s e gen:x=x-9223372036854775808\nseed s 0\n' >"$tmp/bad.ide"
expect_fail ide-error-line 2 "bad.ide:4:" "$WEIR" solve "$tmp/bad.ide" --backend tabulation
cp "$tmp/a.ide" "$tmp/a_named.ifds"
expect_out ide-header-decides "$want_ide" "$WEIR" solve "$tmp/a_named.ifds" --backend tabulation
printf '\r\nide 1 linear\r\nfacts x\r\nproc m s e\r\nflow s e gen:x=4\r\nseed s 0\r\n' >"$tmp/crlf.ide"
expect_out ide-crlf "s: 0
e: 0 x=4" "$WEIR" solve "$tmp/crlf.ide" --backend tabulation
# the header decides however many blank and comment lines come first (here over 64 KiB of them)
{ for i in $(seq 1 2000); do printf '# a comment line of some length, to push the header past 64 KiB\n\n'; done
  printf 'ide 1 linear\nfacts x\nproc m s e\nflow s e gen:x=5\nseed s 0'; } >"$tmp/late.ide"
expect_out ide-late-header "s: 0
e: 0 x=5" "$WEIR" solve "$tmp/late.ide" --backend cpu
printf '\xEF\xBB\xBF# only a comment first\n  \t\nide 1 linear\nfacts x\nproc m s e\nflow s e gen:x=6\nseed s 0\n' >"$tmp/bom.ide"
expect_out ide-bom-comment "s: 0
e: 0 x=6" "$WEIR" solve "$tmp/bom.ide" --backend cpu


# ---- two programs: weir and weir-full -----------------------------------------
# Where the build has the LLVM frontend or the cuda backend, `weir` links
# neither library (their loading cost every command ~100 ms) and hands `analyze`
# and `solve --backend cuda` to weir-full beside it (src/weir_cli.hpp).
full="$(dirname "$WEIR")/weir-full"
if [ -x "$full" ]; then
  needed=$(readelf -d "$WEIR" | grep NEEDED)
  ! grep -qiE 'llvm|cuda|nvrtc|weir-llvm' <<<"$needed"
  check weir-links-no-llvm-or-cuda $? "weir needs: $needed"
  readelf -d "$full" | grep NEEDED | grep -qiE 'llvm|cuda'
  check weir-full-links-them $? "weir-full needs neither libLLVM nor the cuda library"
  # handed over: weir-full's own answers, the same arguments (analyze --help is weir-full's usage)
  expect_out handover-analyze-help "$("$full" analyze --help)" "$WEIR" analyze --help
  "$WEIR" solve "$DATA/spec_examples.ifds" --backend cuda >"$tmp/hc_out" 2>"$tmp/hc_err"; st=$?
  "$full" solve "$DATA/spec_examples.ifds" --backend cuda >"$tmp/hf_out" 2>"$tmp/hf_err"; sf=$?
  [ "$st" -eq "$sf" ] && cmp -s "$tmp/hc_out" "$tmp/hf_out" && cmp -s "$tmp/hc_err" "$tmp/hf_err"
  check handover-cuda $? "weir: status $st, $(cat "$tmp/hc_err"); weir-full: status $sf, $(cat "$tmp/hf_err")"
  # without weir-full beside it: status 2 and a message that names it; the host backends still run
  mkdir "$tmp/alone" && cp "$WEIR" "$tmp/alone/weir"
  expect_fail handover-missing-full 2 "cannot run \"$tmp/alone/weir-full\": No such file" "$tmp/alone/weir" analyze x.c
  expect_out handover-not-needed "$want_spec_examples" "$tmp/alone/weir" solve "$DATA/spec_examples.ifds" --backend cpu
else
  echo "ok   weir-is-whole (no weir-full in this build: no LLVM, no cuda)"
fi

finish
