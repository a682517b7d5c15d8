#!/usr/bin/env bash
# Builds the libFuzzer targets and runs each for a while; `./run fuzz` calls it.
#   test/fuzz/fuzz.sh [SECONDS] [TARGET...]
# SECONDS per target (default 60); TARGETs from: ir ifds_load ifds_solve
# llvm_config llvm_ir (default all; the llvm_ ones need LLVM 14, llvm-14-dev).
# Builds into build-fuzz/ (FUZZ_DIR), fuzzes a scratch corpus
# build-fuzz/corpus/TARGET seeded from test/fuzz/corpus/TARGET and
# test/fuzz/regressions/TARGET (nothing new is written under test/), and
# writes crashing inputs to build-fuzz/artifacts/TARGET/. Ends with
# "fuzz: N targets, N runs, N crashes"; exits 1 when a target crashed.
set -euo pipefail
cd "$(dirname "$0")/../.."

FUZZ_DIR=${FUZZ_DIR:-build-fuzz}
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(ir ifds_load ifds_solve llvm_config llvm_ir)
case "$secs" in
  ''|*[!0-9]*) echo "fuzz: SECONDS must be a whole number, got '$secs'" >&2; exit 2 ;;
esac

# Debian packages the fuzz build needs (beyond ./run's), and a file each provides (globs allowed).
declare -A FUZZ_NEED=(
  [clang]=/usr/bin/clang++
  [libclang-rt-14-dev]='/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a'
)

ensure_fuzz_deps() {
  local missing=()
  for pkg in "${!FUZZ_NEED[@]}"; do
    compgen -G "${FUZZ_NEED[$pkg]}" >/dev/null || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "fuzz: missing Debian packages: ${missing[*]}" >&2
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"; else
      echo "fuzz: not root and no password-less sudo; install them with:" >&2
      echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# The dictionary of a target.
dict_of() {
  case "$1" in
    ir) echo test/fuzz/ir.dict ;;
    llvm_config) echo test/fuzz/json.dict ;;
    llvm_ir) echo test/fuzz/llvm_ir.dict ;;
    *) echo test/fuzz/ifds.dict ;;
  esac
}

# The compiler flags of every fuzz object and link (clang, libFuzzer, ASan + UBSan;
# -g1: line tables, enough for the sanitizers' stack traces).
FUZZ_CXXFLAGS=(-std=c++20 -O1 -g1 -ffp-contract=off -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)

# True when build-fuzz/fuzz_TARGET is missing or older than a source it uses.
stale() {
  local bin="$FUZZ_DIR/fuzz_$1"
  [ ! -x "$bin" ] || [ -n "$(find include src/llvm test/fuzz test/support -newer "$bin" -type f -print -quit)" ]
}

# Builds the stale targets among "$@": every translation unit compiled once
# (the LLVM frontend's sources are shared by the llvm_ targets) on all
# cores, then each target linked (the llvm_ ones against LLVM 14, which is
# not instrumented).
build_targets() {
  local t todo=() llvm=0 jobs=()
  for t in "$@"; do stale "$t" && todo+=("$t"); done
  [ ${#todo[@]} -eq 0 ] && return 0
  echo "fuzz: building ${todo[*]/#/$FUZZ_DIR/fuzz_}" >&2
  mkdir -p "$FUZZ_DIR/obj/llvm"
  for t in "${todo[@]}"; do
    jobs+=("test/fuzz/${t}_fuzz.cpp" "$FUZZ_DIR/obj/${t}_fuzz.o")
    case "$t" in llvm_*) llvm=1 ;; esac
  done
  local llvm_inc=() llvm_objs=() src
  if [ "$llvm" -eq 1 ]; then
    llvm_inc=(-I"$(llvm-config-14 --includedir)")
    for src in src/llvm/*.cpp; do
      llvm_objs+=("$FUZZ_DIR/obj/llvm/$(basename "${src%.cpp}").o")
      jobs+=("$src" "${llvm_objs[-1]}")
    done
  fi
  # (pairs SOURCE OBJECT, which xargs appends to the compiler's command, as
  # many compilers at once as cores)
  printf '%s\0' "${jobs[@]}" |
    xargs -0 -n 2 -P "$(nproc)" bash -c 'n=$#; exec "${@:1:n-2}" -c "${@:n-1:1}" -o "${@:n:1}"' fuzz_cc \
      clang++ "${FUZZ_CXXFLAGS[@]}" -Iinclude -Itest "${llvm_inc[@]}" ||
    { echo "fuzz: building failed (the compiler's messages are above)" >&2; exit 1; }
  for t in "${todo[@]}"; do
    local extra=()
    case "$t" in
      llvm_*) extra=("${llvm_objs[@]}" -L"$(llvm-config-14 --libdir)" -lLLVM-14
                     -Wl,-rpath,"$(llvm-config-14 --libdir)") ;;
    esac
    clang++ "${FUZZ_CXXFLAGS[@]}" "$FUZZ_DIR/obj/${t}_fuzz.o" "${extra[@]}" -o "$FUZZ_DIR/fuzz_$t" -pthread
  done
}

ensure_fuzz_deps
mkdir -p "$FUZZ_DIR/logs"
total_runs=0
crashes=0
reports=()
for t in "${targets[@]}"; do
  if [ ! -f "test/fuzz/${t}_fuzz.cpp" ]; then
    echo "fuzz: no target '$t' (test/fuzz/${t}_fuzz.cpp)" >&2
    exit 2
  fi
done
build_targets "${targets[@]}"
for t in "${targets[@]}"; do
  corpus="$FUZZ_DIR/corpus/$t"
  artifacts="$FUZZ_DIR/artifacts/$t"
  log="$FUZZ_DIR/logs/$t.log"
  mkdir -p "$corpus" "$artifacts"
  for seeds in "test/fuzz/corpus/$t" "test/fuzz/regressions/$t"; do
    [ -d "$seeds" ] && find "$seeds" -type f ! -name 'README*' -exec cp -n -t "$corpus" {} +
  done
  echo "fuzz: $t for ${secs}s (log: $log)" >&2
  status=0
  UBSAN_OPTIONS=print_stacktrace=1 timeout $((secs + 300)) "$FUZZ_DIR/fuzz_$t" \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$(dict_of "$t")" -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  runs=${runs:-0}
  total_runs=$((total_runs + runs))
  echo "fuzz: $t: $runs runs, ${cov:-cov: ?} (libFuzzer coverage), corpus $(find "$corpus" -type f | wc -l) inputs" >&2
  if [ "$status" -ne 0 ]; then
    crashes=$((crashes + 1))
    artifact=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
    tail -n 40 "$log" >&2
    reports+=("fuzz: $t crashed (status $status): ${artifact:-see $log}")
    if [ -n "$artifact" ]; then
      reports+=("  minimise it: $FUZZ_DIR/fuzz_$t -minimize_crash=1 -runs=100000 -exact_artifact_path=$artifact.min $artifact")
      reports+=("  then copy it into test/fuzz/regressions/$t/ with a descriptive name, fix the bug, and check")
      reports+=("  that the fuzz_replay_$t meson test passes")
    fi
  fi
done
for r in "${reports[@]}"; do echo "$r" >&2; done
echo "fuzz: ${#targets[@]} targets, $total_runs runs, $crashes crashes"
[ "$crashes" -eq 0 ]
