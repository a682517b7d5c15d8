/// \file test/unit/huge_pages_test.cpp
/// The huge-page helpers (vyre/core/huge_pages.hpp) are hints: whatever the
/// kernel does, they must keep the containers' laws. Sizes straddle the 1 MiB
/// threshold and the 2 MiB blocks so that the hinted, rounded and plain paths
/// all run.

#include <catch2/catch.hpp>

#include <vyre/core/huge_page_heap.hpp>
#include <vyre/core/huge_pages.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <numeric>
#include <string>
#include <string_view>
#include <algorithm>
#include <array>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace vyre::detail;

TEST_CASE("hugetlb_tunable reads the last glibc.malloc.hugetlb entry of GLIBC_TUNABLES", "[core][huge_pages]") {
    CHECK(hugetlb_tunable(nullptr) == -1);
    CHECK(hugetlb_tunable("") == -1);
    CHECK(hugetlb_tunable("glibc.malloc.top_pad=4096") == -1);
    CHECK(hugetlb_tunable("glibc.malloc.hugetlb=1") == 1);
    CHECK(hugetlb_tunable("glibc.malloc.hugetlb=0") == 0);
    CHECK(hugetlb_tunable("glibc.malloc.hugetlb=2") == 2);
    CHECK(hugetlb_tunable("glibc.malloc.hugetlb=01") == 1);   // a number, not its first digit
    CHECK(hugetlb_tunable("glibc.malloc.hugetlb=00") == 0);
    CHECK(hugetlb_tunable("glibc.malloc.hugetlb=x") == 0);    // not a value 0..2: the default
    CHECK(hugetlb_tunable("glibc.malloc.hugetlb=") == 0);
    CHECK(hugetlb_tunable("glibc.malloc.hugetlb=3") == 0);    // or what is out of range
    CHECK(hugetlb_tunable("glibc.malloc.hugetlb=-1") == 0);
    CHECK(hugetlb_tunable("glibc.malloc.top_pad=1:glibc.malloc.hugetlb=1") == 1);
    CHECK(hugetlb_tunable("glibc.malloc.hugetlb=1:glibc.malloc.top_pad=1") == 1);
    CHECK(hugetlb_tunable("glibc.malloc.hugetlb=1:glibc.malloc.hugetlb=0") == 0);  // the last one counts
    CHECK(hugetlb_tunable("my.glibc.malloc.hugetlb=1") == -1);                     // whole entries only
    CHECK(hugetlb_tunable("glibc.malloc.hugetlbx=1") == -1);
}

TEST_CASE("with_huge_heap_tunables adds what the user's GLIBC_TUNABLES does not name", "[core][huge_pages]") {
    const std::string all = "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864:glibc.malloc.mmap_threshold=33554432";
    CHECK(with_huge_heap_tunables(nullptr) == all);
    CHECK(with_huge_heap_tunables("") == all);
    CHECK(with_huge_heap_tunables("glibc.malloc.top_pad=4096") ==
          "glibc.malloc.top_pad=4096:glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432");
    CHECK(with_huge_heap_tunables("glibc.malloc.mmap_threshold=1:glibc.malloc.top_pad=2") ==
          "glibc.malloc.mmap_threshold=1:glibc.malloc.top_pad=2:glibc.malloc.hugetlb=1");
    // whole names only
    CHECK(with_huge_heap_tunables("glibc.malloc.top_padx=1") == "glibc.malloc.top_padx=1:" + all);
    CHECK(with_huge_heap_tunables("x.glibc.malloc.top_pad=1") == "x.glibc.malloc.top_pad=1:" + all);
    const auto v = last_tunable("a=1:b=22:a=333", "a");
    REQUIRE(v.has_value());
    CHECK(*v == "333");  // the last entry counts
    CHECK_FALSE(last_tunable("ab=1", "a").has_value());
    CHECK_FALSE(last_tunable(nullptr, "a").has_value());
}

TEST_CASE("thp_mode is the bracketed word of the kernel's setting", "[core][huge_pages]") {
    const std::string_view mode = thp_mode();
    std::string text;
    if (std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r")) {
        char buf[128] = {};
        text.assign(buf, std::fread(buf, 1, sizeof buf - 1, f));
        std::fclose(f);
    }
    if (text.empty()) {
        CHECK(mode.empty());
        CHECK_FALSE(huge_pages_allowed());
        return;
    }
    INFO("setting: " << text);
    CHECK((mode == "always" || mode == "madvise" || mode == "never"));
    CHECK(text.find("[" + std::string(mode) + "]") != std::string::npos);
    CHECK(huge_pages_allowed() == (mode != "never"));
}

TEST_CASE("advise_huge_pages accepts any range, null and unaligned included", "[core][huge_pages]") {
    std::vector<std::uint8_t> v(std::size_t{9} << 20, 7);
    advise_huge_pages(nullptr, std::size_t{1} << 30);
    advise_huge_pages(v.data() + 1, v.size() - 1);
    advise_huge_pages(v.data(), 10);
    CHECK(v.front() == 7);
    CHECK(v.back() == 7);
}

TEST_CASE("populate_for_write keeps contents, for any range, null and unaligned included", "[core][huge_pages]") {
    std::vector<std::uint32_t> v(std::size_t{9} << 18);  // 9 MiB
    std::iota(v.begin(), v.end(), 0u);
    populate_for_write(nullptr, std::size_t{1} << 30);
    populate_for_write(reinterpret_cast<const std::uint8_t*>(v.data()) + 3, v.size() * 4 - 5);
    populate_for_write(v.data(), 10);
    for (std::size_t i = 0; i < v.size(); i += 4099) REQUIRE(v[i] == i);
    CHECK(v.back() == v.size() - 1);
}

#if defined(__linux__)
TEST_CASE("populate_for_write makes fresh pages resident where the kernel has MADV_POPULATE_WRITE",
          "[core][huge_pages]") {
    const std::size_t page = page_bytes(), bytes = std::size_t{4} << 20;
    void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    auto* p = static_cast<std::uint8_t*>(m);
    auto resident = [&](std::size_t from, std::size_t to) {  // pages of [from, to) that are resident
        std::vector<unsigned char> in((to - from) / page);
        REQUIRE(::mincore(p + from, to - from, in.data()) == 0);
        return static_cast<std::size_t>(std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1u; }));
    };
    // The checked range: pages 2 .. 2 + 1 MiB / page (a multiple of the page size on every Linux).
    const std::size_t from = 2 * page, to = from + (std::size_t{1} << 20);
    if (resident(from, to) != 0) {
        WARN("mincore reports untouched pages as resident here: residency not checked");
    } else {
        // Does this kernel know the call? (Linux 5.14+; elsewhere the hint is a no-op.) Asked on
        // the mapping's last page, far from the checked range.
        const bool supported = ::madvise(p + bytes - page, page, madv_populate_write) == 0;
        if (!supported) {
            WARN("MADV_POPULATE_WRITE is not available here: populate_for_write is a no-op, residency not checked");
        } else {
            populate_for_write(p + from, to - from);
            CHECK(resident(from, to) == (to - from) / page);
            CHECK(p[from] == 0);
            CHECK(p[to - 1] == 0);
        }
    }
    ::munmap(m, bytes);
}
#endif

#if defined(__linux__)
TEST_CASE("background_populate backs its regions on another thread, keeping what the caller writes meanwhile",
          "[core][huge_pages]") {
    const std::size_t page = page_bytes(), bytes = std::size_t{8} << 20;
    void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    auto* p = static_cast<std::uint32_t*>(m);
    const std::size_t half = bytes / 2, words = half / 4;
    {
        // two regions, the second (a half of the mapping) written by this thread while the
        // other populates: every value written stays
        background_populate bg({{p, half}, {p + words, half}});
        CHECK(bg.started());
        for (std::size_t i = 0; i < words; ++i) p[words + i] = static_cast<std::uint32_t>(i * 7);
        bg.wait();
        for (std::size_t i = 0; i < words; i += 1021) REQUIRE(p[words + i] == i * 7);
        CHECK(p[2 * words - 1] == (words - 1) * 7);
    }
    // the first region, never written, is resident once populated (where the kernel can)
    const bool supported = ::madvise(p, page, madv_populate_write) == 0;
    if (!supported) {
        WARN("MADV_POPULATE_WRITE is not available here: background_populate is a no-op, residency not checked");
    } else {
        CHECK(pages_resident(p, half, 64));
        CHECK(p[0] == 0);
        CHECK(p[words - 1] == 0);
        // a budget: the first MiB of a fresh mapping backed, nothing after it
        void* f = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        REQUIRE(f != MAP_FAILED);
        auto* q = static_cast<char*>(f);
        background_populate({{q, bytes}}, std::size_t{1} << 20).wait();
        CHECK(pages_resident(q, std::size_t{1} << 20, 16));
        CHECK_FALSE(pages_resident(q + bytes / 2, page, 1));
        CHECK_FALSE(pages_resident(q + bytes - page, page, 1));
        ::munmap(f, bytes);
    }
    ::munmap(m, bytes);
}

TEST_CASE("background_populate: small or null regions start no thread; stop() ends it at once", "[core][huge_pages]") {
    std::vector<char> small(populate_min_bytes - 1);
    CHECK_FALSE(background_populate({{small.data(), small.size()}, {nullptr, std::size_t{1} << 30}}).started());
    CHECK_FALSE(background_populate(std::vector<background_populate::region>{}).started());
    // a budget below populate_min_bytes leaves nothing to do
    std::vector<char> big(std::size_t{4} << 20);
    CHECK_FALSE(background_populate({{big.data(), big.size()}}, populate_min_bytes - 1).started());
    CHECK(background_populate({{big.data(), big.size()}}, populate_min_bytes).started());
    // a 4 GiB reservation that is never used: stop() returns after the step under way, long
    // before the last of its 2048 steps (a populate to the end would take seconds)
    const std::size_t bytes = std::size_t{4} << 30;
    void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    REQUIRE(m != MAP_FAILED);
    background_populate bg({{m, bytes}});
    bg.stop();
    CHECK_FALSE(pages_resident(static_cast<char*>(m) + bytes - page_bytes(), page_bytes(), 1));
    ::munmap(m, bytes);
}
#endif

#if defined(__linux__)
TEST_CASE("pages_resident: false for fresh pages, true once every sampled page is written", "[core][huge_pages]") {
    const std::size_t page = page_bytes(), bytes = std::size_t{1} << 20;
    void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    auto* p = static_cast<std::uint8_t*>(m);
    unsigned char in = 0;
    REQUIRE(::mincore(p, page, &in) == 0);
    if (in & 1u) {
        WARN("mincore reports untouched pages as resident here: pages_resident not checked");
    } else {
        CHECK_FALSE(pages_resident(p, bytes));
        p[0] = 1;  // the first page only: the other samples are still fresh
        CHECK_FALSE(pages_resident(p, bytes));
        p[bytes - 1] = 1;  // first and last, not the middle
        CHECK_FALSE(pages_resident(p, bytes));
        CHECK(pages_resident(p, bytes, 2));  // two samples: first and last page
        std::fill(p, p + bytes, std::uint8_t{2});
        CHECK(pages_resident(p, bytes));
        CHECK(pages_resident(p + 100, bytes - 200));  // an unaligned range inside
        CHECK(pages_resident(p + page / 2, 1, 1));
    }
    CHECK_FALSE(pages_resident(nullptr, bytes));
    CHECK_FALSE(pages_resident(p, 0));
    CHECK_FALSE(pages_resident(p, bytes, 0));
    ::munmap(m, bytes);
}
#endif

TEST_CASE("huge_capacity rounds large reservations up to whole 2 MiB blocks, less the allocator's 24 bytes",
          "[core][huge_pages]") {
    CHECK(huge_capacity(0, 4) == 0);
    CHECK(huge_capacity(1000, 4) == 1000);                             // under 1 MiB: as asked
    CHECK(huge_capacity((huge_hint_min_bytes / 8) - 1, 8) == (huge_hint_min_bytes / 8) - 1);
    CHECK(huge_capacity(5, 0) == 5);                                   // (no size: as asked)
    CHECK(huge_capacity(std::size_t(-1) / 2, 8) == std::size_t(-1) / 2);  // (would overflow: as asked)
    for (std::size_t elem : {std::size_t{1}, std::size_t{8}, std::size_t{12}, std::size_t{88}, std::size_t{4000}}) {
        for (std::size_t bytes : {huge_hint_min_bytes, huge_page_bytes - 24, huge_page_bytes - 23, huge_page_bytes,
                                  std::size_t{5} << 20, (std::size_t{6} << 20) - 24}) {
            const std::size_t n = (bytes + elem - 1) / elem;
            const std::size_t c = huge_capacity(n, elem);
            INFO("elem=" << elem << " n=" << n);
            CHECK(c >= n);
            const std::size_t k = (n * elem + 24 + huge_page_bytes - 1) / huge_page_bytes;  // blocks needed
            CHECK(c * elem + 24 <= k * huge_page_bytes);                  // fits in k blocks with the header
            CHECK((c + 1) * elem + 24 > k * huge_page_bytes);             // and fills them
        }
    }
}

namespace {
/// Restores the process's huge-page choice (`huge_pages_choice`) when a test is done with it.
struct choice_guard {
    int old = huge_pages_choice().load();
    ~choice_guard() { huge_pages_choice().store(old); }
};
} // namespace

TEST_CASE("huge_pages_setting reads VYRE_HUGE_PAGES: on/1, off/0, else auto", "[core][huge_pages]") {
    CHECK(huge_pages_setting("on") == 1);
    CHECK(huge_pages_setting("1") == 1);
    CHECK(huge_pages_setting("off") == 0);
    CHECK(huge_pages_setting("0") == 0);
    CHECK(huge_pages_setting(nullptr) == -1);
    CHECK(huge_pages_setting("") == -1);
    CHECK(huge_pages_setting("auto") == -1);
    CHECK(huge_pages_setting("yes") == -1);  // anything else: auto
    CHECK(huge_pages_setting("ON") == -1);
    CHECK(huge_pages_setting("10") == -1);
}

TEST_CASE("huge_pages_pay_at: huge pages pay only where a fresh base page is slow", "[core][huge_pages]") {
    CHECK_FALSE(huge_pages_pay_at(0));
    CHECK_FALSE(huge_pages_pay_at(700));     // the 2026-12-03 VM (huge pages 7x dearer there)
    CHECK_FALSE(huge_pages_pay_at(1300));
    CHECK_FALSE(huge_pages_pay_at(slow_small_page_ns - 1));
    CHECK(huge_pages_pay_at(slow_small_page_ns));
    CHECK(huge_pages_pay_at(3500));           // the 2026-11 VM (3.5-15 us a page)
    CHECK(huge_pages_pay_at(13600));
}

TEST_CASE("probe_decision decides as the lower median would, as soon as the rest cannot change it",
          "[core][huge_pages]") {
    // every sequence of slow and fast batches (costs on both sides of the threshold, and on it)
    const double slow_ns[] = {slow_small_page_ns, 14000}, fast_ns[] = {0, slow_small_page_ns - 1};
    for (unsigned pattern = 0; pattern < (1u << probe_batches); ++pattern) {
        std::array<double, probe_batches> ns{};
        for (std::size_t b = 0; b < probe_batches; ++b)
            ns[b] = (pattern >> b & 1u) ? slow_ns[b % 2] : fast_ns[b % 2];
        std::array<double, probe_batches> sorted = ns;
        std::sort(sorted.begin(), sorted.end());
        const bool full = huge_pages_pay_at(sorted[(probe_batches - 1) / 2]);
        probe_decision d;
        std::size_t seen = 0;
        while (!d.decided() && seen < probe_batches) d.add(ns[seen++]);
        INFO("pattern " << pattern << ", decided after " << seen << " batches");
        REQUIRE(d.decided().has_value());  // all batches always decide
        CHECK(*d.decided() == full);
        if (pattern == 0) CHECK(seen == (probe_batches - 1) / 2 + 1);  // all fast: 4 of 8
        if (pattern + 1 == 1u << probe_batches) CHECK(seen == probe_batches - (probe_batches - 1) / 2);  // all slow: 5
    }
}

TEST_CASE("probe_page_faults times every batch, or stops where told", "[core][huge_pages]") {
    std::size_t all = 0, stopped = 0;
    const bool probed = probe_page_faults([&](double ns) {
        INFO("a fresh base page: " << ns << " ns");
        CHECK(ns > 0);    // 64 faults take time
        CHECK(ns < 1e7);  // and not 10 ms each
        return ++all > 0;
    });
    (void)probe_page_faults([&](double) { return ++stopped < 3; });
#if defined(__linux__)
    REQUIRE(probed);
    CHECK(all == probe_batches);
    CHECK(stopped == 3);
#else
    CHECK_FALSE(probed);
    CHECK(all + stopped == 0);
#endif
}

TEST_CASE("huge_pages_pay: never without system support, else the choice made once", "[core][huge_pages]") {
    choice_guard guard;
    huge_pages_choice().store(-1);
    const bool pay = huge_pages_pay();
    if (!huge_pages_allowed()) CHECK_FALSE(pay);
    const int setting = huge_pages_setting(std::getenv(huge_pages_env));
    if (huge_pages_allowed() && setting >= 0) CHECK(pay == (setting == 1));
    CHECK(huge_pages_choice().load() == (pay ? 1 : 0));  // made once, then kept
    CHECK(huge_pages_pay() == pay);
    remember_huge_pages_pay(!pay);
    CHECK(huge_pages_pay() == !pay);
}

TEST_CASE("reserve_huge is reserve: capacity at least n (exactly n as asked, huge_capacity(n) whole), elements kept",
          "[core][huge_pages]") {
    choice_guard guard;
    for (const bool pay : {false, true})
    for (huge_blocks blocks : {huge_blocks::as_asked, huge_blocks::whole}) {
        remember_huge_pages_pay(pay);
        for (std::size_t n : {std::size_t{0}, std::size_t{100}, (std::size_t{1} << 18) + 1,
                              (std::size_t{1} << 19) - 6, std::size_t{3} << 20}) {
            INFO("pay=" << pay << " whole=" << (blocks == huge_blocks::whole) << " n=" << n);
            std::vector<std::uint32_t> v(1000);
            std::iota(v.begin(), v.end(), 0u);
            const auto before = v;
            reserve_huge(v, n, blocks);
            if (n > before.size())  // (std::vector::reserve gives exactly what is asked)
                CHECK(v.capacity() ==
                      (pay && blocks == huge_blocks::whole ? huge_capacity(n, sizeof(std::uint32_t)) : n));
            CHECK(v.capacity() >= n);
            CHECK(v == before);
            const auto cap = v.capacity();
            reserve_huge(v, n / 2, blocks);  // never shrinks
            CHECK(v.capacity() == cap);
            v.resize(v.capacity(), 7u);  // the whole capacity is usable
            CHECK(v.back() == (cap > before.size() ? 7u : 999u));
        }
    }
}

TEST_CASE("assign_huge is assign: n copies of the value, whatever was there", "[core][huge_pages]") {
    for (huge_blocks blocks : {huge_blocks::as_asked, huge_blocks::whole}) {
        for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{2} << 20}) {
            std::vector<std::uint64_t> v(17, 3);
            assign_huge(v, n, std::uint64_t{42}, blocks);
            REQUIRE(v.size() == n);
            CHECK(std::count(v.begin(), v.end(), std::uint64_t{42}) == static_cast<std::ptrdiff_t>(n));
        }
    }
}

TEST_CASE("byte_buffer: writable capacity, growth keeps the prefix, moves leave the source empty",
          "[core][huge_pages]") {
    choice_guard guard;
    for (const bool pay : {false, true})
    for (std::size_t cap : {std::size_t{0}, std::size_t{4096}, std::size_t{3} << 19, std::size_t{5} << 20}) {
        remember_huge_pages_pay(pay);
        INFO("pay=" << pay << " cap=" << cap);
        byte_buffer b(cap);
        REQUIRE(b.data() != nullptr);
        CHECK(b.capacity() >= cap);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (pay && cap >= huge_page_bytes / 2) {  // documented: whole, aligned huge pages
            CHECK(reinterpret_cast<std::uintptr_t>(b.data()) % huge_page_bytes == 0);
            CHECK(b.capacity() % huge_page_bytes == 0);
        }
#endif
        const std::size_t keep = std::min<std::size_t>(cap, 1000);
        for (std::size_t i = 0; i < keep; ++i) b.data()[i] = static_cast<char>(i * 31);
        b.grow(2 * cap + (std::size_t{6} << 20), keep);
        CHECK(b.capacity() >= 2 * cap + (std::size_t{6} << 20));
        bool same = true;
        for (std::size_t i = 0; i < keep; ++i) same = same && b.data()[i] == static_cast<char>(i * 31);
        CHECK(same);
        b.data()[b.capacity() - 1] = 'x';  // the whole capacity is writable

        byte_buffer c(std::move(b));
        CHECK(b.data() == nullptr);
        CHECK(b.capacity() == 0);
        CHECK(c.data()[c.capacity() - 1] == 'x');
        byte_buffer d;
        d = std::move(c);
        CHECK(c.data() == nullptr);
        CHECK(d.data()[d.capacity() - 1] == 'x');
    }
}

TEST_CASE("byte_buffer: an impossible size is bad_alloc, not a wrapped-around small buffer", "[core][huge_pages]") {
    CHECK_THROWS_AS(byte_buffer(std::size_t(-1)), std::bad_alloc);
    CHECK_THROWS_AS(byte_buffer(std::size_t(-1) - huge_page_bytes / 2), std::bad_alloc);
}
