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
expect_fail() { # name status stderr-fragment command...
  local name=$1 want_rc=$2 frag=$3; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne "$want_rc" ] || ! grep -q -- "$frag" "$tmp/err" || [ -s "$tmp/out" ]; then
    echo "FAIL $name: rc=$rc (want $want_rc), stderr:"; cat "$tmp/err"; echo "stdout:"; cat "$tmp/out"; fails=$((fails+1))
  else echo "ok   $name"; fi
}
finish() {
  echo "$fails failures"
  [ "$fails" -eq 0 ]
}
