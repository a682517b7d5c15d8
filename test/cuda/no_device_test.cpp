// The cuda backend on a machine without a GPU (or without a driver): it
// builds, constructs, and every operation fails with a `device_lost` error
// that says there is no device; nothing crashes or hangs.
#include <catch2/catch.hpp>

#include <vyre/backend/cuda.hpp>
#include <vyre/ir/text.hpp>

#include "support/backends.hpp"
#include "cuda/extension_ops.hpp"

using namespace vyre;

namespace {
void require_no_device_error(const backend_error& e) {
    INFO(e.what());
    CHECK(e.code() == error_code::device_lost);
    CHECK(e.message().find("no CUDA device") != std::string::npos);
    CHECK(!e.fix().empty());
}
} // namespace

TEST_CASE("cuda without a device: every operation says there is none", "[cuda][no-device]") {
    REQUIRE(cuda::device_count() == 0);
    CHECK(!cuda::no_device_reason().empty());
    cuda b;
    CHECK(b.id() == "cuda");
    CHECK(b.architecture() == 0);
    CHECK(b.limits().max_storage_buffer_bytes == 0);
    CHECK(b.device_profile().device.find("none") == 0);
    auto p = test::parse_checked(test::add_one);
    std::vector<bytes> in{test::to_bytes<std::uint32_t>({1, 2, 3})};
    auto d = vyre::dispatch(b, p, in);
    REQUIRE(!d);
    require_no_device_error(d.error());
    auto a = b.allocate(16);
    REQUIRE(!a);
    require_no_device_error(a.error());
    auto pr = b.prepare(p);
    REQUIRE(!pr);
    require_no_device_error(pr.error());
    auto async = vyre::dispatch_async(b, p, in);
    auto w = async.wait();
    REQUIRE(!w);
    require_no_device_error(w.error());
    auto f = b.flush();
    REQUIRE(!f);
    require_no_device_error(f.error());
    CHECK(!b.device_lost());  // no device is not a lost device
    auto rec = b.try_recover();
    REQUIRE(!rec);
    require_no_device_error(rec.error());
    CHECK(b.shutdown().has_value());
}

TEST_CASE("cuda without a device: the ops it would run are listed", "[cuda][no-device]") {
    cuda b;
    auto ops = b.supported_ops();
    for (const char* need : {"fill", "copy", "gather", "scatter", "exclusive_scan", "compact", "sort_u32", "sort_u64",
                             "unique_u32", "unique_u64", "bitset_union", "bitset_test_and_set", "csr_expand"})
        CHECK(std::find(ops.begin(), ops.end(), need) != ops.end());
    // an extension op is listed when it has a registered cuda implementation
    test::register_cuda_test_ops();
    ops = b.supported_ops();
    CHECK(std::find(ops.begin(), ops.end(), "test_cuda_copy") != ops.end());
    CHECK(std::find(ops.begin(), ops.end(), "test_host_only") == ops.end());
}
