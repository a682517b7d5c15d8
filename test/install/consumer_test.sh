#!/usr/bin/env bash
# Installs the project into a scratch prefix (meson install --destdir) and
# builds a small consumer against it twice: through the CMake package
# (find_package(vyre)) and through pkg-config. Exit 77 (skip) without cmake.
set -eu
BUILD=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$BUILD" --no-rebuild --quiet --destdir "$tmp/root" >/dev/null
prefix=$(meson introspect "$BUILD" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
root="$tmp/root$prefix"

mkdir -p "$tmp/app"
cat >"$tmp/app/main.cpp" <<'CPP'
#include <vyre/vyre.hpp>
#include <weir/weir.hpp>
int main() {
    auto p = vyre::ir::parse("(program t (workgroup 1 1 1)\n  (buffer o 0 output u32 1)\n  (store o 0 7))\n");
    vyre::cpu_ref b;
    auto out = vyre::dispatch(b, *p, {});
    auto pb = weir::ifds::load_problem("ifds 1\nproc m s e\nflow s e id\nseed s 0\n");
    return (out && (*out)[0][0] == 7 && pb) ? 0 : 1;
}
CPP
cat >"$tmp/app/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(consumer CXX)
find_package(vyre REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE vyre::vyre)
CM
if command -v cmake >/dev/null; then
  cmake -S "$tmp/app" -B "$tmp/app/build" -DCMAKE_PREFIX_PATH="$root" -DCMAKE_BUILD_TYPE=Debug >/dev/null
  cmake --build "$tmp/app/build" >/dev/null
  "$tmp/app/build/consumer"
  echo "ok   cmake consumer"
else
  echo "SKIP cmake consumer: cmake not installed"; exit 77
fi
pcdir=$(dirname "$(find "$root" -name vyre.pc | head -n1)")
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs vyre)
g++ $flags "$tmp/app/main.cpp" -o "$tmp/app/pc_consumer"
"$tmp/app/pc_consumer"
echo "ok   pkg-config consumer ($flags)"

# The LLVM frontend, where it was built: a consumer through pkg-config
# (weir-llvm.pc) and through the CMake target vyre::weir-llvm.
llvm_pc=$(find "$root" -name weir-llvm.pc | head -n1)
if [ -n "$llvm_pc" ]; then
  libdir=$(dirname "$(find "$root" -name 'libweir-llvm.so' | head -n1)")
  cat >"$tmp/app/llvm.cpp" <<'CPP'
#include <weir/llvm/taint_config.hpp>
int main() {
    auto c = weir::llvm::parse_taint_config(R"({"functions": [{"name": "getenv", "ret": "source"}]})", "c.json");
    return c.find("getenv") && c.find("getenv")->ret_source ? 0 : 1;
}
CPP
  flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs weir-llvm)
  g++ $flags "$tmp/app/llvm.cpp" -o "$tmp/app/llvm_pc" $flags
  LD_LIBRARY_PATH="$libdir" "$tmp/app/llvm_pc"
  echo "ok   pkg-config weir-llvm consumer"
  mkdir -p "$tmp/llvmapp"
  cp "$tmp/app/llvm.cpp" "$tmp/llvmapp/main.cpp"
  cat >"$tmp/llvmapp/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(llvm_consumer CXX)
find_package(vyre REQUIRED)
add_executable(llvm_consumer main.cpp)
target_link_libraries(llvm_consumer PRIVATE vyre::weir-llvm)
CM
  cmake -S "$tmp/llvmapp" -B "$tmp/llvmapp/build" -DCMAKE_PREFIX_PATH="$root" -DCMAKE_BUILD_TYPE=Debug >/dev/null
  cmake --build "$tmp/llvmapp/build" >/dev/null
  LD_LIBRARY_PATH="$libdir" "$tmp/llvmapp/build/llvm_consumer"
  echo "ok   cmake vyre::weir-llvm consumer"
fi
