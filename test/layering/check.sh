#!/usr/bin/env bash
# vyre is a general compute library and weir one of its clients: the
# dependency runs one way (design.md). Nothing of vyre (its headers, its CLI,
# the cuda backend and its kernels) may mention IFDS, IDE, LLVM or weir.
# Usage: check.sh SOURCE_ROOT
set -u
root=${1:?usage: check.sh SOURCE_ROOT}
hits=$(grep -rniE '\bifds|weir|\bide\b|llvm' "$root/include/vyre" "$root/src/vyre_cli.cpp" "$root/src/cuda" "$root/kernels")
if [ -n "$hits" ]; then
  echo "$hits"
  echo "vyre must not mention its clients (IFDS, IDE, LLVM, weir): move this code or wording to weir" >&2
  exit 1
fi
echo "vyre mentions none of its clients"
