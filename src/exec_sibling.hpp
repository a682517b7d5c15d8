#pragma once
// How a lean CLI hands a command to its full twin installed beside it
// (`weir` to `weir-full`, `vyre` to `vyre-full`): the twin links the
// libraries the lean program leaves out (LLVM, the CUDA runtime), whose
// loading alone costs a process tens of milliseconds (bench/README.md,
// 2026-12-07).

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string_view>

namespace cli_detail {

/// Replaces this process with `program` from this program's folder (the one
/// `/proc/self/exe` names, whatever argv[0] says; argv[0]'s folder, then
/// PATH, where that link cannot be read), with the same arguments and
/// environment. Returns only when that fails: then it prints
/// `TOOL: cannot run "PATH": REASON (WHY)` on stderr and returns 2.
inline int exec_sibling(std::string_view tool, const char* program, char** argv, std::string_view why) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::string_view arg0 = argv[0] != nullptr ? argv[0] : "";
    std::filesystem::path full = program;
    if (!ec) full = self.parent_path() / full;
    else if (arg0.find('/') != std::string_view::npos) full = std::filesystem::path(arg0).parent_path() / full;
    if (full.has_parent_path()) ::execv(full.c_str(), argv);
    else ::execvp(full.c_str(), argv);
    const int e = errno;  // (exec returns only when it failed)
    std::cerr << tool << ": cannot run " << full << ": " << std::strerror(e) << " (" << why << ")\n";
    return 2;
}

} // namespace cli_detail
