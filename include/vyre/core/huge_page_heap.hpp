#pragma once
/// \file vyre/core/huge_page_heap.hpp
/// `use_huge_page_heap`: for a program's `main` (not for a library), puts
/// the C library's heap in transparent huge pages by restarting the program
/// once with glibc's `glibc.malloc.hugetlb=1` tunable.
///
/// Why: a loader or a solver makes many small allocations (a `.ifds` file of
/// 27 MB gives some 250,000 flow-function lists), and each fresh 4 KiB page
/// of the heap costs a page fault; on a virtual machine a fault costs about
/// 14 µs. With the heap in 2 MiB pages, loading the 27 MB benchmark file in
/// a fresh `weir solve` took 0.19–0.34 s instead of 0.28–0.50 s, and the
/// whole command 1.18–1.67 s instead of 1.87–2.07 s (bench/README.md). Only
/// a whole process can choose this: glibc reads its tunables when the
/// program starts, hence the restart.

#include <cstdlib>
#include <cstring>
#include <string>

#include <vyre/core/huge_pages.hpp>

#if defined(__linux__) && defined(__GLIBC__)
#include <unistd.h>
#endif

namespace vyre {

/// The environment variable that turns `use_huge_page_heap` off (any non-empty value).
inline constexpr const char* default_heap_env = "VYRE_DEFAULT_HEAP";

/// True when this process's heap was asked for huge pages: `GLIBC_TUNABLES`
/// sets `glibc.malloc.hugetlb` to a value other than 0 (by
/// `use_huge_page_heap`, or by the user) and the C library is glibc 2.35+.
inline bool huge_page_heap_active() noexcept {
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables == nullptr) return false;
    constexpr const char* key = "glibc.malloc.hugetlb=";
    const char* at = nullptr;
    for (const char* p = std::strstr(tunables, key); p != nullptr; p = std::strstr(p + 1, key)) at = p;  // the last one counts
    return at != nullptr && at[std::strlen(key)] != '\0' && at[std::strlen(key)] != '0';
#else
    return false;
#endif
}

/// Restarts the running program (`/proc/self/exe`, the same `argv` and
/// environment) with `glibc.malloc.hugetlb=1` added to `GLIBC_TUNABLES`, so
/// that malloc asks for transparent huge pages. Call it first in `main`,
/// before any thread starts or any output is written. Returns (and the
/// program goes on as it is) when there is nothing to do or it cannot be
/// done: `GLIBC_TUNABLES` already names `glibc.malloc.hugetlb` (set by the
/// user, or by the restart itself), `VYRE_DEFAULT_HEAP` is set (not empty), the kernel
/// does not allow huge pages (`/sys/kernel/mm/transparent_hugepage/enabled`
/// is `never`), the C library is not glibc 2.35 or later on Linux, or the
/// restart fails. Results do not depend on it; memory use grows by at most
/// a few MiB (the heap's last huge page).
inline void use_huge_page_heap(char** argv) noexcept {
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
    if (argv == nullptr || argv[0] == nullptr) return;
    if (const char* off = std::getenv(default_heap_env); off != nullptr && *off != '\0') return;
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.hugetlb") != nullptr) return;
    if (!detail::huge_pages_allowed()) return;
    try {
        std::string value = tunables != nullptr && *tunables ? std::string(tunables) + ":" : std::string();
        value += "glibc.malloc.hugetlb=1";
        if (::setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
    } catch (...) {
        return;
    }
    ::execv("/proc/self/exe", argv);
    // The restart failed: go on with the heap as it is. GLIBC_TUNABLES now
    // names the tunable, so a later call does not try again.
#else
    (void)argv;
#endif
}

} // namespace vyre
