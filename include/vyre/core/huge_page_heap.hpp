#pragma once
/// \file vyre/core/huge_page_heap.hpp
/// `use_huge_page_heap`: for a program's `main` (not for a library), puts
/// the C library's heap in transparent huge pages by restarting the program
/// once with glibc's `glibc.malloc.hugetlb=1` tunable (and a heap that grows
/// in 64 MiB steps, `detail::huge_heap_tunables`).
///
/// Why: a loader or a solver makes many small allocations (a 27 MB text
/// input may give some 250,000 small lists), and each fresh 4 KiB page of
/// the heap costs a page fault; on a virtual machine whose host has not
/// backed the guest's memory a fault costs about 14 µs. There, with the heap
/// in 2 MiB pages, loading such a 27 MB file in a fresh process took
/// 0.21–0.22 s instead of 0.29–0.33 s, and the whole command 1.13–1.28 s
/// instead of 1.59–1.61 s (bench/TRIED.md). Where a huge page costs more than
/// its 512 base pages (a VM measured on 2026-12-03: 1.7× slower end to end
/// with huge pages), the program is not restarted: `detail::huge_pages_pay`
/// decides, by measuring once or by `VYRE_HUGE_PAGES`. Only
/// a whole process can choose this: glibc reads its tunables when the
/// program starts, hence the restart. glibc honours the tunable only where
/// the kernel's transparent huge pages are in `madvise` mode (in `always`
/// mode the heap gets huge pages without it, in `never` mode not at all), so
/// that is the only mode in which the program restarts.

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include <vyre/core/huge_pages.hpp>

#if defined(__linux__) && defined(__GLIBC__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <unistd.h>
#endif

/// 1 where glibc has the `glibc.malloc.hugetlb` tunable (2.35+ on Linux), else 0.
#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#define VYRE_DETAIL_GLIBC_HUGETLB 1
#else
#define VYRE_DETAIL_GLIBC_HUGETLB 0
#endif

namespace vyre {

/// The environment variable that turns `use_huge_page_heap` off (any non-empty value).
inline constexpr const char* default_heap_env = "VYRE_DEFAULT_HEAP";

namespace detail {

/// The value of the last entry `name=VALUE` of a `GLIBC_TUNABLES` string
/// (entries separated by `:`), as written; none when there is no such entry
/// (or `tunables` is null). `name` is given without the `=`.
inline std::optional<std::string_view> last_tunable(const char* tunables, std::string_view name) noexcept {
    if (tunables == nullptr) return std::nullopt;
    std::optional<std::string_view> value;
    for (const char* entry = tunables; *entry != '\0';) {
        const char* end = std::strchr(entry, ':');
        if (end == nullptr) end = entry + std::strlen(entry);
        const std::string_view e(entry, static_cast<std::size_t>(end - entry));
        if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=')
            value = e.substr(name.size() + 1);
        entry = *end == ':' ? end + 1 : end;
    }
    return value;
}

/// The value of the last `glibc.malloc.hugetlb` entry of a `GLIBC_TUNABLES`
/// string: -1 without one, else the value, 0 to 2. Anything else, even what
/// glibc 2.36 would still read (a leading space, hex, trailing characters),
/// reads as 0, the default: this only labels the heap in statistics, and
/// `use_huge_page_heap` leaves any entry of the user's alone.
inline long hugetlb_tunable(const char* tunables) noexcept {
    const std::optional<std::string_view> v = last_tunable(tunables, "glibc.malloc.hugetlb");
    if (!v) return -1;
    long value = 0;
    for (const char digit : *v) {  // decimal digits only, as a number (`01` is 1)
        if (digit < '0' || digit > '9') return 0;
        value = std::min(10 * value + (digit - '0'), 3L);
    }
    return !v->empty() && value <= 2 ? value : 0;
}

/// The tunables that `use_huge_page_heap` adds, each unless the user's
/// `GLIBC_TUNABLES` names it already: the huge-page heap itself, and a heap
/// that grows in steps of 64 MiB (`top_pad`) and keeps blocks of up to 32 MiB
/// (`mmap_threshold`, the most that glibc's own sliding threshold reaches on
/// 64-bit systems) instead of mapping each one afresh. Both make more of the
/// heap's 2 MiB blocks lie wholly inside it when first touched, so that they
/// fault in as one huge page rather than as 4 KiB pages (measured 2026-12-02:
/// 1,200–1,700 page faults fewer when loading a 5 or 27 MB file).
inline constexpr std::string_view huge_heap_tunables[] = {
    "glibc.malloc.hugetlb=1", "glibc.malloc.top_pad=67108864", "glibc.malloc.mmap_threshold=33554432"};

/// `tunables` (which may be null) with the entries of `huge_heap_tunables`
/// that it does not name appended.
inline std::string with_huge_heap_tunables(const char* tunables) {
    std::string out = tunables != nullptr ? tunables : "";
    for (const std::string_view t : huge_heap_tunables) {
        if (last_tunable(tunables, t.substr(0, t.find('='))).has_value()) continue;
        if (!out.empty()) out += ':';
        out += t;
    }
    return out;
}

} // namespace detail

/// True when this process's heap is in huge pages by glibc's tunable (set by
/// `use_huge_page_heap`, or by the user): `glibc.malloc.hugetlb=2`
/// (hugetlbfs pages), or `=1` where the kernel's transparent huge pages are
/// in `madvise` mode (in other modes glibc ignores it), with glibc 2.35+.
inline bool huge_page_heap_active() noexcept {
#if VYRE_DETAIL_GLIBC_HUGETLB
    const long v = detail::hugetlb_tunable(std::getenv("GLIBC_TUNABLES"));
    return v == 2 || (v == 1 && std::string_view(detail::thp_mode()) == "madvise");
#else
    return false;
#endif
}

/// Restarts the running program (`/proc/self/exe`, the same `argv` and
/// environment) with `glibc.malloc.hugetlb=1` added to `GLIBC_TUNABLES`, so
/// that malloc asks for transparent huge pages, and with a heap that grows in
/// large steps (`detail::huge_heap_tunables`; an entry of the user's for the
/// same tunable is kept instead). Call it first in `main`,
/// before any thread starts or any output is written. Returns (and the
/// program goes on as it is) when there is nothing to do or it cannot be
/// done:
/// - `GLIBC_TUNABLES` already has a `glibc.malloc.hugetlb` entry (the
///   user's, or the restart's own);
/// - `VYRE_DEFAULT_HEAP` is set and not empty;
/// - the kernel's transparent huge pages are not in `madvise` mode;
/// - huge pages do not pay here (`detail::huge_pages_pay`: measured, which
///   times 512 fresh base pages, or `VYRE_HUGE_PAGES=off`);
/// - the C library is not glibc 2.35 or later on Linux;
/// - the program runs with elevated privileges (glibc drops the tunable
///   then), was started by running the dynamic loader by hand, is linked
///   statically, or has been restarted once already;
/// - the restart fails (then `GLIBC_TUNABLES` is as it was).
/// The restarted program gets its own name back (`/proc/self/comm`, which
/// the exec set to `exe`). Results do not depend on it. Peak memory grew by 1–3% in
/// the measurements of 2026-12-02 (6–11 MB of 320–800 MiB). Programs that
/// this one starts inherit `GLIBC_TUNABLES`, and with it the huge-page heap.
inline void use_huge_page_heap(char** argv) noexcept {
#if VYRE_DETAIL_GLIBC_HUGETLB
    static bool tried = false;  // one attempt per process
    if (tried || argv == nullptr || argv[0] == nullptr) return;
    tried = true;
    // The restart's marker holds the process id, which exec keeps: a marker
    // inherited from another process does not count. Removed either way, so
    // that programs this one starts may restart themselves.
    constexpr const char* restarted_env = "VYRE_HEAP_RESTARTED";
    const std::string pid = std::to_string(::getpid());
    if (const char* marker = std::getenv(restarted_env)) {
        const bool restarted = pid == marker;
        ::unsetenv(restarted_env);
        if (restarted) {
            // exec named the process after /proc/self/exe ("exe"): give it its own name back (ps, pgrep)
            const char* base = std::strrchr(argv[0], '/');
            ::prctl(PR_SET_NAME, base != nullptr ? base + 1 : argv[0], 0, 0, 0);
            detail::remember_huge_pages_pay(true);  // the first run measured it a moment ago
            return;
        }
    }
    if (const char* off = std::getenv(default_heap_env); off != nullptr && *off != '\0') return;
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    // glibc's hugetlb=1 changes something only in the kernel's madvise mode
    if (detail::hugetlb_tunable(tunables) >= 0 || std::string_view(detail::thp_mode()) != "madvise") return;
    // Privileged (setuid, capabilities): glibc ignores the tunable. AT_BASE 0:
    // no dynamic loader was mapped for this program, i.e. the program was run
    // as `ld.so ./program` (where /proc/self/exe is the loader) or is static
    // (left alone too, though it would read the tunable).
    if (::getauxval(AT_SECURE) != 0 || ::getauxval(AT_BASE) == 0) return;
    // only where huge pages are the cheaper here (measured, or VYRE_HUGE_PAGES)
    if (!detail::huge_pages_pay()) return;
    std::string old;
    const bool had = tunables != nullptr;
    auto restore = [&] {  // the environment as it was
        (void)(had ? ::setenv("GLIBC_TUNABLES", old.c_str(), 1) : ::unsetenv("GLIBC_TUNABLES"));
        ::unsetenv(restarted_env);
    };
    try {
        if (had) old = tunables;
        const std::string value = detail::with_huge_heap_tunables(tunables);
        if (::setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
        if (::setenv(restarted_env, pid.c_str(), 1) != 0) {
            restore();
            return;
        }
    } catch (...) {
        return;
    }
    ::execv("/proc/self/exe", argv);
    restore();  // the restart failed: go on with the heap and the environment as they were
#else
    (void)argv;
#endif
}

} // namespace vyre
