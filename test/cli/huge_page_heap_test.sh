#!/usr/bin/env bash
# vyre::use_huge_page_heap (vyre/core/huge_page_heap.hpp), through a probe
# program that calls it first in main: where glibc (2.35+) and the kernel
# (transparent huge pages in madvise mode) allow it, the program restarts
# once, as /proc/self/exe, with glibc.malloc.hugetlb=1, top_pad and
# mmap_threshold added to GLIBC_TUNABLES (keeping the tunables and the
# arguments it had; a user's top_pad wins), its heap is advised for huge
# pages, grows in large steps and holds a 1 MiB block, the restart's own
# marker variable is gone and the process keeps its name; VYRE_DEFAULT_HEAP,
# VYRE_HUGE_PAGES=off or a hugetlb tunable of the user's own leave everything
# as it was. The restarts are asked for with VYRE_HUGE_PAGES=on; by default
# (auto) the program restarts exactly when it measured that huge pages pay.
set -u
PROBE=$1
source "$(dirname "$0")/lib.sh"

# What to expect on this machine.
able=0
huge_heap_able && able=1
[ "$able" = 1 ] || echo "note: this C library or kernel rules out the restart; checking that nothing changes"

# The sanitizers' settings (./run sanitize) pass through the clean environment.
san_env=()
for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS MSAN_OPTIONS; do
  [ -n "${!v:-}" ] && san_env+=("$v=${!v}")
done

# probe NAME WANT_RESTART WANT_TUNABLES WANT_HEAP ENV... -- ARGS...: runs the
# probe in a clean environment (env -i) plus ENV and checks what it reports.
# WANT_HEAP is three digits: heap_advised, heap_padded, big_in_heap.
probe() {
  local name=$1 want_r=$2 want_t=$3 want_h=$4; shift 4
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local out
  out=$(env -i PATH="$PATH" "${san_env[@]}" "${envs[@]}" "$PROBE" "$@" 2>&1); local rc=$?
  field() { sed -n "s/^$1=//p" <<<"$out"; }
  local want_a="" want_comm
  for a in "$@"; do want_a+="$a|"; done
  want_comm=$(basename "$PROBE" | cut -c1-15)  # the kernel keeps 15 bytes of a process name
  local got_h
  got_h="$(field heap_advised)$(field heap_padded)$(field big_in_heap)"
  # a sanitizer's own malloc has no glibc heap to shape
  [ "$(field sanitized)" = 1 ] && want_h=$got_h
  if [ $rc -ne 0 ] || [ "$(field restarted)" != "$want_r" ] || [ "$(field tunables)" != "$want_t" ] ||
     [ "$(field args)" != "$want_a" ] || [ "$got_h" != "$want_h" ] || [ -n "$(field marker)" ] ||
     { [ "$(uname -s)" = Linux ] && [ "$(field comm)" != "$want_comm" ]; }; then
    echo "FAIL $name: rc=$rc; want restarted=$want_r tunables=$want_t args=$want_a heap=$want_h marker= comm=$want_comm; got:"
    echo "$out"
    fails=$((fails+1))
  else
    echo "ok   $name"
  fi
}

added=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864:glibc.malloc.mmap_threshold=33554432
if [ "$able" = 1 ]; then
  on=VYRE_HUGE_PAGES=on
  probe "restarts with the tunables, arguments kept" 1 $added 111 $on -- one "two words" ''
  probe "keeps the user's other tunables, and their top_pad" 1 \
    glibc.malloc.top_pad=4096:glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432 101 \
    GLIBC_TUNABLES=glibc.malloc.top_pad=4096 $on -- x
  probe "an empty VYRE_DEFAULT_HEAP does not opt out" 1 $added 111 VYRE_DEFAULT_HEAP= $on -- a
  probe "an inherited restart marker neither stops the restart nor stays" 1 $added 111 \
    VYRE_HEAP_RESTARTED=1 $on -- a
  # auto: restarted (with the hints on) exactly when the measurement said huge pages pay
  out=$(env -i PATH="$PATH" "${san_env[@]}" "$PROBE" a 2>&1)
  r=$(sed -n 's/^restarted=//p' <<<"$out") h=$(sed -n 's/^hints=//p' <<<"$out")
  if { [ "$r" = 1 ] && [ "$h" = 1 ]; } || { [ "$r" = 0 ] && [ "$h" = 0 ]; }; then
    echo "ok   auto: restarted=$r with hints=$h (measured)"
  else
    echo "FAIL auto: want restarted = hints (both 0 or both 1); got:"; echo "$out"; fails=$((fails+1))
  fi
else
  probe "leaves the heap alone where it cannot be done" 0 '' 000 -- one "two words" ''
  probe "an inherited restart marker does not stay" 0 '' 000 VYRE_HEAP_RESTARTED=1 -- a
fi
probe "VYRE_DEFAULT_HEAP opts out" 0 '' 000 VYRE_DEFAULT_HEAP=1 VYRE_HUGE_PAGES=on -- a
probe "VYRE_HUGE_PAGES=off opts out" 0 '' 000 VYRE_HUGE_PAGES=off -- a
probe "the user's own hugetlb tunable wins" 0 glibc.malloc.hugetlb=0 000 GLIBC_TUNABLES=glibc.malloc.hugetlb=0 -- a
probe "the user's own tunable wins among others" 0 glibc.malloc.hugetlb=0:glibc.malloc.top_pad=0 000 \
  GLIBC_TUNABLES=glibc.malloc.hugetlb=0:glibc.malloc.top_pad=0 -- a
finish
