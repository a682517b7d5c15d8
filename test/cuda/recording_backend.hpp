#pragma once
// `recording_ref`: the reference backend, remembering every program it is
// asked to run. The lowering test runs the conformance suite on it, then
// lowers and compiles each program it saw for the GPU (no GPU needed).

#include <mutex>
#include <string>
#include <vector>

#include <vyre/backend/cpu_ref.hpp>

namespace vyre::test {

/// One dispatch over host bytes and what the reference made of it.
struct recorded_dispatch {
    ir::program program;
    std::vector<bytes> inputs;
    dispatch_config config;
    bool ok = false;
    std::string error;           ///< the reference's error when !ok
    std::vector<bytes> outputs;  ///< the reference's outputs when ok
};

/// `cpu_ref` that records the programs of every dispatch, resident dispatch
/// and prepare, and the inputs and results of every dispatch over host bytes.
class recording_ref : public cpu_ref {
public:
    result<std::vector<bytes>> dispatch(const ir::program& p, std::span<const bytes_view> in, const dispatch_config& c = {}) {
        record(p);
        auto r = cpu_ref::dispatch(p, in, c);
        recorded_dispatch d{p, {}, c, r.has_value(), r ? "" : r.error().message(), r ? *r : std::vector<bytes>{}};
        for (const auto& v : in) d.inputs.emplace_back(v.begin(), v.end());
        std::lock_guard lk(mu());
        dispatches().push_back(std::move(d));
        return r;
    }
    /// Every dispatch over host bytes recorded so far.
    static std::vector<recorded_dispatch> recorded_dispatches() {
        std::lock_guard lk(mu());
        return dispatches();
    }
    result<void> dispatch_resident(const ir::program& p, std::span<const resource> rs, const dispatch_config& c = {}) {
        record(p);
        return cpu_ref::dispatch_resident(p, rs, c);
    }
    result<void> prepare(const ir::program& p) {
        record(p);
        return cpu_ref::prepare(p);
    }

    /// Every program recorded so far (duplicates included).
    static std::vector<ir::program> recorded() {
        std::lock_guard lk(mu());
        return programs();
    }
    /// Records `p`.
    static void record(const ir::program& p) {
        std::lock_guard lk(mu());
        programs().push_back(p);
    }

private:
    static std::mutex& mu() {
        static std::mutex m;
        return m;
    }
    static std::vector<ir::program>& programs() {
        static std::vector<ir::program> v;
        return v;
    }
    static std::vector<recorded_dispatch>& dispatches() {
        static std::vector<recorded_dispatch> v;
        return v;
    }
};

static_assert(check_resident_backend<recording_ref>());

} // namespace vyre::test
