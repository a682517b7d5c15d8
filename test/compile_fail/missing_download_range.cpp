// Must NOT compile: a resident backend without download_range /
// download_range_into. The diagnostic must name the missing operation.
#include <vyre/vyre.hpp>

struct incomplete_backend {
    using resource = int;
    static constexpr auto capabilities = boost::hana::tuple_t<>;
    std::string_view id() const { return "incomplete"; }
    std::string_view version() const { return "0"; }
    vyre::device_limits limits() const { return {}; }
    vyre::result<std::vector<vyre::bytes>> dispatch(const vyre::ir::program&, std::span<const vyre::bytes_view>,
                                                    const vyre::dispatch_config&) { return std::vector<vyre::bytes>{}; }
    vyre::result<resource> allocate(std::uint64_t) { return 0; }
    vyre::result<void> free(const resource&) { return {}; }
    vyre::result<void> upload(const resource&, vyre::bytes_view) { return {}; }
    vyre::result<void> upload_at(const resource&, std::uint64_t, vyre::bytes_view) { return {}; }
    vyre::result<void> upload_many(std::span<const vyre::upload_op<resource>>) { return {}; }
    vyre::result<vyre::bytes> download(const resource&) { return vyre::bytes{}; }
    vyre::result<void> download_into(const resource&, vyre::mutable_bytes_view) { return {}; }
    vyre::result<void> dispatch_resident(const vyre::ir::program&, std::span<const resource>,
                                         const vyre::dispatch_config&) { return {}; }
    vyre::metric_snapshot backend_metric_snapshot() const { return {}; }
};

static_assert(vyre::check_resident_backend<incomplete_backend>());

int main() {}
