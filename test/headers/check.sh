#!/usr/bin/env bash
# Every public header compiles on its own (a user includes just the one it
# needs): a translation unit of `#include <HEADER>` alone, for each header
# under INCLUDE_DIR. The weir/llvm/ headers need LLVM's (LLVM_INCLUDE_DIR,
# empty when LLVM was not found: they are skipped then).
#   usage: check.sh INCLUDE_DIR LLVM_INCLUDE_DIR COMPILER...
set -u
inc=$1 llvm_inc=$2; shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checked=0 failed=0 skipped=0
while IFS= read -r h; do
  rel=${h#"$inc"/}
  extra=()
  case "$rel" in
    weir/llvm/*)
      if [ -z "$llvm_inc" ]; then skipped=$((skipped + 1)); continue; fi
      extra=(-isystem "$llvm_inc") ;;
  esac
  printf '#include <%s>\n' "$rel" > "$tmp/t.cpp"
  if ! out=$("$@" -std=c++20 -fsyntax-only -I"$inc" "${extra[@]}" "$tmp/t.cpp" 2>&1); then
    echo "FAIL: <$rel> does not compile on its own:"
    grep -m 5 'error' <<<"$out"
    failed=$((failed + 1))
  fi
  checked=$((checked + 1))
done < <(find "$inc" -name '*.hpp' | sort)
echo "$((checked - failed)) of $checked headers compile on their own ($skipped weir/llvm headers skipped: no LLVM)"
[ "$checked" -gt 0 ] && [ "$failed" -eq 0 ]
