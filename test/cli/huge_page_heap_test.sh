#!/usr/bin/env bash
# vyre::use_huge_page_heap (vyre/core/huge_page_heap.hpp), through a probe
# program that calls it first in main: where glibc (2.35+) and the kernel
# allow it, the program restarts once with glibc.malloc.hugetlb=1 added to
# GLIBC_TUNABLES (keeping the tunables and the arguments it had) and its heap
# is advised for huge pages; VYRE_DEFAULT_HEAP or a hugetlb tunable of the
# user's own leave everything as it was.
set -u
PROBE=$1
source "$(dirname "$0")/lib.sh"

# What to expect on this machine.
able=0
huge_heap_able && able=1
[ "$able" = 1 ] || echo "note: this C library or kernel rules out the restart; checking that nothing changes"

# probe NAME WANT_TUNABLES WANT_ADVISED ENV... -- ARGS...: runs the probe under `env -i` plus ENV.
probe() {
  local name=$1 want_t=$2 want_adv=$3; shift 3
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local out
  out=$(env -i PATH="$PATH" "${envs[@]}" "$PROBE" "$@" 2>&1); local rc=$?
  local got_t got_a got_adv san
  got_t=$(sed -n 's/^tunables=//p' <<<"$out")
  got_a=$(sed -n 's/^args=//p' <<<"$out")
  got_adv=$(sed -n 's/^heap_advised=//p' <<<"$out")
  san=$(sed -n 's/^sanitized=//p' <<<"$out")
  local want_a=""
  for a in "$@"; do want_a+="$a|"; done
  # a sanitizer's own malloc has no glibc heap to advise
  [ "$san" = 1 ] && want_adv=$got_adv
  if [ $rc -ne 0 ] || [ "$got_t" != "$want_t" ] || [ "$got_a" != "$want_a" ] || [ "$got_adv" != "$want_adv" ]; then
    echo "FAIL $name: rc=$rc; want tunables=$want_t args=$want_a heap_advised=$want_adv; got:"; echo "$out"
    fails=$((fails+1))
  else
    echo "ok   $name"
  fi
}

if [ "$able" = 1 ]; then
  probe "restarts with the tunable, arguments kept" glibc.malloc.hugetlb=1 1 -- one "two words" ''
  probe "keeps the user's other tunables" glibc.malloc.top_pad=4096:glibc.malloc.hugetlb=1 1 \
    GLIBC_TUNABLES=glibc.malloc.top_pad=4096 -- x
else
  probe "leaves the heap alone where it cannot be done" '' 0 -- one "two words" ''
fi
probe "VYRE_DEFAULT_HEAP opts out" '' 0 VYRE_DEFAULT_HEAP=1 -- a
if [ "$able" = 1 ]; then
  probe "an empty VYRE_DEFAULT_HEAP does not opt out" glibc.malloc.hugetlb=1 1 VYRE_DEFAULT_HEAP= -- a
fi
probe "the user's own hugetlb tunable wins" glibc.malloc.hugetlb=0 0 GLIBC_TUNABLES=glibc.malloc.hugetlb=0 -- a
finish
