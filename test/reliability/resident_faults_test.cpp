// Reliability of the resident contract on every enabled backend: the byte
// budget, and injected faults at every allocation, upload and dispatch. A
// failed call returns its error, changes nothing it did not report, holds no
// memory and leaves the backend usable (ASan/LSan check the host side under
// `./run sanitize`).

#include <cstdint>
#include <numeric>
#include <vector>

#include "support/backends.hpp"

#include <vyre/testing/fault_injector.hpp>

using namespace vyre;
using vyre::test::add_one;
using vyre::test::backend_list;
using vyre::test::from_bytes;
using vyre::test::parse_checked;
using vyre::test::to_bytes;
using vyre::testing::fault_site;

namespace {

std::vector<std::uint32_t> iota_u32(std::uint32_t n, std::uint32_t from = 0) {
    std::vector<std::uint32_t> v(n);
    std::iota(v.begin(), v.end(), from);
    return v;
}
} // namespace

TEMPLATE_LIST_TEST_CASE("resident budget: past it allocation fails and changes nothing", "[reliability][budget]",
                        backend_list) {
    TestType b;
    CHECK(b.resident_budget() == 0);
    b.set_resident_budget(1000);
    auto a = b.allocate(600);
    REQUIRE(a.has_value());
    const auto before = b.backend_metric_snapshot();
    auto over = b.allocate(401);
    REQUIRE_FALSE(over.has_value());
    CHECK(over.error().code() == error_code::out_of_memory);
    CHECK(over.error().message().find("budget of 1000") != std::string::npos);
    CHECK(b.backend_metric_snapshot() == before);  // no counter moved
    CHECK(b.resident_bytes() == 600);
    auto fits = b.allocate(400);  // exactly up to the budget
    REQUIRE(fits.has_value());
    REQUIRE(b.free(*a).has_value());
    auto again = b.allocate(600);  // freed bytes count no more
    REQUIRE(again.has_value());
    // A budget lowered below what is live keeps the live allocations.
    b.set_resident_budget(100);
    CHECK(b.resident_bytes() == 1000);
    CHECK_FALSE(b.allocate(1).has_value());
    b.set_resident_budget(0);  // no limit
    auto big = b.allocate(1 << 20);
    REQUIRE(big.has_value());
    for (auto r : {*fits, *again, *big}) REQUIRE(b.free(r).has_value());
    CHECK(b.resident_bytes() == 0);
}

TEMPLATE_LIST_TEST_CASE("an absurd allocation is out_of_memory, not a crash", "[reliability][budget]", backend_list) {
    TestType b;
    auto r = b.allocate(std::uint64_t(1) << 62);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == error_code::out_of_memory);
    CHECK(b.resident_bytes() == 0);
}

TEMPLATE_LIST_TEST_CASE("a buffer past the backend's limits is an error before any allocation", "[reliability]",
                        backend_list) {
    TestType b;
    auto huge_out = parse_checked("(program huge (workgroup 1 1 1) (buffer o 0 output u32 4611686018427387904)"
                                  " (store o 0 1))");
    auto r = b.dispatch(huge_out, std::vector<bytes_view>{});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == error_code::invalid_argument);
    CHECK(r.error().message().find("buffer 'o'") != std::string::npos);
    auto huge_local = parse_checked("(program huge_local (workgroup 1 1 1) (buffer o 0 output u32 1)"
                                    " (buffer w 1 workgroup u32 1073741824) (store w 0 1) (store o 0 (load w 0)))");
    auto l = b.dispatch(huge_local, std::vector<bytes_view>{});
    REQUIRE_FALSE(l.has_value());
    CHECK(l.error().message().find("workgroup memory") != std::string::npos);
}

TEMPLATE_LIST_TEST_CASE("injected faults: each call fails once, changes nothing, and the next succeeds",
                        "[reliability][faults]", backend_list) {
    TestType b;
    auto& faults = vyre::testing::faults(b);
    auto p = parse_checked(add_one);
    auto r = b.allocate(400).value();
    const auto data = to_bytes(iota_u32(100));
    REQUIRE(b.upload(r, data).has_value());

    SECTION("allocate") {
        faults.fail_nth(fault_site::allocate, 2);
        auto first = b.allocate(8);
        REQUIRE(first.has_value());
        const auto live = b.resident_bytes();
        auto second = b.allocate(8);
        REQUIRE_FALSE(second.has_value());
        CHECK(second.error().code() == error_code::out_of_memory);
        CHECK(second.error().message().find("injected fault") != std::string::npos);
        CHECK(b.resident_bytes() == live);
        CHECK_FALSE(faults.armed(fault_site::allocate));
        auto third = b.allocate(8);
        REQUIRE(third.has_value());
        REQUIRE(b.free(*first).has_value());
        REQUIRE(b.free(*third).has_value());
    }
    SECTION("upload, upload_at, upload_many") {
        const auto other = to_bytes(iota_u32(100, 7));
        faults.fail_nth(fault_site::upload, 1);
        CHECK(b.upload(r, other).error().code() == error_code::out_of_memory);
        faults.fail_nth(fault_site::upload, 1);
        CHECK_FALSE(b.upload_at(r, 4, bytes_view(other).subspan(0, 8)).has_value());
        auto r2 = b.allocate(400).value();
        std::vector<upload_op<typename TestType::resource>> ops{{r, other}, {r2, other}};
        faults.fail_nth(fault_site::upload, 1);
        CHECK_FALSE(b.upload_many(std::span<const upload_op<typename TestType::resource>>(ops)).has_value());
        CHECK(b.download(r).value() == data);              // nothing was written
        CHECK(b.download(r2).value() == bytes(400, 0));
        REQUIRE(b.upload_many(std::span<const upload_op<typename TestType::resource>>(ops)).has_value());
        CHECK(b.download(r2).value() == other);
        REQUIRE(b.free(r2).has_value());
    }
    SECTION("dispatch and dispatch_resident") {
        std::vector<typename TestType::resource> rs{r};
        faults.fail_nth(fault_site::dispatch, 1);
        auto d = b.dispatch_resident(p, rs, {});
        REQUIRE_FALSE(d.has_value());
        CHECK(d.error().code() == error_code::dispatch_failed);
        CHECK(b.download(r).value() == data);  // the program did not run
        faults.fail_nth(fault_site::dispatch, 1);
        std::vector<bytes_view> in{data};
        CHECK_FALSE(b.dispatch(p, in).has_value());
        REQUIRE(b.dispatch_resident(p, rs, {}).has_value());
        CHECK(from_bytes<std::uint32_t>(b.download(r).value()) == iota_u32(100, 1));
    }
    SECTION("a sequence stops at the failing step and reports it") {
        std::vector<typename TestType::resource> rs{r};
        std::vector<resident_step<typename TestType::resource>> steps(3, {&p, rs, {}});
        std::vector<read_range<typename TestType::resource>> rr{{r, 0, 4}};
        std::uint32_t first = 0;
        std::vector<mutable_bytes_view> outs{mutable_bytes_view(reinterpret_cast<std::uint8_t*>(&first), 4)};
        faults.fail_nth(fault_site::dispatch, 2);
        auto s = vyre::dispatch_resident_sequence_read_ranges_into(
            b, std::span<const resident_step<typename TestType::resource>>(steps),
            std::span<const read_range<typename TestType::resource>>(rr), std::span<const mutable_bytes_view>(outs));
        REQUIRE_FALSE(s.has_value());
        CHECK(s.error().code() == error_code::dispatch_failed);
        // The resources stay valid; the steps before the failure have run (documented).
        CHECK(from_bytes<std::uint32_t>(b.download(r).value()) == iota_u32(100, 1));
        REQUIRE(vyre::dispatch_resident_sequence_read_ranges_into(
                    b, std::span<const resident_step<typename TestType::resource>>(steps),
                    std::span<const read_range<typename TestType::resource>>(rr),
                    std::span<const mutable_bytes_view>(outs))
                    .has_value());
        CHECK(first == 4);
    }
    faults.disarm();
    REQUIRE(b.free(r).has_value());
    CHECK(b.resident_bytes() == 0);
}
