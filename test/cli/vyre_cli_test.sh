#!/usr/bin/env bash
# `vyre run` end to end: spec output format, inputs from lists and files,
# --grid, and exit status 2 with diagnostics on stderr for bad programs/inputs.
set -u
VYRE=$1
DATA=$2
VERSION=$3
source "$(dirname "$0")/lib.sh"

cat >"$tmp/xor.vyre" <<'V'
(program xor (workgroup 64 1 1)
  (buffer a 0 read u32 0)
  (buffer b 1 read u32 0)
  (buffer out 2 output u32 4)
  (let i (gid x))
  (if (lt i (len out))
    ((store out i (bitxor (load a i) (load b i))))))
V
expect_out xor-lists "out: 5 6 7 0" "$VYRE" run "$tmp/xor.vyre" --input a=1,2,3,4 --input b=4,4,4,4
printf '\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00' >"$tmp/a.bin"
expect_out xor-file "out: 0 3 2 5" "$VYRE" run "$tmp/xor.vyre" --input "a=$tmp/a.bin" --input b=1,1,1,1
expect_out xor-backend "out: 5 6 7 0" "$VYRE" run "$tmp/xor.vyre" --backend cpu-ref --input a=1,2,3,4 --input b=4,4,4,4

cat >"$tmp/floats.vyre" <<'V'
(program floats (workgroup 1 1 1)
  (buffer x 0 read f32 0)
  (buffer f 1 output f32 5)
  (buffer d 2 output f64 2)
  (buffer i 3 output i32 1)
  (store f 0 (div (load x 0) (f32 3)))
  (store f 1 (f32 nan))
  (store f 2 (f32 -inf))
  (store f 3 (f32 -0))
  (store f 4 (f32 1e-45))
  (store d 0 (f64 0.1))
  (store d 1 (f64 inf))
  (store i 0 (i32 -7)))
V
expect_out floats "f: 0.33333334 nan -inf -0 1e-45
d: 0.1 inf
i: -7" "$VYRE" run "$tmp/floats.vyre" --input x=1

# Decimal f16/bf16 inputs are rounded once, to nearest even: just above a
# halfway point rounds up (rounding through f32 first would give 1), a tie goes
# to the even neighbour.
cat >"$tmp/half.vyre" <<'V'
(program half (workgroup 1 1 1)
  (buffer h 0 read f16 0)
  (buffer g 1 read bf16 0)
  (buffer o 2 output f32 4)
  (store o 0 (load h 0))
  (store o 1 (load g 0))
  (store o 2 (load h 1))
  (store o 3 (load g 1)))
V
expect_out half-rounding "o: 1.0009766 1.0078125 1 1" "$VYRE" run "$tmp/half.vyre" \
  --input h=1.0004882813,1.00048828125 --input g=1.0039062501,1.00390625

cat >"$tmp/grid.vyre" <<'V'
(program grid (workgroup 2 1 1)
  (buffer o 0 output u32 6)
  (store o (gid x) (add (gid x) 1)))
V
expect_out grid-default "o: 1 2 3 4 5 6" "$VYRE" run "$tmp/grid.vyre"
expect_out grid-override "o: 1 2 0 0 0 0" "$VYRE" run "$tmp/grid.vyre" --grid 1,1,1

for f in "$DATA"/*.vyre; do
  case "$(basename "$f")" in
    invalid_*) expect_fail "check-$(basename "$f")" 2 "V0" "$VYRE" check "$f" ;;
    *) if "$VYRE" check "$f"; then echo "ok   check-$(basename "$f")"; else echo "FAIL check $f"; fails=$((fails+1)); fi ;;
  esac
done

# the example programs of test/data/ir, with the outputs their comments state
expect_out data-xor "out: 5 7 5 3" "$VYRE" run "$DATA/xor.vyre" --input a=1,2,3,4 --input b=4,5,6,7
expect_out data-fill "dst: 7 7 7 7 7 7 7 7" "$VYRE" run "$DATA/fill_op.vyre"
expect_out data-histogram "bins: 0 2 1 3 0 0 0 0 0 0 0 0 0 0 0 0
biggest: 35" "$VYRE" run "$DATA/histogram.vyre" --input values=1,17,2,3,3,35
expect_out data-nested "out: 0 0 1 6 12 34 57 84" "$VYRE" run "$DATA/nested_loops.vyre"
expect_out data-reduce "total: 55" "$VYRE" run "$DATA/reduce_sum.vyre" --input in=1,2,3,4,5,6,7,8,9,10
expect_out data-saxpy "y: 2.5 4.5 6.5" "$VYRE" run "$DATA/saxpy.vyre" --input x=1,2,3 --input y=0.5,0.5,0.5 --input alpha=2
expect_fail data-invalid 2 "V017" "$VYRE" run "$DATA/invalid_store_to_read.vyre" --input a=1

printf '(program bad (workgroup 1 1 1)\n  (buffer a 0 read u32 0)\n  (store a 0 1))\n' >"$tmp/bad.vyre"
expect_fail invalid-program 2 "V0" "$VYRE" run "$tmp/bad.vyre" --input a=1
printf '(program broken (workgroup 1 1 1)\n  (buffer a 0 read u32 0\n' >"$tmp/broken.vyre"
expect_fail parse-error 2 "broken.vyre:" "$VYRE" run "$tmp/broken.vyre"
expect_fail missing-input 2 "missing --input for buffer 'b'" "$VYRE" run "$tmp/xor.vyre" --input a=1,2,3,4
expect_fail grid-beyond-limits 2 "exceeds the backend's maximum of 65535" "$VYRE" run "$tmp/xor.vyre" --grid 1,65536,1 --input a=1,2,3,4 --input b=4,4,4,4
expect_write_error write-error-run "$VYRE" run "$tmp/xor.vyre" --input a=1,2,3,4 --input b=4,4,4,4
expect_write_error write-error-fmt "$VYRE" fmt "$tmp/xor.vyre"
expect_write_error write-error-help "$VYRE" --help
expect_fail check-no-file 2 "takes one FILE" "$VYRE" check
expect_fail fmt-extra 2 "takes one FILE and no options" "$VYRE" fmt "$tmp/xor.vyre" --backend cpu
expect_fail backends-extra 2 "takes no arguments" "$VYRE" backends extra
expect_fail unknown-input 2 "no buffer 'zz'" "$VYRE" run "$tmp/xor.vyre" --input zz=1
expect_fail bad-values 2 "neither a list" "$VYRE" run "$tmp/xor.vyre" --input a=1,x --input b=1
expect_fail directory-input 2 "neither a list" "$VYRE" run "$tmp/xor.vyre" --input a="$tmp" --input b=1
expect_fail size-mismatch 2 "not a multiple" "$VYRE" run "$tmp/xor.vyre" --input "a=$tmp/broken.vyre" --input b=1
# An endless program stops at the step budget with status 1 and says so.
printf '(program spin (workgroup 1 1 1)\n  (buffer out 0 output u32 1)\n  (loop a 0 4294967295 (loop b 0 4294967295 (store out 0 b))))\n' >"$tmp/spin.vyre"
for be in cpu-ref cpu; do
  expect_fail "step-budget-$be" 1 "exceeded its step budget of 100000" "$VYRE" run "$tmp/spin.vyre" --backend "$be" --step-budget 100000
done
expect_out step-budget-zero-is-none "out: 0 0 1 6 12 34 57 84" "$VYRE" run "$DATA/nested_loops.vyre" --step-budget 0
expect_fail step-budget-bad 2 "step-budget needs a count" "$VYRE" run "$DATA/nested_loops.vyre" --step-budget many
expect_fail unknown-backend 2 "no backend called 'nope'" "$VYRE" run "$tmp/xor.vyre" --backend nope --input a=1 --input b=1
expect_fail no-file 2 "cannot read" "$VYRE" run "$tmp/none.vyre"
# A wrong-sized input is status 2 on every backend, cuda too (with no device, the input is
# still the error that is reported; a build without cuda says so, also with 2).
printf '(program io (workgroup 1 1 1)\n  (buffer a 0 read u32 3)\n  (buffer o 1 output u32 2))\n' >"$tmp/io.vyre"
for b in cpu-ref cpu cuda; do
  "$VYRE" run "$tmp/io.vyre" --backend $b --input a=1,2 >"$tmp/out" 2>"$tmp/err"; rc=$?
  check "wrong-sized input on $b: status 2" "$([ $rc = 2 ] && echo 0 || echo 1)" "status $rc: $(cat "$tmp/err")"
done
# A directory where a file belongs: a diagnostic and status 2, not an abort.
mkdir -p "$tmp/adir"
for cmd in run check fmt; do
  expect_fail "directory as the program ($cmd)" 2 "cannot read" "$VYRE" $cmd "$tmp/adir"
done

# --help and --version: stdout, status 0, nothing on stderr; no command is a usage error
for args in "--help" "-h" "help" "run --help" "check --help" "fmt -h" "backends --help"; do
  # shellcheck disable=SC2086
  out=$("$VYRE" $args 2>"$tmp/err"); rc=$?
  if [ $rc -eq 0 ] && grep -q "^usage: vyre run PROGRAM.vyre" <<<"$out" && [ ! -s "$tmp/err" ]; then echo "ok   help-${args// /_}"
  else echo "FAIL help-${args// /_}: rc=$rc, stdout: $out, stderr: $(cat "$tmp/err")"; fails=$((fails+1)); fi
done
expect_out version "vyre $VERSION" "$VYRE" --version
expect_fail no-args 2 "usage: vyre run" "$VYRE"

# ---- two programs: vyre and vyre-full -----------------------------------------
# Where the build has the cuda backend, `vyre` does not link the CUDA runtime
# (its loading cost every start ~40 ms) and hands `backends` and `run --backend
# cuda` to vyre-full beside it (src/vyre_cli.cpp).
full="$(dirname "$VYRE")/vyre-full"
if [ -x "$full" ]; then
  needed=$(readelf -d "$VYRE" | grep NEEDED)
  ! grep -qiE 'cuda|nvrtc' <<<"$needed"
  check vyre-links-no-cuda $? "vyre needs: $needed"
  readelf -d "$full" | grep NEEDED | grep -qiE 'cuda'
  check vyre-full-links-cuda $? "vyre-full does not need the cuda library"
  # handed over: vyre-full's own answers, with the same arguments
  for args in "backends" "run $tmp/xor.vyre --input a=1,2,3,4 --backend cuda --input b=4,4,4,4"; do
    # shellcheck disable=SC2086
    "$VYRE" $args >"$tmp/hv_out" 2>"$tmp/hv_err"; sv=$?
    # shellcheck disable=SC2086
    "$full" $args >"$tmp/hf_out" 2>"$tmp/hf_err"; sf=$?
    [ "$sv" -eq "$sf" ] && cmp -s "$tmp/hv_out" "$tmp/hf_out" && cmp -s "$tmp/hv_err" "$tmp/hf_err"
    check "handover-${args%% *}" $? "vyre: status $sv, $(cat "$tmp/hv_err"); vyre-full: status $sf, $(cat "$tmp/hf_err")"
  done
  "$VYRE" backends | grep -q '^backend: cuda'
  check handover-backends-lists-cuda $? "vyre backends does not list cuda"
  # without vyre-full beside it: status 2 and a message that names it; the host backends still run
  mkdir "$tmp/alone" && cp "$VYRE" "$tmp/alone/vyre"
  expect_fail handover-missing-full 2 "cannot run \"$tmp/alone/vyre-full\": No such file" "$tmp/alone/vyre" backends
  expect_out handover-not-needed "out: 5 6 7 0" "$tmp/alone/vyre" run "$tmp/xor.vyre" --backend cpu --input a=1,2,3,4 --input b=4,4,4,4
else
  echo "ok   vyre-is-whole (no vyre-full in this build: no cuda)"
fi
finish
