// Conformance: the resident contract (allocate, batched and ranged transfers,
// free, dispatch over resources, sequences), on every enabled backend.

#include <cstdint>
#include <cstring>
#include <numeric>

#include "support/backends.hpp"

using namespace vyre;
using vyre::test::add_one;
using vyre::test::backend_list;
using vyre::test::from_bytes;
using vyre::test::parse_checked;
using vyre::test::to_bytes;

namespace {
const char* axpy =
    "(program axpy (workgroup 64 1 1)\n"
    "  (buffer a 0 read u32 0)\n  (buffer y 1 read_write u32 0)\n  (buffer counter 2 read_write u32 1)\n"
    "  (let i (gid x))\n"
    "  (if (lt i (len y)) ((store y i (add (mul (load y i) 3) (load a i))) (let c (atomic_add counter 0 1)))))\n";

std::uint64_t metric(const metric_snapshot& m, const char* k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
}

/// 100 words 7, 8, ... adopted by `b`; `storage` gets where they live.
template <class B>
typename B::resource adopt_counting(B& b, const std::uint32_t*& storage) {
    std::vector<std::uint32_t> v(100);
    std::iota(v.begin(), v.end(), 7u);
    storage = v.data();
    auto r = b.adopt(std::move(v));
    REQUIRE(r.has_value());
    CHECK(v.empty());  // taken over
    return *r;
}
} // namespace

TEMPLATE_LIST_TEST_CASE("resident lifecycle: allocate, upload, dispatch, download, free", "[resident]",
                        backend_list) {
    TestType b;
    auto p = parse_checked(add_one);
    auto r = b.allocate(400);
    REQUIRE(r.has_value());
    std::vector<std::uint32_t> v(100);
    std::iota(v.begin(), v.end(), 0u);
    REQUIRE(b.upload(*r, to_bytes(v)).has_value());
    std::vector<typename TestType::resource> rs{*r};
    REQUIRE(b.dispatch_resident(p, rs, {}).has_value());
    REQUIRE(b.dispatch_resident(p, rs, {}).has_value());
    auto d = b.download(*r);
    REQUIRE(d.has_value());
    auto got = from_bytes<std::uint32_t>(*d);
    for (std::uint32_t i = 0; i < 100; ++i) CHECK(got[i] == i + 2);
    // Allocation is zeroed and exactly sized.
    auto z = b.allocate(12);
    REQUIRE(z.has_value());
    CHECK(*b.download(*z) == bytes(12, 0));
    REQUIRE(b.free(*r).has_value());
    REQUIRE(b.free(*z).has_value());
    auto m = b.backend_metric_snapshot();
    CHECK(metric(m, "live_bytes") == 0);
    CHECK(metric(m, "resident_dispatches") == 2);
}

TEMPLATE_LIST_TEST_CASE("resident misuse is an error, never a crash", "[resident]", backend_list) {
    TestType b, other;
    auto p = parse_checked(add_one);
    auto r = *b.allocate(16);
    auto foreign = *other.allocate(16);
    SECTION("foreign handle") {
        auto e = b.upload(foreign, bytes(16));
        REQUIRE_FALSE(e.has_value());
        CHECK(e.error().code() == error_code::invalid_resource);
        CHECK_THAT(e.error().message(), Catch::Contains("another backend instance"));
        std::vector<typename TestType::resource> rs{foreign};
        CHECK(b.dispatch_resident(p, rs, {}).error().code() == error_code::invalid_resource);
    }
    SECTION("use after free and double free") {
        REQUIRE(b.free(r).has_value());
        CHECK(b.download(r).error().code() == error_code::invalid_resource);
        CHECK_THAT(b.free(r).error().message(), Catch::Contains("already freed"));
        // A new allocation reusing the slot does not revive the old handle.
        auto again = *b.allocate(16);
        CHECK(b.download(r).error().code() == error_code::invalid_resource);
        CHECK(b.download(again).has_value());
    }
    SECTION("ranges past the end") {
        CHECK(b.download_range(r, 8, 16).error().code() == error_code::invalid_argument);
        CHECK(b.upload_at(r, 15, bytes(2)).error().code() == error_code::invalid_argument);
        CHECK(b.download_range(r, ~0ull, 2).error().code() == error_code::invalid_argument);
        std::vector<std::uint8_t> out(8);
        CHECK_FALSE(b.download_into(r, out).has_value());
        CHECK_FALSE(b.upload(r, bytes(15)).has_value());
    }
    SECTION("wrong resource count or size for a program") {
        std::vector<typename TestType::resource> none;
        auto e = b.dispatch_resident(p, none, {});
        REQUIRE_FALSE(e.has_value());
        CHECK_THAT(e.error().message(), Catch::Contains("1 non-workgroup buffers but 0"));
        auto fixed = parse_checked(axpy);
        auto odd = *b.allocate(6);
        std::vector<typename TestType::resource> rs{r, odd, r};
        auto e2 = b.dispatch_resident(fixed, rs, {});
        REQUIRE_FALSE(e2.has_value());
        CHECK_THAT(e2.error().message(), Catch::Contains("'y'"));
    }
    SECTION("upload_many checks everything before writing anything") {
        auto r2 = *b.allocate(8);
        bytes ones(16, 1), bad(4, 2);
        std::vector<upload_op<typename TestType::resource>> ops{{r, ones}, {r2, bad}};
        CHECK_FALSE(b.upload_many(ops).has_value());
        CHECK(*b.download(r) == bytes(16, 0));
    }
}

TEMPLATE_LIST_TEST_CASE("ranged transfers move only the range", "[resident]", backend_list) {
    TestType b;
    auto r = *b.allocate(1 << 20);
    std::vector<std::uint32_t> v(1 << 18);
    std::iota(v.begin(), v.end(), 0u);
    auto before = b.backend_metric_snapshot();
    auto data = to_bytes(v);
    std::vector<upload_op<typename TestType::resource>> ops{{r, data}};
    REQUIRE(b.upload_many(ops).has_value());
    auto mid = b.backend_metric_snapshot();
    CHECK(metric(mid, "bytes_uploaded") - metric(before, "bytes_uploaded") == (1u << 20));
    CHECK(metric(mid, "upload_calls") - metric(before, "upload_calls") == 1);

    auto part = b.download_range(r, 4000, 8);
    REQUIRE(part.has_value());
    CHECK(from_bytes<std::uint32_t>(*part) == std::vector<std::uint32_t>{1000, 1001});
    std::vector<std::uint8_t> small(4);
    REQUIRE(b.download_range_into(r, 40, small).has_value());
    CHECK(from_bytes<std::uint32_t>(small)[0] == 10);
    auto after = b.backend_metric_snapshot();
    CHECK(metric(after, "bytes_downloaded") - metric(mid, "bytes_downloaded") == 12);

    std::vector<std::uint32_t> patch{7, 7};
    auto pb = to_bytes(patch);
    std::vector<write_range<typename TestType::resource>> w{{r, 0, pb}, {r, 16, pb}};
    REQUIRE(vyre::upload_at_many(b, std::span<const write_range<typename TestType::resource>>(w)).has_value());
    std::vector<read_range<typename TestType::resource>> rr{{r, 0, 8}, {r, 12, 12}};
    std::vector<std::uint8_t> o1(8), o2(12);
    std::vector<mutable_bytes_view> outs{o1, o2};
    REQUIRE(vyre::download_ranges_into(b, std::span<const read_range<typename TestType::resource>>(rr),
                                       std::span<const mutable_bytes_view>(outs))
                .has_value());
    CHECK(from_bytes<std::uint32_t>(o1) == std::vector<std::uint32_t>{7, 7});
    CHECK(from_bytes<std::uint32_t>(o2) == std::vector<std::uint32_t>{3, 7, 7});
}

TEMPLATE_LIST_TEST_CASE("sequences equal the same dispatches one by one", "[resident]", backend_list) {
    using R = typename TestType::resource;
    auto p_add = parse_checked(add_one);
    auto p_axpy = parse_checked(axpy);
    std::vector<std::uint32_t> a(300), y(300);
    for (std::uint32_t i = 0; i < 300; ++i) a[i] = i * 31u, y[i] = i;

    auto setup = [&](TestType& b) {
        auto ra = *b.allocate(1200), ry = *b.allocate(1200), rc = *b.allocate(4);
        auto da = to_bytes(a), dy = to_bytes(y);
        std::vector<upload_op<R>> ops{{ra, da}, {ry, dy}};
        REQUIRE(b.upload_many(ops).has_value());
        return std::array<R, 3>{ra, ry, rc};
    };
    // one by one
    TestType b1;
    auto r1 = setup(b1);
    std::vector<R> s_add{r1[1]}, s_axpy{r1[0], r1[1], r1[2]};
    REQUIRE(b1.dispatch_resident(p_add, s_add, {}).has_value());
    for (int k = 0; k < 3; ++k) {
        REQUIRE(b1.dispatch_resident(p_axpy, s_axpy, {}).has_value());
        REQUIRE(b1.dispatch_resident(p_add, s_add, {}).has_value());
    }
    auto expect_y = *b1.download(r1[1]);
    auto expect_c = *b1.download(r1[2]);

    // as a repeated sequence with a ranged readback
    TestType b2;
    auto r2 = setup(b2);
    std::vector<resident_step<R>> prefix{{&p_add, {r2[1]}, {}}};
    std::vector<resident_step<R>> rep{{&p_axpy, {r2[0], r2[1], r2[2]}, {}}, {&p_add, {r2[1]}, {}}};
    std::vector<read_range<R>> rr{{r2[2], 0, 4}, {r2[1], 400, 8}};
    std::vector<std::uint8_t> c(4), mid(8);
    std::vector<mutable_bytes_view> outs{c, mid};
    auto t = vyre::dispatch_resident_repeated_sequence_read_ranges_into_timed(
        b2, std::span<const resident_step<R>>(prefix), std::span<const resident_step<R>>(rep), 3,
        std::span<const read_range<R>>(rr), std::span<const mutable_bytes_view>(outs));
    REQUIRE(t.has_value());
    CHECK(t->wall_ns > 0);
    CHECK(bytes(c) == expect_c);
    CHECK(bytes(mid) == bytes(expect_y.begin() + 400, expect_y.begin() + 408));
    CHECK(*b2.download(r2[1]) == expect_y);

    // as a plain sequence
    TestType b3;
    auto r3 = setup(b3);
    std::vector<resident_step<R>> steps{{&p_add, {r3[1]}, {}}};
    for (int k = 0; k < 3; ++k) {
        steps.push_back({&p_axpy, {r3[0], r3[1], r3[2]}, {}});
        steps.push_back({&p_add, {r3[1]}, {}});
    }
    std::vector<read_range<R>> rr3{{r3[2], 0, 4}};
    std::vector<std::uint8_t> c3(4);
    std::vector<mutable_bytes_view> outs3{c3};
    REQUIRE(vyre::dispatch_resident_sequence_read_ranges_into(b3, std::span<const resident_step<R>>(steps),
                                                              std::span<const read_range<R>>(rr3),
                                                              std::span<const mutable_bytes_view>(outs3))
                .has_value());
    CHECK(bytes(c3) == expect_c);
    CHECK(*b3.download(r3[1]) == expect_y);

    // a failing step names its position
    std::vector<resident_step<R>> bad{{&p_add, {r3[1]}, {}}, {&p_axpy, {r3[1]}, {}}};
    auto e = vyre::dispatch_resident_sequence_read_ranges_into(b3, std::span<const resident_step<R>>(bad),
                                                               std::span<const read_range<R>>(),
                                                               std::span<const mutable_bytes_view>());
    REQUIRE_FALSE(e.has_value());
    CHECK_THAT(e.error().message(), Catch::Contains("step 1"));
}

TEMPLATE_LIST_TEST_CASE("device buffers free themselves", "[resident]", backend_list) {
    TestType b;
    auto p = parse_checked(add_one);
    {
        auto buf = vyre::allocate_device_buffer(b, 8);
        REQUIRE(buf.has_value());
        REQUIRE(buf->upload(to_bytes<std::uint32_t>({1, 2})).has_value());
        std::vector<device_buffer<TestType>*> bs{&*buf};
        REQUIRE(vyre::dispatch_with_device_buffers(b, p, std::span<device_buffer<TestType>* const>(bs)).has_value());
        CHECK(from_bytes<std::uint32_t>(*buf->download()) == std::vector<std::uint32_t>{2, 3});
    }
    CHECK(metric(b.backend_metric_snapshot(), "live_bytes") == 0);
}

TEMPLATE_LIST_TEST_CASE("dispatch forms: into caller storage, timed, async, cache", "[dispatch]", backend_list) {
    TestType b;
    auto p = parse_checked(add_one);
    auto in = to_bytes<std::uint32_t>({1, 2, 3});
    std::vector<bytes_view> views{in};
    std::vector<std::uint8_t> out(12), wrong(8);
    std::vector<mutable_bytes_view> outs{out}, bad{wrong};
    REQUIRE(vyre::dispatch_into(b, p, views, outs).has_value());
    CHECK(from_bytes<std::uint32_t>(out) == std::vector<std::uint32_t>{2, 3, 4});
    CHECK_FALSE(vyre::dispatch_into(b, p, views, bad).has_value());
    auto t = vyre::dispatch_timed(b, p, views);
    REQUIRE(t.has_value());
    CHECK(t->value.size() == 1);
    auto pending = vyre::dispatch_async(b, p, {in});
    auto r = pending.wait();
    REQUIRE(r.has_value());
    CHECK(from_bytes<std::uint32_t>((*r)[0]) == std::vector<std::uint32_t>{2, 3, 4});
    auto s = vyre::pipeline_cache_snapshot(b);
    CHECK(s.misses == 1);
    CHECK(s.hits >= 3);
    REQUIRE(vyre::prepare(b, p).has_value());
    CHECK(vyre::pipeline_cache_snapshot(b).misses == 1);
    CHECK_FALSE(vyre::device_lost(b));
    auto prof = vyre::get_device_profile(b);
    CHECK(prof.backend == std::string(b.id()));
}

TEMPLATE_LIST_TEST_CASE("host-visible memory: adopt without a copy, map in place, checked and counted", "[resident]",
                        backend_list) {
    // The capability and the operations go together (a backend that lists
    // one without the other is a bug).
    STATIC_REQUIRE(vyre::has_capability_v<TestType, cap::host_visible_memory> ==
                   vyre::has_host_visible_memory<TestType>);
    if constexpr (!vyre::has_host_visible_memory<TestType>) {
        WARN("this backend has no host-visible memory (cap::host_visible_memory): nothing to check");
    } else {
        TestType b;
        auto p = parse_checked(add_one);
        const std::uint32_t* storage = nullptr;
        const auto r = adopt_counting(b, storage);
        auto m = b.map(r);
        REQUIRE(m.has_value());
        CHECK(m->size() == 400);
        CHECK(static_cast<const void*>(m->data()) == static_cast<const void*>(storage));  // no copy
        std::vector<typename TestType::resource> rs{r};
        REQUIRE(b.dispatch_resident(p, rs, {}).has_value());
        auto got = from_bytes<std::uint32_t>(*b.download(r));
        for (std::uint32_t i = 0; i < 100; ++i) CHECK(got[i] == i + 8);
        // Writes through the map are what the next dispatch reads.
        std::uint32_t w = 1000;
        std::memcpy(m->data() + 4 * 5, &w, 4);
        REQUIRE(b.dispatch_resident(p, rs, {}).has_value());
        CHECK(from_bytes<std::uint32_t>(*b.download_range(r, 4 * 5, 4))[0] == 1001);
        auto c = b.backend_metric_snapshot();
        CHECK(metric(c, "bytes_adopted") == 400);
        CHECK(metric(c, "bytes_uploaded") == 0);
        CHECK(metric(c, "live_bytes") == 400);
        CHECK(metric(c, "maps") == 1);
        // Freed and foreign handles are errors; the budget holds for adopt too.
        REQUIRE(b.free(r).has_value());
        CHECK(b.map(r).error().code() == error_code::invalid_resource);
        TestType other;
        auto foreign = *other.allocate(4);
        CHECK(b.map(foreign).error().code() == error_code::invalid_resource);
        b.set_resident_budget(64);
        std::vector<std::uint32_t> big(100, 3);
        auto over = b.adopt(std::move(big));
        REQUIRE_FALSE(over.has_value());
        CHECK(over.error().code() == error_code::out_of_memory);
        CHECK_THAT(over.error().message(), Catch::Contains("adopt"));
        CHECK(big.size() == 100);  // an adopt that fails changes nothing
        CHECK(metric(b.backend_metric_snapshot(), "live_bytes") == 0);
        // An empty vector is a resource of no bytes.
        auto empty = b.adopt(std::vector<std::uint32_t>{});
        REQUIRE(empty.has_value());
        CHECK(b.map(*empty)->empty());

        // borrow: the caller's data read in place, read-only, neither copied nor owned.
        b.set_resident_budget(0);
        TestType c2;
        auto fixed = parse_checked(axpy);
        std::vector<std::uint32_t> a{1, 2, 3, 4};
        auto ra = c2.borrow(std::span<const std::uint32_t>(a));
        REQUIRE(ra.has_value());
        auto ry = *c2.allocate(16), rc = *c2.allocate(4);
        REQUIRE(c2.upload(ry, to_bytes(std::vector<std::uint32_t>{10, 20, 30, 40})).has_value());
        a[2] = 300;  // no copy: the dispatch reads the caller's memory
        std::vector<typename TestType::resource> rs2{ra.value(), ry, rc};
        REQUIRE(c2.dispatch_resident(fixed, rs2, {}).has_value());
        CHECK(from_bytes<std::uint32_t>(*c2.download(ry)) == std::vector<std::uint32_t>{31, 62, 390, 124});
        CHECK(from_bytes<std::uint32_t>(*c2.download(*ra)) == a);
        auto m2 = c2.backend_metric_snapshot();
        CHECK(metric(m2, "bytes_borrowed") == 16);
        CHECK(metric(m2, "live_borrowed_bytes") == 16);
        CHECK(metric(m2, "live_bytes") == 20);  // y and the counter only
        // Nothing writes borrowed memory: uploads, maps and writable bindings are refused.
        CHECK(c2.upload(*ra, bytes(16)).error().code() == error_code::invalid_argument);
        CHECK(c2.upload_at(*ra, 0, bytes(4)).error().code() == error_code::invalid_argument);
        CHECK_THAT(c2.map(*ra).error().message(), Catch::Contains("borrowed read-only"));
        std::vector<typename TestType::resource> as_y{ry, *ra, rc};
        auto wrong = c2.dispatch_resident(fixed, as_y, {});
        REQUIRE_FALSE(wrong.has_value());
        CHECK_THAT(wrong.error().message(), Catch::Contains("buffer 'y'"));
        CHECK(a == std::vector<std::uint32_t>{1, 2, 300, 4});
        REQUIRE(c2.free(*ra).has_value());
        CHECK(metric(c2.backend_metric_snapshot(), "live_borrowed_bytes") == 0);
        CHECK(c2.download(*ra).error().code() == error_code::invalid_resource);
    }
}

TEMPLATE_LIST_TEST_CASE("host-visible memory: reclaim gives an adopted vector back without a copy", "[resident]",
                        backend_list) {
    if constexpr (!vyre::has_reclaim<TestType>) {
        WARN("this backend does not give adopted memory back (vyre::has_reclaim): nothing to check");
    } else {
        TestType b;
        auto p = parse_checked(add_one);
        const std::uint32_t* storage = nullptr;
        const auto r = adopt_counting(b, storage);
        std::vector<typename TestType::resource> rs{r};
        REQUIRE(b.dispatch_resident(p, rs, {}).has_value());
        const auto before = b.backend_metric_snapshot();
        auto back = b.template reclaim<std::uint32_t>(r);
        REQUIRE(back.has_value());
        CHECK(back->data() == storage);  // the same storage, with what the dispatch wrote
        REQUIRE(back->size() == 100);
        for (std::uint32_t i = 0; i < 100; ++i) CHECK((*back)[i] == i + 8);
        auto c = b.backend_metric_snapshot();
        CHECK(metric(c, "bytes_reclaimed") == 400);
        CHECK(metric(c, "bytes_downloaded") == metric(before, "bytes_downloaded"));  // nothing copied
        CHECK(metric(c, "live_bytes") == 0);
        CHECK(metric(c, "frees") == metric(before, "frees") + 1);
        // The resource is gone: every use of it, a second reclaim included, is an error.
        CHECK(b.map(r).error().code() == error_code::invalid_resource);
        CHECK(b.template reclaim<std::uint32_t>(r).error().code() == error_code::invalid_resource);
        CHECK(b.free(r).error().code() == error_code::invalid_resource);
        // Only what adopt made from a vector of that element type comes back; a
        // refusal changes nothing.
        auto allocated = *b.allocate(16);
        auto not_adopted = b.template reclaim<std::uint32_t>(allocated);
        REQUIRE_FALSE(not_adopted.has_value());
        CHECK(not_adopted.error().code() == error_code::invalid_argument);
        CHECK_THAT(not_adopted.error().message(), Catch::Contains("not adopted"));
        CHECK(b.download(allocated).has_value());
        auto bytes_res = *b.adopt(std::vector<std::uint8_t>(8, 1));
        CHECK(b.template reclaim<std::uint32_t>(bytes_res).error().code() == error_code::invalid_argument);
        auto as_bytes = b.template reclaim<std::uint8_t>(bytes_res);
        REQUIRE(as_bytes.has_value());
        CHECK(*as_bytes == std::vector<std::uint8_t>(8, 1));
        std::vector<std::uint32_t> mine{1, 2};
        auto borrowed = *b.borrow(std::span<const std::uint32_t>(mine));
        CHECK_THAT(b.template reclaim<std::uint32_t>(borrowed).error().message(), Catch::Contains("borrowed"));
        TestType other;
        auto foreign = *other.adopt(std::vector<std::uint32_t>(4, 0));
        CHECK(b.template reclaim<std::uint32_t>(foreign).error().code() == error_code::invalid_resource);
        CHECK(other.template reclaim<std::uint32_t>(foreign).has_value());
        // An empty adopted vector comes back empty.
        auto empty = *b.adopt(std::vector<std::uint32_t>{});
        auto e = b.template reclaim<std::uint32_t>(empty);
        REQUIRE(e.has_value());
        CHECK(e->empty());
        CHECK(metric(b.backend_metric_snapshot(), "live_bytes") == 16);  // `allocated` only
    }
}
