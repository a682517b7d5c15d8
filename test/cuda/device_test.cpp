// What only the cuda backend has, on a GPU: the module cache, compiled
// pipelines, graph replay of repeated sequences, timings from CUDA events,
// the divergent-barrier report, unsupported ops, and the device profile.
#include <catch2/catch.hpp>

#include <vyre/backend/cuda.hpp>

#include "support/backends.hpp"
#include "cuda/extension_ops.hpp"

using namespace vyre;
using test::from_bytes;
using test::parse_checked;
using test::to_bytes;

namespace {
std::uint64_t metric(const metric_snapshot& m, const char* k) {
    auto it = m.find(k);
    return it == m.end() ? 0 : it->second;
}
} // namespace

TEST_CASE("cuda: profile and limits come from the device", "[cuda][device]") {
    cuda b;
    auto prof = b.device_profile();
    INFO(prof.to_string());
    CHECK(prof.device.find("sm_") != std::string::npos);
    CHECK(b.architecture() >= 70);
    CHECK(b.limits().subgroup_size == 32);
    CHECK(b.limits().max_invocations_per_workgroup >= 1024);
    CHECK(b.limits().max_storage_buffer_bytes > (1ull << 30));
}

TEST_CASE("cuda: the module cache hits on the same program and compile_native reuses it", "[cuda][device]") {
    cuda b;
    auto p = parse_checked(test::add_one);
    REQUIRE(b.prepare(p).has_value());
    auto s0 = b.pipeline_cache_snapshot();
    CHECK(s0.misses == 1);
    std::vector<bytes> in{to_bytes<std::uint32_t>({1, 2, 3})};
    auto r = vyre::dispatch(b, p, in);
    REQUIRE(r.has_value());
    CHECK(from_bytes<std::uint32_t>((*r)[0]) == std::vector<std::uint32_t>{2, 3, 4});
    auto s1 = b.pipeline_cache_snapshot();
    CHECK(s1.misses == 1);
    CHECK(s1.hits >= 1);
    auto pl = b.compile_native(p);
    REQUIRE(pl.has_value());
    auto x = b.allocate(12);
    REQUIRE(x.has_value());
    REQUIRE(b.upload(*x, to_bytes<std::uint32_t>({5, 6, 7})).has_value());
    std::vector<cuda::resource> rs{*x};
    REQUIRE(b.dispatch_resident(*pl, rs).has_value());
    auto d = b.download(*x);
    REQUIRE(d.has_value());
    CHECK(from_bytes<std::uint32_t>(*d) == std::vector<std::uint32_t>{6, 7, 8});
    // a pipeline of another instance is refused
    cuda other;
    auto pl2 = other.compile_native(p);
    REQUIRE(pl2.has_value());
    auto bad = b.dispatch_resident(*pl2, rs);
    REQUIRE(!bad);
    CHECK(bad.error().code() == error_code::invalid_resource);
}

TEST_CASE("cuda: a repeated sequence replays one captured graph", "[cuda][device]") {
    cuda b;
    auto p = parse_checked(test::add_one);
    auto x = b.allocate(4 * 1000);
    REQUIRE(x.has_value());
    std::vector<resident_step<cuda::resource>> none, rep{{&p, {*x}, {}}};
    std::vector<std::uint32_t> host(1000);
    std::vector<read_range<cuda::resource>> rr{{*x, 0, 4000}};
    std::vector<mutable_bytes_view> outs{mutable_bytes_view(reinterpret_cast<std::uint8_t*>(host.data()), 4000)};
    auto t = vyre::dispatch_resident_repeated_sequence_read_ranges_into_timed(b, none, rep, 50, rr, outs);
    REQUIRE(t.has_value());
    CHECK(host == std::vector<std::uint32_t>(1000, 50));
    auto m = b.backend_metric_snapshot();
    CHECK(metric(m, "graph_captures") == 1);
    CHECK(metric(m, "graph_replays") == 50);
    CHECK(t->device_ns > 0);
    CHECK(t->wall_ns >= t->wait_ns);
}

TEST_CASE("cuda: a divergent barrier is reported, not hung", "[cuda][device]") {
    cuda b;
    auto p = parse_checked("(program div (workgroup 64 1 1)\n"
                           "  (buffer out 0 output u32 64)\n"
                           "  (if (lt (lid x) 32) ((barrier)) ((barrier)))\n"
                           "  (store out (lid x) 1))\n");
    auto r = vyre::dispatch(b, p, {});
    REQUIRE(!r);
    INFO(r.error().what());
    CHECK(r.error().code() == error_code::dispatch_failed);
    CHECK(r.error().message().find("divergent barrier") != std::string::npos);
    // the same as the reference says
    cpu_ref ref;
    auto e = vyre::dispatch(ref, p, {});
    REQUIRE(!e);
    CHECK(e.error().code() == error_code::dispatch_failed);
}

TEST_CASE("cuda: invocations that return early do not block a barrier", "[cuda][device]") {
    cuda b;
    auto p = parse_checked("(program early (workgroup 64 1 1)\n"
                           "  (buffer out 0 output u32 64)\n"
                           "  (buffer tile 1 workgroup u32 64)\n"
                           "  (if (ge (lid x) 48) ((return)))\n"
                           "  (store tile (lid x) (add (lid x) 1))\n"
                           "  (barrier)\n"
                           "  (store out (lid x) (load tile (sub 47 (lid x)))))\n");
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{1, 1, 1};
    auto r = vyre::dispatch(b, p, {}, c);
    REQUIRE(r.has_value());
    cpu_ref ref;
    auto e = vyre::dispatch(ref, p, {}, c);
    REQUIRE(e.has_value());
    CHECK(*r == *e);
}

TEST_CASE("cuda: an op without a kernel is an unsupported-op error", "[cuda][device]") {
    test::register_cuda_test_ops();
    cuda b;
    auto p = parse_checked("(program call (workgroup 1 1 1)\n  (buffer a 0 read u32 0)\n  (buffer d 1 read_write u32 0)\n"
                           "  (op test_host_only a d))\n");
    auto r = vyre::dispatch(b, p, {to_bytes<std::uint32_t>({1, 2}), to_bytes<std::uint32_t>({0, 0})});
    REQUIRE(!r);
    INFO(r.error().what());
    CHECK(r.error().code() == error_code::unsupported);
    CHECK(r.error().message().find("test_host_only") != std::string::npos);
    auto names = b.supported_ops();
    CHECK(std::find(names.begin(), names.end(), "test_host_only") == names.end());
}

TEST_CASE("cuda: an extension op runs its registered native implementation", "[cuda][device][extension]") {
    test::register_cuda_test_ops();
    cuda b;
    auto names = b.supported_ops();
    CHECK(std::find(names.begin(), names.end(), "test_cuda_copy") != names.end());
    auto p = parse_checked("(program call (workgroup 1 1 1)\n  (buffer a 0 read u32 0)\n  (buffer d 1 read_write u32 0)\n"
                           "  (op test_cuda_copy a d))\n");
    auto r = vyre::dispatch(b, p, {to_bytes<std::uint32_t>({7, 8, 9}), to_bytes<std::uint32_t>({0, 0})});
    REQUIRE(r.has_value());
    CHECK(from_bytes<std::uint32_t>((*r)[0]) == std::vector<std::uint32_t>{7, 8});
}

TEST_CASE("cuda: try_recover after no fault is a no-op that keeps resources", "[cuda][device]") {
    cuda b;
    auto x = b.allocate(8);
    REQUIRE(x.has_value());
    CHECK(!b.device_lost());
    REQUIRE(b.try_recover().has_value());
    CHECK(b.download(*x).has_value());
    REQUIRE(b.shutdown().has_value());
    auto after = b.download(*x);
    REQUIRE(!after);
    CHECK(after.error().code() == error_code::invalid_resource);
}
