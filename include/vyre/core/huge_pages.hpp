#pragma once
/// \file vyre/core/huge_pages.hpp
/// Large fresh allocations that are filled at once (a file read into memory,
/// the arrays a loader or a solver fills) pay one page fault per 4 KiB page
/// they touch; on virtual machines a fault costs microseconds, which can
/// dominate a loader. On Linux, these helpers ask the kernel for transparent
/// huge pages (2 MiB: one fault instead of 512) where it allows them
/// (`/sys/kernel/mm/transparent_hugepage/enabled` is `always` or `madvise`)
/// and where a huge page is the cheaper of the two here (`huge_pages_pay`:
/// measured once per process, or chosen with `VYRE_HUGE_PAGES`). They are
/// hints: elsewhere, or when the kernel declines, nothing changes.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace vyre::detail {

/// The huge-page size the hints align to.
inline constexpr std::size_t huge_page_bytes = std::size_t{1} << 21;

/// Sizes from which the hints below are given (smaller regions are left alone).
inline constexpr std::size_t huge_hint_min_bytes = std::size_t{1} << 20;

/// Linux's `MADV_POPULATE_WRITE` (5.14+), named here for older headers.
inline constexpr int madv_populate_write = 23;

/// Sizes from which `populate_for_write` asks the kernel (below, the call
/// would cost about as much as the few faults it saves).
inline constexpr std::size_t populate_min_bytes = std::size_t{64} << 10;

/// The system's page size (4 KiB unless the kernel says otherwise); read once.
inline std::uintptr_t page_bytes() noexcept {
#if defined(__linux__)
    static const std::uintptr_t bytes = [] {
        const long s = ::sysconf(_SC_PAGESIZE);
        return s > 0 ? static_cast<std::uintptr_t>(s) : std::uintptr_t{4096};
    }();
    return bytes;
#else
    return 4096;
#endif
}

/// The kernel's transparent huge page mode: `always`, `madvise` or `never`
/// (the bracketed word of `/sys/kernel/mm/transparent_hugepage/enabled`),
/// or "" where there is no such setting; read once.
inline const char* thp_mode() noexcept {
#if defined(__linux__)
    static const char* const mode = [] {
        std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
        if (f == nullptr) return "";
        char buf[128] = {};
        const std::size_t got = std::fread(buf, 1, sizeof buf - 1, f);
        std::fclose(f);
        const char* open = got > 0 ? std::strchr(buf, '[') : nullptr;
        const char* close = open != nullptr ? std::strchr(open, ']') : nullptr;
        if (close == nullptr) return "";
        const std::string_view word(open + 1, static_cast<std::size_t>(close - open - 1));
        for (const char* m : {"always", "madvise", "never"})
            if (word == m) return m;
        return "";
    }();
    return mode;
#else
    return "";
#endif
}

/// Whether the system allows transparent huge pages at all (its setting is
/// `always` or `madvise`).
inline bool huge_pages_allowed() noexcept {
    const std::string_view mode = thp_mode();
    return mode == "always" || mode == "madvise";
}

/// The environment variable that chooses whether the huge-page hints below
/// are given: `on` (or `1`), `off` (or `0`), or `auto`, the default (any
/// other value reads as `auto`): given where `huge_pages_pay` measures that
/// fresh 4 KiB pages are slow here (`huge_pages_pay_at`).
inline constexpr const char* huge_pages_env = "VYRE_HUGE_PAGES";

/// Base pages that `probe_page_faults` faults in (2 MiB of 4 KiB pages:
/// more than the kernel keeps on its per-CPU lists of recently freed pages,
/// so that the measure speaks for the next large allocation too).
inline constexpr std::size_t probe_small_pages = 512;

/// From this cost of a fresh base page on (nanoseconds), huge pages pay
/// (`huge_pages_pay_at`). A fault on memory that the machine (or a VM's host)
/// already backs costs 0.3–1.6 µs; one that the host must back first costs
/// 3.5–15 µs (bench/TRIED.md), and there a 2 MiB page saves most of it.
inline constexpr double slow_small_page_ns = 2500;

/// Whether huge pages pay where a fresh base page costs `small_ns`
/// nanoseconds: only where base pages are slow. Where they are fast, the
/// memory they come from is already backed while a huge page needs a free
/// 2 MiB block, which a VM's host may have to back first: on the VM of
/// 2026-12-03 a base page cost 0.7–1.6 µs and a huge page 4.6–5.1 ms, 7× its
/// 512 base pages, and a command that loads and solves a 27 MB file took
/// 1.21–1.26 s with huge pages against 0.72–0.75 s without. On bare metal a huge page is a
/// little cheaper, but base pages are fast there too, so little is lost.
constexpr bool huge_pages_pay_at(double small_ns) noexcept { return small_ns >= slow_small_page_ns; }

/// Batches that `probe_page_faults` times `probe_small_pages` in.
inline constexpr std::size_t probe_batches = 8;

/// Faults in `probe_small_pages` pages of a fresh anonymous mapping hinted
/// `MADV_NOHUGEPAGE`, once each, in `probe_batches` timed batches, and
/// passes each batch's cost per page (nanoseconds) to `on_batch`, which
/// returns false to stop there; then unmaps them (the pages go back to the
/// free lists, where the next allocations find them backed). Returns false
/// off Linux or when no mapping can be had (`on_batch` never called).
template <class F>
bool probe_page_faults(F&& on_batch) noexcept {
#if defined(__linux__)
    const std::size_t page = page_bytes();
    const std::size_t len = probe_small_pages * page, per_batch = probe_small_pages / probe_batches;
    void* m = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return false;
#if defined(MADV_NOHUGEPAGE)
    (void)::madvise(m, len, MADV_NOHUGEPAGE);  // (base pages, whatever the system's mode)
#endif
    auto* p = static_cast<volatile char*>(m);
    for (std::size_t b = 0; b < probe_batches; ++b) {
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t i = 0; i < per_batch; ++i) p[(b * per_batch + i) * page] = 1;
        const auto t1 = std::chrono::steady_clock::now();
        if (!on_batch(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(per_batch))) break;
    }
    ::munmap(m, len);
    return true;
#else
    (void)on_batch;
    return false;
#endif
}

/// `huge_pages_pay_at` of the lower median of batch costs, decided from the
/// batches seen so far as soon as the rest cannot change it: the median is
/// slow once `probe_batches - lower` batches are (5 of 8), and fast once
/// `lower + 1` are (4 of 8), where `lower` is its index in sorted order.
class probe_decision {
public:
    /// Counts one batch's cost per page (nanoseconds).
    void add(double ns) noexcept { ++(huge_pages_pay_at(ns) ? slow_ : fast_); }
    /// The answer once the batches seen decide it, else nullopt.
    std::optional<bool> decided() const noexcept {
        if (slow_ >= probe_batches - lower) return true;
        if (fast_ >= lower + 1) return false;
        return std::nullopt;
    }

private:
    static constexpr std::size_t lower = (probe_batches - 1) / 2;  ///< the lower median's index
    std::size_t slow_ = 0, fast_ = 0;
};

/// Whether huge pages pay here now: `huge_pages_pay_at` of the lower median
/// of the `probe_page_faults` batches' costs per page (so that a moment in
/// which a VM's host runs something else, which makes one batch slow, does
/// not decide), stopping the probe once `probe_decision` has the answer:
/// where base pages are slow it faults in 5 batches instead of 8 (about
/// 4.5 ms instead of 7 ms at 14 µs a page, paid once by every process that
/// gives huge-page hints), where they are fast 4. False off Linux or when no
/// mapping can be had.
inline bool measure_huge_pages_pay() noexcept {
    probe_decision d;
    const bool probed = probe_page_faults([&](double ns) {
        d.add(ns);
        return !d.decided().has_value();
    });
    return probed && d.decided().value_or(false);
}

/// How a `VYRE_HUGE_PAGES` value reads: 1 for `on`/`1`, 0 for `off`/`0`, -1
/// for `auto` (null, empty, `auto` or anything else).
inline int huge_pages_setting(const char* value) noexcept {
    if (value == nullptr) return -1;
    const std::string_view v(value);
    if (v == "on" || v == "1") return 1;
    if (v == "off" || v == "0") return 0;
    return -1;
}

/// The process's choice (-1: not made yet, 0: no hints, 1: hints), made once
/// by `huge_pages_pay` or told by `remember_huge_pages_pay`.
inline std::atomic<int>& huge_pages_choice() noexcept {
    static std::atomic<int> choice{-1};
    return choice;
}

/// Records the choice without measuring (a program restarted for the
/// huge-page heap, whose first run has just measured, says so).
inline void remember_huge_pages_pay(bool pay) noexcept { huge_pages_choice().store(pay ? 1 : 0); }

/// Whether the huge-page hints of this file are given in this process: never
/// where the system does not allow huge pages; else as `VYRE_HUGE_PAGES`
/// says, and by default (`auto`) where a fresh base page is slow here
/// (`measure_huge_pages_pay()`). Decided once, the first
/// time a hint is about to be given (so small programs never measure).
/// Why measure: which page size is cheaper depends on the machine. On a VM
/// whose host has not backed the guest's memory a fresh 4 KiB page costs
/// 10–15 µs and huge pages paid several times over (measured 2026-11);
/// on a VM whose host backs memory in 4 KiB pages while the guest's small
/// free pages are backed already, they cost 7× what they save (2026-12-03).
inline bool huge_pages_pay() noexcept {
    std::atomic<int>& choice = huge_pages_choice();
    int c = choice.load(std::memory_order_relaxed);
    if (c < 0) {
        if (!huge_pages_allowed()) {
            c = 0;
        } else {
            c = huge_pages_setting(std::getenv(huge_pages_env));
            if (c < 0) c = measure_huge_pages_pay() ? 1 : 0;
        }
        choice.store(c, std::memory_order_relaxed);  // (two threads measuring at once: either answer will do)
    }
    return c == 1;
}

/// The whole pages that [p, p + bytes) touches, as addresses: [first, end).
struct page_span {
    std::uintptr_t first = 0, end = 0;
};
/// `page_span` of [p, p + bytes): rounded outwards to `page_bytes()`.
inline page_span pages_of(const void* p, std::size_t bytes) noexcept {
    const std::uintptr_t page = page_bytes(), a = reinterpret_cast<std::uintptr_t>(p);
    return {a & ~(page - 1), (a + bytes + page - 1) & ~(page - 1)};
}

/// `madvise(advice)` on the whole pages that [p, p + bytes) touches, when it
/// is at least `min_bytes` long; errors are ignored (the callers give hints).
/// The range is rounded outwards to pages, so `advice` must be one that keeps
/// the contents (never `MADV_DONTNEED` or `MADV_FREE`). Does nothing off Linux.
inline void advise_pages(const void* p, std::size_t bytes, std::size_t min_bytes, int advice) noexcept {
#if defined(__linux__)
    if (p == nullptr || bytes < min_bytes) return;
    const page_span s = pages_of(p, bytes);
    (void)::madvise(reinterpret_cast<void*>(s.first), s.end - s.first, advice);
#else
    (void)p;
    (void)bytes;
    (void)min_bytes;
    (void)advice;
#endif
}

/// Hints that the pages of [p, p + bytes) will be filled soon and may be
/// backed by huge pages: the kernel then backs every 2 MiB-aligned block of
/// the mapping that the hinted pages cover wholly. Regions under 1 MiB are
/// left alone. Never fails.
inline void advise_huge_pages(const void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p == nullptr || bytes < huge_hint_min_bytes || !huge_pages_pay()) return;
    advise_pages(p, bytes, huge_hint_min_bytes, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/// The element count to reserve for at least `n` elements of `elem` bytes so
/// that the allocation fills whole huge pages: glibc serves a request of
/// 2 MiB * k - 24 bytes with a mapping of exactly 2 MiB * k (16 bytes of
/// header, page-rounded), and recent Linux places an anonymous mapping whose
/// length is a multiple of 2 MiB on a 2 MiB boundary (seen on 6.18), so all
/// of it can be huge pages instead of the aligned middle only. Elsewhere it
/// only rounds up, by less than 2 MiB. Regions under 1 MiB are not rounded.
inline std::size_t huge_capacity(std::size_t n, std::size_t elem) noexcept {
    if (elem == 0 || elem > 4000 || n > (std::size_t(-1) - huge_page_bytes) / elem) return n;
    const std::size_t bytes = n * elem;
    if (bytes < huge_hint_min_bytes) return n;
    constexpr std::size_t slack = 24;
    const std::size_t k = (bytes + slack + huge_page_bytes - 1) / huge_page_bytes;
    return std::max(n, (k * huge_page_bytes - slack) / elem);
}

/// For storage that starts a few bytes into a 2 MiB-aligned block (as a
/// fresh mapping from `huge_capacity` does): the allocator has already
/// written its header there, so that block was faulted in as 4 KiB pages
/// before the hint; this asks the kernel to make it one huge page now
/// (`MADV_COLLAPSE`, Linux 6.1+), so that filling it faults no more. Only
/// where huge pages pay (`huge_pages_pay`). Never fails.
inline void collapse_first_huge_page(const void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
    constexpr int madv_collapse = 25;  // MADV_COLLAPSE, named here for older headers
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t block = a & ~std::uintptr_t(huge_page_bytes - 1);
    // (the block is the storage's own: it starts within the block's first page and, but for the
    // allocator's few bytes of header and slack, fills it)
    if (p == nullptr || a - block >= page_bytes() || (a - block) + bytes + 64 < huge_page_bytes || !huge_pages_pay()) return;
    (void)::madvise(reinterpret_cast<void*>(block), huge_page_bytes, madv_collapse);
#else
    (void)p;
    (void)bytes;
#endif
}

/// Asks the kernel to back [p, p + bytes) with memory now, as if every page
/// were written (`MADV_POPULATE_WRITE`, Linux 5.14+), for storage that is
/// about to be filled whole: one call instead of a page fault per 4 KiB page
/// (on the benchmark VM a fault costs about 13.6 µs a page, populating
/// 1.2–1.7 µs, and the first touch after it 6.4 µs, so a fill costs about
/// 60% of what it did). Pages already present are left as they are, and so
/// are the contents. Regions under `populate_min_bytes` are left alone. A
/// hint: where the call is not supported or fails, nothing changes. Never fails.
inline void populate_for_write(const void* p, std::size_t bytes) noexcept {
    advise_pages(p, bytes, populate_min_bytes, madv_populate_write);
}

/// Whether the pages of [p, p + bytes) are probably in memory already, so
/// that populating them would save no page faults: true when each of up to
/// `samples` pages spread evenly over the range (first and last included)
/// is resident (`mincore`). Storage that the allocator hands back after a
/// free usually is; a fresh mapping is not. False when it cannot tell (off
/// Linux, or the call fails), so callers then populate as before.
inline bool pages_resident(const void* p, std::size_t bytes, unsigned samples = 8) noexcept {
#if defined(__linux__)
    if (p == nullptr || bytes == 0 || samples == 0) return false;
    const std::uintptr_t page = page_bytes();
    const page_span s = pages_of(p, bytes);
    const std::uintptr_t n = (s.end - s.first) / page;
    for (unsigned i = 0; i < samples; ++i) {
        const std::uintptr_t k = samples == 1 ? 0 : (n - 1) * i / (samples - 1);
        unsigned char in = 0;
        if (::mincore(reinterpret_cast<void*>(s.first + k * page), page, &in) != 0 || (in & 1u) == 0) return false;
    }
    return true;
#else
    (void)p;
    (void)bytes;
    (void)samples;
    return false;
#endif
}

/// How `reserve_huge` and `assign_huge` size fresh storage.
enum class huge_blocks : bool {
    /// As asked: only the 2 MiB blocks that happen to lie wholly inside the
    /// storage can be huge pages, so memory use stays what was asked (the
    /// choice for storage that callers size, such as resident buffers).
    as_asked = false,
    /// Rounded up by `huge_capacity` to whole blocks (where huge pages pay:
    /// else as asked), all of which can be huge
    /// pages, the first one collapsed at once: fewer page faults, for up to
    /// 2 MiB more memory in use (the last block is backed whole once touched).
    /// The choice for arrays filled right away and to the end (a loader's).
    whole = true,
};

/// `v.reserve(n)`, then, where huge pages pay (`huge_pages_pay`), the
/// huge-page hint on the reserved storage when it is fresh (the reservation
/// grew) and, with `huge_blocks::whole`, the reservation rounded up to whole
/// blocks and its first block made a huge page (`collapse_first_huge_page`).
/// Elements keep their values.
template <class T, class A>
void reserve_huge(std::vector<T, A>& v, std::size_t n, huge_blocks blocks = huge_blocks::as_asked) {
    if (n <= v.capacity()) return;
    const bool whole = blocks == huge_blocks::whole && n >= huge_hint_min_bytes / sizeof(T) && huge_pages_pay();
    v.reserve(whole ? huge_capacity(n, sizeof(T)) : n);
    const std::size_t bytes = v.capacity() * sizeof(T);
    if (bytes < huge_hint_min_bytes) return;
    advise_huge_pages(v.data(), bytes);
    if (whole) collapse_first_huge_page(v.data(), bytes);
}

/// `populate_for_write` as a function object: how `assign_huge` populates
/// fresh storage unless told otherwise.
struct populate_on_this_thread {
    void operator()(const void* p, std::size_t bytes) const noexcept { populate_for_write(p, bytes); }
};

/// `v.assign(n, value)` into storage hinted (and with `huge_blocks::whole`,
/// rounded) before it is filled; fresh storage is populated first,
/// `populate(data, bytes)` on the first n elements only, so memory use is
/// the same (`populate_for_write` by default; a caller with threads to
/// spare may spread it over them).
template <class T, class A, class Populate = populate_on_this_thread>
void assign_huge(std::vector<T, A>& v, std::size_t n, const T& value, huge_blocks blocks = huge_blocks::as_asked,
                 Populate&& populate = {}) {
    if (n > v.capacity()) {
        std::vector<T, A>().swap(v);
        reserve_huge(v, n, blocks);
        populate(static_cast<const void*>(v.data()), n * sizeof(T));
    }
    v.assign(n, value);
}

/// `populate_for_write` over a list of regions, on a thread of its own, in
/// steps of `step_bytes`, while the caller goes on: for storage that the
/// caller reserved and will fill soon, at a time when another core would sit
/// idle (a loader reading declarations on one thread). The caller's later
/// writes then find their pages present instead of faulting each one in
/// (several µs a page on the benchmark VMs). It only asks the kernel for
/// pages, never reads or writes the memory, so it may run while the caller
/// fills the same storage (or even frees it: the call then fails or backs
/// free heap pages, which is harmless). `stop()` (and the destructor) ends
/// it after the step under way. Without threads it does nothing.
class background_populate {
public:
    /// One region: its first byte and its size.
    struct region {
        const void* p;
        std::size_t bytes;
    };
    /// Bytes populated per step (one huge page): how long `stop()` may wait.
    static constexpr std::size_t step_bytes = std::size_t{2} << 20;

    background_populate() = default;
    /// Starts populating `regions` in order (copied), their first `budget`
    /// bytes in all; nothing when none holds `populate_min_bytes` or a thread
    /// cannot be started.
    explicit background_populate(std::vector<region> regions, std::size_t budget = std::size_t(-1)) {
        for (region& r : regions) {
            r.bytes = std::min(r.bytes, budget);
            budget -= r.bytes;
        }
        std::erase_if(regions, [](const region& r) { return r.p == nullptr || r.bytes < populate_min_bytes; });
        if (regions.empty()) return;
        try {
            worker_ = std::thread([this, rs = std::move(regions)] {
                for (const region& r : rs)
                    for (std::size_t at = 0; at < r.bytes; at += step_bytes) {
                        if (stop_.load(std::memory_order_relaxed)) return;
                        populate_for_write(static_cast<const char*>(r.p) + at, std::min(step_bytes, r.bytes - at));
                    }
            });
            started_ = true;
        } catch (const std::system_error&) {
            // no thread: the pages fault in as they are written, as without this
        }
    }
    background_populate(const background_populate&) = delete;
    background_populate& operator=(const background_populate&) = delete;
    ~background_populate() { stop(); }

    /// Ends the populating (after the step under way) and waits for it.
    void stop() noexcept {
        stop_.store(true, std::memory_order_relaxed);
        wait();
    }
    /// Waits until every region is populated (or `stop()` ended it).
    void wait() noexcept {
        if (worker_.joinable()) worker_.join();
    }
    /// Whether a thread was started (false: no region large enough, or no thread to be had).
    bool started() const noexcept { return started_; }

private:
    std::atomic<bool> stop_{false};
    bool started_ = false;
    std::thread worker_;
};

/// A byte buffer for a whole file, uninitialised, growable, move-only. From
/// 1 MiB up (on Linux, where huge pages pay) it is anonymous memory in whole,
/// aligned huge pages, hinted as such, so its capacity is rounded up to 2 MiB.
class byte_buffer {
public:
    byte_buffer() = default;
    /// A buffer of `capacity` bytes; throws `std::bad_alloc` when none can be had.
    explicit byte_buffer(std::size_t capacity) { allocate(capacity); }
    byte_buffer(byte_buffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), cap_(std::exchange(o.cap_, 0)), mapped_(o.mapped_) {}
    byte_buffer& operator=(byte_buffer&& o) noexcept {
        if (this != &o) {
            release();
            data_ = std::exchange(o.data_, nullptr);
            cap_ = std::exchange(o.cap_, 0);
            mapped_ = o.mapped_;
        }
        return *this;
    }
    byte_buffer(const byte_buffer&) = delete;
    byte_buffer& operator=(const byte_buffer&) = delete;
    ~byte_buffer() { release(); }

    /// The bytes.
    char* data() noexcept { return data_; }
    /// Bytes available.
    std::size_t capacity() const noexcept { return cap_; }
    /// Grows to at least `capacity` bytes, keeping the first `keep` bytes.
    void grow(std::size_t capacity, std::size_t keep) {
        byte_buffer bigger(capacity);
        if (keep) std::memcpy(bigger.data_, data_, keep);
        *this = std::move(bigger);
    }

private:
    void allocate(std::size_t capacity) {
        if (capacity == 0) capacity = 1;
        if (capacity > (std::size_t(-1) >> 1)) throw std::bad_alloc();  // no rounding overflow below
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (capacity >= huge_page_bytes / 2 && huge_pages_pay()) {
            // whole huge pages: map one more, keep the aligned part, hint all of it
            const std::size_t rounded = (capacity + huge_page_bytes - 1) & ~(huge_page_bytes - 1);
            void* m = ::mmap(nullptr, rounded + huge_page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED) throw std::bad_alloc();
            const auto a = reinterpret_cast<std::uintptr_t>(m);
            const std::uintptr_t b = (a + huge_page_bytes - 1) & ~std::uintptr_t(huge_page_bytes - 1);
            if (b > a) ::munmap(m, b - a);
            if (const std::uintptr_t tail = a + rounded + huge_page_bytes - (b + rounded); tail > 0)
                ::munmap(reinterpret_cast<void*>(b + rounded), tail);
            data_ = reinterpret_cast<char*>(b);
            cap_ = rounded;
            mapped_ = true;
            (void)::madvise(data_, cap_, MADV_HUGEPAGE);
            return;
        }
#endif
        data_ = new char[capacity];
        cap_ = capacity;
        mapped_ = false;
    }
    void release() noexcept {
        if (data_ == nullptr) return;
#if defined(__linux__)
        if (mapped_) {
            ::munmap(data_, cap_);
            data_ = nullptr;
            return;
        }
#endif
        delete[] data_;
        data_ = nullptr;
    }
    char* data_ = nullptr;
    std::size_t cap_ = 0;
    bool mapped_ = false;
};

} // namespace vyre::detail
