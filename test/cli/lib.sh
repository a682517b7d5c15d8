# Shared by the CLI tests: a scratch folder, a failure count, and the checks.
# Source it after `set -u`; end the test with `finish`.
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_out() { # name expected-stdout command...
  local name=$1 want=$2; shift 2
  local got
  got=$("$@" 2>"$tmp/err"); local rc=$?
  if [ $rc -ne 0 ] || [ "$got" != "$want" ]; then
    echo "FAIL $name: rc=$rc"; echo " want: $want"; echo "  got: $got"; cat "$tmp/err"; fails=$((fails+1))
  else echo "ok   $name"; fi
}
check() { # name condition-status message
  if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1: $3"; fails=$((fails+1)); fi
}
expect_fail() { # name status stderr-fragment command...
  local name=$1 want_rc=$2 frag=$3; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne "$want_rc" ] || ! grep -q -- "$frag" "$tmp/err" || [ -s "$tmp/out" ]; then
    echo "FAIL $name: rc=$rc (want $want_rc), stderr:"; cat "$tmp/err"; echo "stdout:"; cat "$tmp/out"; fails=$((fails+1))
  else echo "ok   $name"; fi
}
expect_write_error() { # name command... : stdout on a full disk, then closed: status 2, a message
  local name=$1; shift
  local rc1 rc2
  "$@" >/dev/full 2>"$tmp/err_full"; rc1=$?
  "$@" >&- 2>"$tmp/err_closed"; rc2=$?
  if [ $rc1 -ne 2 ] || [ $rc2 -ne 2 ] || ! grep -q "cannot write the output" "$tmp/err_full" ||
     ! grep -q "cannot write the output" "$tmp/err_closed"; then
    echo "FAIL $name: /dev/full rc=$rc1, closed rc=$rc2 (want 2 and 2), stderr:"; cat "$tmp/err_full" "$tmp/err_closed"
    fails=$((fails+1))
  else echo "ok   $name"; fi
}
# 0 when glibc (2.35+) and the kernel's transparent huge pages (in madvise
# mode, the only one where glibc's hugetlb tunable does anything) let
# vyre::use_huge_page_heap restart a program with its heap in huge pages.
huge_heap_able() {
  local thp=/sys/kernel/mm/transparent_hugepage/enabled glibc
  glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')
  [ "$(uname -s)" = Linux ] && [ -r "$thp" ] && grep -q '\[madvise\]' "$thp" &&
    awk -v v="${glibc:-0}" 'BEGIN { split(v, a, "."); exit !(a[1] > 2 || (a[1] == 2 && a[2] >= 35)) }'
}
finish() {
  echo "$fails failures"
  [ "$fails" -eq 0 ]
}
