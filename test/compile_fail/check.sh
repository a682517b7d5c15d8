#!/usr/bin/env bash
# Compiles FILE, which must fail, and checks that the compiler's message
# contains FRAGMENT (a concept failure must read as a sentence naming the
# missing operation).  usage: check.sh FILE FRAGMENT INCLUDE_DIR COMPILER...
set -u
file=$1 frag=$2 inc=$3; shift 3
if out=$("$@" -std=c++20 -fsyntax-only -I"$inc" "$file" 2>&1); then
  echo "FAIL: $file compiled, but it must not"; exit 1
fi
if ! grep -qF -- "$frag" <<<"$out"; then
  echo "FAIL: the diagnostic does not say: $frag"; echo "$out" | head -40; exit 1
fi
echo "ok: $(grep -F -- "$frag" <<<"$out" | head -1)"
