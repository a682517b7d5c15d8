// Conformance of `weir::ifds_resident_dispatch` with a dispatcher that is NOT a
// vyre backend: `scratch_dispatch`, written from scratch here, with its own
// memory map and only the concept's *required* members (so weir's fallbacks for
// the provided operations are the ones exercised). It runs kernels with vyre's
// interpreter pieces (`vyre::detail::compile` + `vyre::detail::executor`) over
// its own memory, after `vyre::ir::validate`.
//
// Checks: it models the concept; `resident_solver<scratch_dispatch>` equals
// `tabulation_solver` bit for bit on generated problems and the data files; the
// transfers it makes (the graph goes up in one `upload_many` per solver, every
// per-round read is a 4-byte `download_range_into`, the only whole download of a
// solve is the path-edge bitset); misuse of the solver gives error results; no
// resource leaks, also when allocations fail; the `upload_at_many` and
// `download_ranges_into` (and sequence) fallbacks work on it.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <vyre/backend/cpu_ref.hpp>
#include <vyre/backend/detail/interpreter.hpp>
#include <vyre/ir/text.hpp>
#include <vyre/ir/validate.hpp>
#include <weir/core/vyre_resident_ifds.hpp>
#include <weir/ide/layout.hpp>
#include <weir/ide/linear.hpp>
#include <weir/ide/resident_solver.hpp>
#include <weir/ide/tabulation_solver.hpp>
#include <weir/ifds/format.hpp>
#include <weir/ifds/make_layout.hpp>
#include <weir/core/resident_dispatch.hpp>
#include <weir/ifds/resident_graph.hpp>
#include <weir/ifds/resident_solver.hpp>
#include <weir/ifds/solution.hpp>
#include <weir/ifds/tabulation_solver.hpp>

#include "support/ide_gen.hpp"
#include "support/ifds_gen.hpp"

#ifndef WEIR_TEST_DATA_DIR
#define WEIR_TEST_DATA_DIR "test/data/ifds"
#endif

using namespace weir::ifds;

namespace {

// ---- the dispatcher -----------------------------------------------------------------

/// A handle: slot id (1-based; 0 is "no resource") and the slot's generation, so a
/// handle used after `free` (even when the slot is reused) is detected.
struct scratch_resource {
    std::uint32_t id = 0;
    std::uint32_t generation = 0;
    bool operator==(const scratch_resource&) const = default;
};

/// Everything the dispatcher moved or did, for the tests to inspect.
struct transfer_log {
    struct range {
        scratch_resource r;
        std::uint64_t offset = 0, length = 0;
    };
    struct dispatch {
        std::string program;
        std::vector<scratch_resource> resources;
    };
    std::uint64_t allocations = 0, frees = 0;
    std::uint64_t upload_many_calls = 0, upload_many_ops = 0, upload_many_bytes = 0;
    std::vector<range> uploads;          ///< whole-resource `upload`s (offset 0)
    std::vector<range> ranged_uploads;   ///< `upload_at` (scratch_dispatch_at only)
    std::vector<range> full_downloads;   ///< `download` and `download_into`
    std::vector<range> ranged_reads;     ///< `download_range_into`
    std::uint64_t download_range_calls = 0;  ///< the bytes-returning ranged read
    std::vector<dispatch> dispatches;

    std::uint64_t bytes_up() const {
        std::uint64_t n = upload_many_bytes;
        for (const auto& u : uploads) n += u.length;
        for (const auto& u : ranged_uploads) n += u.length;
        return n;
    }
    std::uint64_t bytes_down() const {
        std::uint64_t n = 0;
        for (const auto& d : full_downloads) n += d.length;
        for (const auto& d : ranged_reads) n += d.length;
        return n;
    }
};

/// Exactly the members `weir::ifds_resident_dispatch` requires; nothing else
/// that weir's provided operations would look for.
class scratch_dispatch {
public:
    using resource = scratch_resource;

    std::string_view backend_id() const { return "scratch"; }
    std::string_view backend_version() const { return "1.0-test"; }

    vyre::result<resource> allocate(std::uint64_t n) {
        if (fail_allocation_ != 0 && ++allocation_attempts_ == fail_allocation_)
            return vyre::fail(vyre::error_code::out_of_memory, "scratch: allocation " + std::to_string(fail_allocation_) +
                                                                   " refused (test)");
        if (n > (1ull << 31)) return vyre::fail(vyre::error_code::out_of_memory, "scratch: too large");
        log.allocations++;
        // Reuse a free slot when there is one (its generation moved on at free).
        for (std::size_t i = 0; i < slots_.size(); ++i)
            if (!slots_[i].live) {
                slots_[i].live = true;
                slots_[i].data.assign(n, 0xCD);  // garbage, like device memory
                return resource{static_cast<std::uint32_t>(i + 1), slots_[i].generation};
            }
        slots_.push_back({1, true, vyre::bytes(n, 0xCD)});
        return resource{static_cast<std::uint32_t>(slots_.size()), 1};
    }
    vyre::result<void> free(const resource& r) {
        auto s = slot(r, "free");
        if (!s) return vyre::make_unexpected(s.error());
        (*s)->live = false;
        (*s)->generation++;
        (*s)->data = {};
        log.frees++;
        return {};
    }
    vyre::result<void> upload(const resource& r, weir::bytes_view in) {
        auto s = slot(r, "upload");
        if (!s) return vyre::make_unexpected(s.error());
        if (in.size() != (*s)->data.size())
            return vyre::fail(vyre::error_code::invalid_argument, "scratch: upload of " + std::to_string(in.size()) +
                                                                      " bytes into a resource of " +
                                                                      std::to_string((*s)->data.size()));
        std::copy(in.begin(), in.end(), (*s)->data.begin());
        log.uploads.push_back({r, 0, in.size()});
        return {};
    }
    vyre::result<void> upload_many(std::span<const vyre::upload_op<resource>> ops) {
        std::vector<slot_t*> dst;
        for (const auto& op : ops) {  // check everything first: all or nothing
            auto s = slot(op.resource, "upload_many");
            if (!s) return vyre::make_unexpected(s.error());
            if (op.data.size() != (*s)->data.size())
                return vyre::fail(vyre::error_code::invalid_argument, "scratch: upload_many size mismatch");
            dst.push_back(*s);
        }
        log.upload_many_calls++;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            std::copy(ops[i].data.begin(), ops[i].data.end(), dst[i]->data.begin());
            log.upload_many_ops++;
            log.upload_many_bytes += ops[i].data.size();
        }
        return {};
    }
    vyre::result<vyre::bytes> download(const resource& r) {
        auto s = slot(r, "download");
        if (!s) return vyre::make_unexpected(s.error());
        log.full_downloads.push_back({r, 0, (*s)->data.size()});
        return (*s)->data;
    }
    vyre::result<void> download_into(const resource& r, weir::mutable_bytes_view out) {
        auto s = slot(r, "download_into");
        if (!s) return vyre::make_unexpected(s.error());
        if (out.size() != (*s)->data.size())
            return vyre::fail(vyre::error_code::invalid_argument, "scratch: download_into size mismatch");
        std::copy((*s)->data.begin(), (*s)->data.end(), out.begin());
        log.full_downloads.push_back({r, 0, out.size()});
        return {};
    }
    vyre::result<vyre::bytes> download_range(const resource& r, std::uint64_t off, std::uint64_t n) {
        auto s = ranged(r, off, n, "download_range");
        if (!s) return vyre::make_unexpected(s.error());
        log.download_range_calls++;
        auto b = (*s)->data.begin() + static_cast<std::ptrdiff_t>(off);
        return vyre::bytes(b, b + static_cast<std::ptrdiff_t>(n));
    }
    vyre::result<void> download_range_into(const resource& r, std::uint64_t off, weir::mutable_bytes_view out) {
        auto s = ranged(r, off, out.size(), "download_range_into");
        if (!s) return vyre::make_unexpected(s.error());
        auto b = (*s)->data.begin() + static_cast<std::ptrdiff_t>(off);
        std::copy(b, b + static_cast<std::ptrdiff_t>(out.size()), out.begin());
        log.ranged_reads.push_back({r, off, out.size()});
        return {};
    }
    vyre::result<void> dispatch_resident(const vyre::ir::program& p, std::span<const resource> rs,
                                         weir::grid_override grid) {
        auto cp = compiled(p);
        if (!cp) return vyre::make_unexpected(cp.error());
        std::vector<vyre::detail::bound_buffer> bound(p.buffers.size());
        std::size_t k = 0;
        for (std::size_t i = 0; i < p.buffers.size(); ++i) {
            const auto& b = p.buffers[i];
            if (b.acc == vyre::ir::access::workgroup) {
                bound[i] = {nullptr, b.count, b.type};
                continue;
            }
            if (k >= rs.size())
                return vyre::fail(vyre::error_code::invalid_argument, "scratch: too few resources for " + p.name);
            auto s = slot(rs[k++], "dispatch_resident");
            if (!s) return vyre::make_unexpected(s.error());
            const std::uint64_t es = vyre::ir::size_of(b.type), size = (*s)->data.size();
            if (size % es != 0 || (b.count != 0 && size != b.count * es))
                return vyre::fail(vyre::error_code::invalid_argument,
                                  "scratch: resource of " + std::to_string(size) + " bytes for buffer " + b.name);
            bound[i] = {(*s)->data.data(), size / es, b.type};
        }
        if (k != rs.size())
            return vyre::fail(vyre::error_code::invalid_argument, "scratch: too many resources for " + p.name);
        const auto wg = p.workgroup_size;
        const auto g = grid ? *grid : vyre::detail::default_grid(p, bound, wg[0]);
        log.dispatches.push_back({p.name, std::vector<resource>(rs.begin(), rs.end())});
        vyre::detail::executor ex(**cp, bound, wg, g, 0);
        return ex.run();
    }

    // ---- test hooks (not part of the concept) ----
    transfer_log log;
    void reset_log() { log = {}; }
    /// Live resources.
    std::size_t live() const {
        return static_cast<std::size_t>(std::count_if(slots_.begin(), slots_.end(), [](const slot_t& s) { return s.live; }));
    }
    /// The n-th allocation from now on fails (0: none).
    void fail_nth_allocation(std::uint64_t n) {
        fail_allocation_ = n;
        allocation_attempts_ = 0;
    }
    /// A resource's bytes, without logging a transfer.
    vyre::bytes peek(const resource& r) {
        auto s = slot(r, "peek");
        return s ? (*s)->data : vyre::bytes{};
    }
    /// Programs compiled so far (each validated once).
    std::size_t programs_compiled() const { return cache_.size(); }

protected:
    struct slot_t {
        std::uint32_t generation = 1;
        bool live = false;
        vyre::bytes data;
    };

    vyre::result<slot_t*> slot(const resource& r, const char* what) {
        if (r.id == 0 || r.id > slots_.size() || !slots_[r.id - 1].live || slots_[r.id - 1].generation != r.generation)
            return vyre::fail(vyre::error_code::invalid_resource,
                              std::string("scratch: ") + what + ": resource " + std::to_string(r.id) + "/" +
                                  std::to_string(r.generation) + " is not live");
        return &slots_[r.id - 1];
    }
    vyre::result<slot_t*> ranged(const resource& r, std::uint64_t off, std::uint64_t n, const char* what) {
        auto s = slot(r, what);
        if (!s) return s;
        if (off > (*s)->data.size() || n > (*s)->data.size() - off)
            return vyre::fail(vyre::error_code::invalid_argument, std::string("scratch: ") + what + " out of range");
        return s;
    }

    /// Validates and compiles `p` once (later calls find it in the cache).
    vyre::result<std::shared_ptr<const vyre::detail::compiled_program>> compiled(const vyre::ir::program& p) {
        for (const auto& [src, cp] : cache_)
            if (src == p) return cp;
        auto diags = vyre::ir::validate(p);
        if (!diags.empty())
            return vyre::fail(vyre::error_code::invalid_program,
                              "scratch: program '" + p.name + "' is invalid: " + vyre::ir::format_diagnostics(diags));
        std::shared_ptr<const vyre::detail::compiled_program> cp = vyre::detail::compile(p);
        cache_.emplace_back(p, cp);
        return cp;
    }

private:
    std::vector<slot_t> slots_;
    std::vector<std::pair<vyre::ir::program, std::shared_ptr<const vyre::detail::compiled_program>>> cache_;
    std::uint64_t fail_allocation_ = 0, allocation_attempts_ = 0;
};

/// The same dispatcher plus the optional `upload_at` hook that weir's
/// `upload_at_many` fallback and the solver's counter writes use when present.
class scratch_dispatch_at : public scratch_dispatch {
public:
    vyre::result<void> upload_at(const resource& r, std::uint64_t off, weir::bytes_view in) {
        auto s = ranged(r, off, in.size(), "upload_at");
        if (!s) return vyre::make_unexpected(s.error());
        std::copy(in.begin(), in.end(), (*s)->data.begin() + static_cast<std::ptrdiff_t>(off));
        log.ranged_uploads.push_back({r, off, in.size()});
        return {};
    }
};

/// The dispatcher plus the optional `prepare` hook (`weir::prepare`), which
/// compiles ahead of time and records the programs' names; `refuse` makes it
/// fail instead.
class scratch_dispatch_prepare : public scratch_dispatch {
public:
    vyre::result<void> prepare(const vyre::ir::program& p) {
        if (refuse) return vyre::fail(vyre::error_code::invalid_program, "scratch: prepare refused " + p.name + " (test)");
        auto cp = compiled(p);
        if (!cp) return vyre::make_unexpected(cp.error());
        prepared.push_back(p.name);
        return {};
    }
    std::vector<std::string> prepared;
    bool refuse = false;
};

static_assert(std::regular<scratch_resource>);
static_assert(weir::ifds_resident_dispatch<scratch_dispatch>);
static_assert(weir::ifds_resident_dispatch<scratch_dispatch_at>);
// None of the provided operations is a member, so the fallbacks run.
template <class D>
concept member_upload_at_many = requires(D& d, std::span<const vyre::write_range<typename D::resource>> w) {
    d.upload_at_many(w);
};
template <class D>
concept member_download_ranges_into = requires(D& d, std::span<const vyre::read_range<typename D::resource>> r,
                                               std::span<const weir::mutable_bytes_view> o) {
    d.download_ranges_into(r, o);
};
template <class D>
concept member_sequence = requires(D& d, std::span<const weir::dispatch_step<typename D::resource>> s,
                                   std::span<const vyre::read_range<typename D::resource>> r,
                                   std::span<const weir::mutable_bytes_view> o) {
    d.dispatch_resident_sequence_read_ranges_into(s, r, o);
    d.dispatch_resident_repeated_sequence_read_ranges_into(s, s, 1, r, o);
};
template <class D>
concept member_upload_at = requires(D& d, const typename D::resource& r, weir::bytes_view v) { d.upload_at(r, 0, v); };
static_assert(!member_upload_at_many<scratch_dispatch> && !member_upload_at_many<scratch_dispatch_at>);
static_assert(!member_download_ranges_into<scratch_dispatch> && !member_download_ranges_into<scratch_dispatch_at>);
static_assert(!member_sequence<scratch_dispatch> && !member_sequence<scratch_dispatch_at>);
static_assert(!member_upload_at<scratch_dispatch>);
static_assert(member_upload_at<scratch_dispatch_at>);
// The probes do find members where there are some: the vyre adapter has them all.
static_assert(member_upload_at_many<weir::vyre_resident_ifds<vyre::cpu_ref>> &&
              member_download_ranges_into<weir::vyre_resident_ifds<vyre::cpu_ref>> &&
              member_sequence<weir::vyre_resident_ifds<vyre::cpu_ref>> &&
              member_upload_at<weir::vyre_resident_ifds<vyre::cpu_ref>>);
// A type that lacks one required member does not model the concept.
struct no_ranged_read {
    using resource = scratch_resource;
    std::string_view backend_id() const { return "x"; }
    std::string_view backend_version() const { return "x"; }
    vyre::result<resource> allocate(std::uint64_t);
    vyre::result<void> free(const resource&);
    vyre::result<void> upload(const resource&, weir::bytes_view);
    vyre::result<void> upload_many(std::span<const vyre::upload_op<resource>>);
    vyre::result<vyre::bytes> download(const resource&);
    vyre::result<void> download_into(const resource&, weir::mutable_bytes_view);
    vyre::result<vyre::bytes> download_range(const resource&, std::uint64_t, std::uint64_t);
    vyre::result<void> dispatch_resident(const vyre::ir::program&, std::span<const resource>, weir::grid_override);
};
static_assert(!weir::ifds_resident_dispatch<no_ranged_read>);

// ---- helpers ------------------------------------------------------------------------

const char* const data_files[] = {"spec_examples.ifds", "recursion.ifds", "indirect.ifds", "two_sites.ifds"};

problem load_data(const std::string& name) {
    auto r = load_problem_file(std::string(WEIR_TEST_DATA_DIR) + "/" + name);
    if (!r) FAIL("cannot load " << name << ": " << r.error().what());
    return std::move(r).value();
}

std::vector<problem> generated_problems() {
    std::vector<problem> out;
    weir::test::gen_options o;
    for (std::uint64_t seed = 0; seed < 100; ++seed) {
        o.procs = 1 + seed % 7;
        o.facts = 1 + seed % 6;
        o.max_nodes = 3 + seed % 6;
        o.seeds = 1 + seed % 3;
        o.p_recursion = seed % 4 == 0 ? 0.3 : 0.15;
        o.p_shared_retsite = seed % 5 == 0 ? 0.4 : 0.1;
        out.push_back(weir::test::random_problem(5000 + seed, o));
    }
    return out;
}

/// Checks resident == tabulation; returns how many times the frontier was grown.
template <class D>
std::size_t check_parity(const problem& pb, const std::string& what, resident_options opt = {}) {
    INFO(what);
    const auto L = make_layout(pb);
    const auto expect = tabulation_solver(L).solve().value();
    D d;
    {
        auto solver = resident_solver<D>::create(d, L, opt);
        if (!solver) FAIL(solver.error().what());
        auto got = solver->solve();
        if (!got) FAIL(got.error().what());
        CHECK(got->path_edges == expect.path_edges);
        CHECK(got->stats.path_edges == expect.stats.path_edges);
        CHECK(got->stats.contexts == expect.stats.contexts);
        CHECK(got->stats.summary_edges == expect.stats.summary_edges);
        CHECK(extract_solution(L, got->path_edges) == extract_solution(L, expect.path_edges));
    }
    CHECK(d.live() == 0);  // the solver and its graph freed everything
    CHECK(d.log.frees == d.log.allocations);
    return static_cast<std::size_t>(std::count_if(d.log.dispatches.begin(), d.log.dispatches.end(),
                                                  [](const auto& x) { return x.program == "weir_copy"; }));
}

std::uint64_t graph_bytes(const layout& L) {
    std::uint64_t n = 0;
    for (const auto* t : weir::ifds::detail::graph_tables(L)) n += std::max<std::size_t>(t->size(), 1) * 4;
    return n;
}

/// Indices of the solver's per-solve buffers in a kernel's resource list.
constexpr std::size_t pe_index = graph_buffer_count, fin_index = graph_buffer_count + 1,
                      counters_index = graph_buffer_count + 3;

/// Checks the transfers of one solve (the log was reset just before it).
template <class D>
void check_solve_transfers(const D& d, const layout& L, const typename resident_solver<D>::output& out,
                           std::size_t n_seeds, std::uint64_t graph_bytes_counted) {
    const auto& log = d.log;
    constexpr bool has_upload_at = std::is_same_v<D, scratch_dispatch_at>;
    // No graph upload during a solve.
    CHECK(log.upload_many_calls == 0);
    // Find the kernels' bindings.
    REQUIRE(!log.dispatches.empty());
    CHECK(log.dispatches.front().program == "weir_clear");
    const auto seed_it = std::find_if(log.dispatches.begin(), log.dispatches.end(),
                                      [](const auto& x) { return x.program == "weir_ifds_seed"; });
    REQUIRE(seed_it != log.dispatches.end());
    REQUIRE(seed_it->resources.size() == graph_buffer_count + 4);
    const scratch_resource pe = seed_it->resources[pe_index], fin = seed_it->resources[fin_index],
                           counters = seed_it->resources[counters_index];
    CHECK(log.dispatches.front().resources == std::vector<scratch_resource>{pe});
    std::uint64_t rounds = 0, copies = 0;
    for (const auto& x : log.dispatches) {
        if (x.program == "weir_ifds_seed" || x.program == "weir_ifds_expand") {
            ++rounds;
            REQUIRE(x.resources.size() == graph_buffer_count + 4);
            CHECK(x.resources[pe_index] == pe);
            CHECK(x.resources[counters_index] == counters);
        } else if (x.program == "weir_copy") {
            ++copies;
        } else {
            CHECK(x.program == "weir_clear");
        }
    }
    // Per round (re-runs after a frontier overflow included): one 4-byte ranged
    // read of out_count (counters[1]); nothing else is read in part.
    CHECK(log.ranged_reads.size() == rounds);
    CHECK(log.download_range_calls == 0);
    for (const auto& r : log.ranged_reads) {
        CHECK(r.r == counters);
        CHECK(r.offset == 4);
        CHECK(r.length == 4);
    }
    // Rounds the solver reports: the expand rounds; plus the seed round and any re-runs.
    CHECK(rounds >= out.stats.rounds + 1);
    if (copies == 0) CHECK(rounds == out.stats.rounds + 1);
    // Whole downloads: the path-edge bitset, once, at the end.
    const std::uint64_t pe_bytes = std::uint64_t(std::max<std::uint32_t>(L.pe_words, 1)) * 4;
    std::vector<transfer_log::range> pe_downloads, other_downloads;
    for (const auto& x : log.full_downloads) (x.r == pe ? pe_downloads : other_downloads).push_back(x);
    REQUIRE(pe_downloads.size() == 1);
    CHECK(pe_downloads[0].length == pe_bytes);
    CHECK(log.full_downloads.back().r == pe);
    if constexpr (has_upload_at) {
        CHECK(other_downloads.empty());
        // Uploads: counters (16 B at 0) per round, and the seeds into frontier A.
        CHECK(log.uploads.empty());
        std::uint64_t seed_writes = 0;
        for (const auto& u : log.ranged_uploads) {
            if (u.r == counters) {
                CHECK(u.offset == 0);
                CHECK(u.length == 16);
            } else {
                ++seed_writes;
                CHECK(u.r == fin);
                CHECK(u.offset == 0);
                CHECK(u.length == n_seeds * 8);
            }
        }
        CHECK(seed_writes == (n_seeds ? 1u : 0u));
        // The solver's own byte counts are exact (the first solve after the
        // graph upload also counts the graph's bytes).
        CHECK(out.stats.bytes_downloaded == log.bytes_down());
        CHECK(out.stats.bytes_uploaded == log.bytes_up() + graph_bytes_counted);
    } else {
        // Without `upload_at`, the solver writes the seeds with one whole `upload`
        // of frontier A (nothing past the seeds is read), so the bitset stays the
        // only whole download.
        CHECK(other_downloads.empty());
        CHECK(log.ranged_uploads.empty());
        std::size_t fin_uploads = 0;
        for (const auto& u : log.uploads) {
            CHECK((u.r == counters || u.r == fin));
            fin_uploads += u.r == fin;
        }
        CHECK(fin_uploads == (n_seeds ? 1u : 0u));
        CHECK(out.stats.bytes_downloaded == log.bytes_down());
    }
}

} // namespace

// ---- parity ----------------------------------------------------------------------------

TEST_CASE("scratch dispatcher: resident solver equals tabulation on generated problems", "[ifds][dispatch][parity]") {
    auto problems = generated_problems();
    REQUIRE(problems.size() == 100);
    for (std::size_t i = 0; i < problems.size(); ++i)
        check_parity<scratch_dispatch>(problems[i], "generated problem " + std::to_string(i));
}

TEST_CASE("scratch dispatcher with upload_at: parity on generated problems", "[ifds][dispatch][parity]") {
    auto problems = generated_problems();
    for (std::size_t i = 0; i < problems.size(); i += 3)
        check_parity<scratch_dispatch_at>(problems[i], "generated problem " + std::to_string(i));
}

TEST_CASE("scratch dispatcher: parity on the data files", "[ifds][dispatch][parity]") {
    for (const char* f : data_files) {
        auto pb = load_data(f);
        check_parity<scratch_dispatch>(pb, f);
        check_parity<scratch_dispatch_at>(pb, f);
    }
}

TEST_CASE("scratch dispatcher: parity with frontier overflow and regrowth", "[ifds][dispatch][parity]") {
    weir::test::gen_options o;
    o.procs = 16;
    o.facts = 8;
    o.max_nodes = 9;
    o.seeds = 3;
    resident_options opt;
    opt.initial_frontier = 16;  // the minimum: forces overflows
    std::size_t grown = 0;
    for (std::uint64_t seed = 0; seed < 6; ++seed) {
        auto pb = weir::test::random_problem(9100 + seed, o);
        grown += check_parity<scratch_dispatch>(pb, "overflow problem " + std::to_string(seed), opt);
    }
    CHECK(grown > 0);
}

// ---- transfers -------------------------------------------------------------------------

TEMPLATE_TEST_CASE("scratch dispatcher: what a solver moves", "[ifds][dispatch][transfers]", scratch_dispatch,
                   scratch_dispatch_at) {
    std::vector<std::pair<std::string, problem>> cases;
    for (const char* f : data_files) cases.emplace_back(f, load_data(f));
    weir::test::gen_options o;
    o.procs = 6;
    o.facts = 5;
    for (std::uint64_t seed = 0; seed < 8; ++seed)
        cases.emplace_back("generated " + std::to_string(seed), weir::test::random_problem(7000 + seed, o));
    for (const auto& [what, pb] : cases) {
        INFO(what);
        const auto L = make_layout(pb);
        const auto expect = tabulation_solver(L).solve().value();
        TestType d;
        {
            auto solver = resident_solver<TestType>::create(d, L);
            REQUIRE(solver.has_value());
            // The graph went up in exactly one upload_many of every table; nothing else moved.
            CHECK(d.log.upload_many_calls == 1);
            CHECK(d.log.upload_many_ops == graph_buffer_count);
            CHECK(d.log.upload_many_bytes == graph_bytes(L));
            CHECK(d.log.uploads.empty());
            CHECK(d.log.ranged_uploads.empty());
            CHECK(d.log.full_downloads.empty());
            CHECK(d.log.ranged_reads.empty());
            CHECK(d.log.dispatches.empty());
            CHECK(d.live() == graph_buffer_count + 4);  // tables + pe, two frontiers, counters
            // Repeated solves reuse everything.
            for (int rep = 0; rep < 3; ++rep) {
                d.reset_log();
                auto out = solver->solve();
                REQUIRE(out.has_value());
                CHECK(out->path_edges == expect.path_edges);
                check_solve_transfers(d, L, *out, L.seed_node.size(), rep == 0 ? graph_bytes(L) : 0);
                CHECK(d.log.allocations == 0);
                CHECK(d.live() == graph_buffer_count + 4);
            }
            // A batch: still no graph upload; one whole bitset download per entry.
            std::vector<seed_set> sets;
            for (std::uint32_t p = 0; p < L.num_procs; ++p) sets.push_back({{L.proc_start[p]}, {0}});
            sets.push_back({L.seed_node, L.seed_fact});
            d.reset_log();
            auto outs = solver->solve_batch(sets);
            REQUIRE(outs.has_value());
            REQUIRE(outs->size() == sets.size());
            for (std::size_t i = 0; i < sets.size(); ++i)
                CHECK((*outs)[i].path_edges == tabulation_solver(L).solve(sets[i].node, sets[i].fact).value().path_edges);
            CHECK(d.log.upload_many_calls == 0);
            std::size_t clears = 0;
            for (const auto& x : d.log.dispatches) clears += x.program == "weir_clear";
            CHECK(clears == sets.size());
            // Programs were validated and compiled once each (seed, expand, clear; copy when grown).
            CHECK(d.programs_compiled() <= 4);
        }
        CHECK(d.live() == 0);
    }
}

TEST_CASE("scratch dispatcher: a shared resident graph is uploaded once for several solvers", "[ifds][dispatch][transfers]") {
    auto pb = load_data("two_sites.ifds");
    const auto L = make_layout(pb);
    scratch_dispatch d;
    {
        resident_graph_cache<scratch_dispatch> cache;
        auto g1 = cache.get(d, L);
        REQUIRE(g1.has_value());
        auto g2 = cache.get(d, L);
        REQUIRE(g2.has_value());
        CHECK(*g1 == *g2);
        auto s1 = resident_solver<scratch_dispatch>::create(d, L, *g1);
        auto s2 = resident_solver<scratch_dispatch>::create(d, L, *g2);
        REQUIRE(s1.has_value());
        REQUIRE(s2.has_value());
        auto o1 = s1->solve();
        auto o2 = s2->solve();
        REQUIRE(o1.has_value());
        REQUIRE(o2.has_value());
        CHECK(o1->path_edges == o2->path_edges);
        CHECK(o1->path_edges == tabulation_solver(L).solve().value().path_edges);
        CHECK(d.log.upload_many_calls == 1);
        CHECK(cache.stats().hits == 1);
        CHECK(cache.stats().misses == 1);
    }
    CHECK(d.live() == 0);
}

TEST_CASE("scratch dispatcher: create prepares the kernels a solve dispatches, so the first solve compiles none",
          "[ifds][dispatch][prepare]") {
    auto pb = load_data("two_sites.ifds");
    const auto L = make_layout(pb);
    scratch_dispatch_prepare d;
    auto s = resident_solver<scratch_dispatch_prepare>::create(d, L);
    REQUIRE(s.has_value());
    REQUIRE(s->mode() == kernel_mode::ir_kernels);  // no catalogue ops: the IR kernels, in rounds
    // the clear, the seed and the expand kernels, each once
    CHECK(d.prepared.size() == 3);
    CHECK(std::set<std::string>(d.prepared.begin(), d.prepared.end()).size() == 3);
    CHECK(d.programs_compiled() == 3);
    d.reset_log();
    auto o = s->solve();
    REQUIRE(o.has_value());
    CHECK(o->path_edges == tabulation_solver(L).solve().value().path_edges);
    CHECK(d.programs_compiled() == 3);  // nothing compiled during the solve
    std::set<std::string> ran;
    for (const auto& x : d.log.dispatches) ran.insert(x.program);
    CHECK(ran == std::set<std::string>(d.prepared.begin(), d.prepared.end()));
}

TEST_CASE("scratch dispatcher: a prepare that fails makes create fail with its error, and leaks nothing",
          "[ifds][dispatch][prepare][errors]") {
    auto pb = load_data("two_sites.ifds");
    const auto L = make_layout(pb);
    scratch_dispatch_prepare d;
    d.refuse = true;
    {
        auto s = resident_solver<scratch_dispatch_prepare>::create(d, L);
        REQUIRE_FALSE(s.has_value());
        CHECK(s.error().code() == vyre::error_code::invalid_program);
        CHECK(std::string(s.error().what()).find("prepare refused") != std::string::npos);
    }
    CHECK(d.live() == 0);
}

// ---- misuse ------------------------------------------------------------------------------

TEST_CASE("scratch dispatcher: solver misuse gives error results", "[ifds][dispatch][errors]") {
    auto pb = load_data("recursion.ifds");
    const auto L = make_layout(pb);
    const auto expect = tabulation_solver(L).solve().value();
    scratch_dispatch d;
    auto solver = resident_solver<scratch_dispatch>::create(d, L);
    REQUIRE(solver.has_value());
    std::uint32_t non_start = 0;
    while (L.node_kind[non_start] & kind_start) ++non_start;
    const std::uint32_t start = L.proc_start[0];

    auto expect_error = [&](std::vector<std::uint32_t> nodes, std::vector<std::uint32_t> facts, const char* frag) {
        INFO(frag);
        auto r = solver->solve(nodes, facts);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code() == vyre::error_code::invalid_argument);
        CHECK_THAT(r.error().message(), Catch::Contains(frag));
    };
    SECTION("a seed at a node that is not a start node") {
        expect_error({non_start}, {0}, "is not at a start node");
        expect_error({start, non_start}, {0, 0}, "seed 1 is not at a start node");
    }
    SECTION("a seed node out of range") { expect_error({L.num_nodes}, {0}, "is not at a start node"); }
    SECTION("a local fact out of range") {
        expect_error({start}, {L.node_fact_count[start]}, "outside its procedure's fact set");
        expect_error({start}, {~0u}, "outside its procedure's fact set");
    }
    SECTION("seed nodes and facts of different length") { expect_error({start, start}, {0}, "differ in number"); }
    // After an error nothing moved and the solver still works.
    auto again = solver->solve();
    REQUIRE(again.has_value());
    CHECK(again->path_edges == expect.path_edges);
    // An empty seed set solves to nothing.
    auto none = solver->solve(std::vector<std::uint32_t>{}, std::vector<std::uint32_t>{});
    REQUIRE(none.has_value());
    CHECK(none->path_edges == std::vector<std::uint32_t>(L.pe_words, 0u));
}

TEST_CASE("scratch dispatcher: a problem seeded at a non-start node is an error, not a crash", "[ifds][dispatch][errors]") {
    // The loader rejects this; a problem built in code can still carry it.
    weir::test::mini_problem m;
    m.facts({"x"}).proc("main", "s", "e").node("mid", "main").flow("s", "mid", "gen:x").flow("mid", "e");
    auto pb = m.get();
    pb.seeds.push_back({m.n("mid"), zero_fact});
    const auto L = make_layout(pb);
    scratch_dispatch d;
    auto solver = resident_solver<scratch_dispatch>::create(d, L);
    REQUIRE(solver.has_value());
    auto r = solver->solve();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == vyre::error_code::invalid_argument);
}

TEST_CASE("scratch dispatcher: a resident graph of another layout is refused", "[ifds][dispatch][errors]") {
    auto a = make_layout(load_data("two_sites.ifds"));
    auto b = make_layout(load_data("indirect.ifds"));
    scratch_dispatch d;
    auto g = resident_graph<scratch_dispatch>::upload(d, a);
    REQUIRE(g.has_value());
    auto s = resident_solver<scratch_dispatch>::create(d, b, *g);
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().code() == vyre::error_code::invalid_argument);
}

TEST_CASE("scratch dispatcher: failed allocations are errors and leak nothing", "[ifds][dispatch][errors]") {
    weir::test::gen_options o;
    o.procs = 12;
    o.facts = 6;
    o.max_nodes = 8;
    auto pb = weir::test::random_problem(4242, o);
    const auto L = make_layout(pb);
    const auto expect = tabulation_solver(L).solve().value();
    resident_options opt;
    opt.initial_frontier = 16;  // growth allocates during the solve too
    std::uint64_t total_allocs = 0;
    {
        scratch_dispatch d;
        auto s = resident_solver<scratch_dispatch>::create(d, L, opt);
        REQUIRE(s.has_value());
        auto out = s->solve();
        REQUIRE(out.has_value());
        total_allocs = d.log.allocations;
    }
    REQUIRE(total_allocs > graph_buffer_count + 4);  // the frontier grew at least once
    for (std::uint64_t k = 1; k <= total_allocs; ++k) {
        INFO("allocation " << k << " fails");
        scratch_dispatch d;
        d.fail_nth_allocation(k);
        {
            auto s = resident_solver<scratch_dispatch>::create(d, L, opt);
            if (k <= graph_buffer_count + 4) {
                REQUIRE_FALSE(s.has_value());
                CHECK(s.error().code() == vyre::error_code::out_of_memory);
            } else {
                REQUIRE(s.has_value());
                auto out = s->solve();
                REQUIRE_FALSE(out.has_value());
                CHECK(out.error().code() == vyre::error_code::out_of_memory);
                // The solver is still usable once memory is there again.
                d.fail_nth_allocation(0);
                auto again = s->solve();
                REQUIRE(again.has_value());
                CHECK(again->path_edges == expect.path_edges);
            }
        }
        CHECK(d.live() == 0);
    }
}

// ---- provided operations' fallbacks ---------------------------------------------------

TEMPLATE_TEST_CASE("scratch dispatcher: upload_at_many and download_ranges_into fallbacks", "[ifds][dispatch][provided]",
                   scratch_dispatch, scratch_dispatch_at) {
    TestType d;
    auto a = d.allocate(16);
    auto b = d.allocate(8);
    REQUIRE(a.has_value());
    REQUIRE(b.has_value());
    const std::vector<std::uint8_t> za(16, 0), zb(8, 0);
    REQUIRE(d.upload(*a, za).has_value());
    REQUIRE(d.upload(*b, zb).has_value());
    d.reset_log();

    const std::vector<std::uint8_t> w1{1, 2, 3}, w2{9, 9}, w3{7};
    std::vector<vyre::write_range<scratch_resource>> writes{{*a, 2, w1}, {*b, 6, w2}, {*a, 15, w3}};
    auto u = weir::upload_at_many(d, std::span<const vyre::write_range<scratch_resource>>(writes));
    REQUIRE(u.has_value());
    CHECK(d.peek(*a) == std::vector<std::uint8_t>{0, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7});
    CHECK(d.peek(*b) == std::vector<std::uint8_t>{0, 0, 0, 0, 0, 0, 9, 9});
    if constexpr (std::is_same_v<TestType, scratch_dispatch_at>) {
        CHECK(d.log.ranged_uploads.size() == 3);  // one upload_at each, nothing whole
        CHECK(d.log.full_downloads.empty());
        CHECK(d.log.uploads.empty());
    } else {
        CHECK(d.log.full_downloads.size() == 3);  // download-patch-upload of each write's resource
        CHECK(d.log.uploads.size() == 3);
    }

    // A write past the end fails and changes nothing.
    std::vector<vyre::write_range<scratch_resource>> past{{*b, 7, w2}};
    auto bad = weir::upload_at_many(d, std::span<const vyre::write_range<scratch_resource>>(past));
    REQUIRE_FALSE(bad.has_value());
    CHECK(d.peek(*b) == std::vector<std::uint8_t>{0, 0, 0, 0, 0, 0, 9, 9});
    // A write to a freed resource fails.
    auto c = d.allocate(4);
    REQUIRE(c.has_value());
    REQUIRE(d.free(*c).has_value());
    std::vector<vyre::write_range<scratch_resource>> stale{{*c, 0, w3}};
    auto st = weir::upload_at_many(d, std::span<const vyre::write_range<scratch_resource>>(stale));
    REQUIRE_FALSE(st.has_value());
    CHECK(st.error().code() == vyre::error_code::invalid_resource);

    // Ranged reads: one download_range_into each, into caller storage.
    d.reset_log();
    std::vector<std::uint8_t> o1(3), o2(2), o3(1);
    std::vector<vyre::read_range<scratch_resource>> ranges{{*a, 2, 3}, {*b, 6, 2}, {*a, 15, 1}};
    std::vector<weir::mutable_bytes_view> outs{o1, o2, o3};
    auto r = weir::download_ranges_into(d, std::span<const vyre::read_range<scratch_resource>>(ranges),
                                        std::span<const weir::mutable_bytes_view>(outs));
    REQUIRE(r.has_value());
    CHECK(o1 == w1);
    CHECK(o2 == w2);
    CHECK(o3 == w3);
    CHECK(d.log.full_downloads.empty());
    REQUIRE(d.log.ranged_reads.size() == 3);
    CHECK(d.log.ranged_reads[1].offset == 6);
    CHECK(d.log.ranged_reads[1].length == 2);

    // Mismatched outputs are errors.
    std::vector<weir::mutable_bytes_view> fewer{o1, o2};
    auto r2 = weir::download_ranges_into(d, std::span<const vyre::read_range<scratch_resource>>(ranges),
                                         std::span<const weir::mutable_bytes_view>(fewer));
    REQUIRE_FALSE(r2.has_value());
    CHECK(r2.error().code() == vyre::error_code::invalid_argument);
    std::vector<weir::mutable_bytes_view> wrong{o2, o2, o3};
    auto r3 = weir::download_ranges_into(d, std::span<const vyre::read_range<scratch_resource>>(ranges),
                                         std::span<const weir::mutable_bytes_view>(wrong));
    REQUIRE_FALSE(r3.has_value());
    CHECK(r3.error().code() == vyre::error_code::invalid_argument);
    // A range past the end is the dispatcher's error, passed through.
    std::vector<vyre::read_range<scratch_resource>> over{{*b, 7, 2}};
    std::vector<weir::mutable_bytes_view> one{o2};
    auto r4 = weir::download_ranges_into(d, std::span<const vyre::read_range<scratch_resource>>(over),
                                         std::span<const weir::mutable_bytes_view>(one));
    REQUIRE_FALSE(r4.has_value());

    REQUIRE(d.free(*a).has_value());
    REQUIRE(d.free(*b).has_value());
    CHECK(d.live() == 0);
    // Double free and use after free are errors, not crashes.
    CHECK_FALSE(d.free(*a).has_value());
    CHECK_FALSE(d.download(*b).has_value());
}

TEST_CASE("scratch dispatcher: sequence fallbacks run steps in order, then the reads", "[ifds][dispatch][provided]") {
    auto prog = vyre::ir::parse(R"((program inc (workgroup 4 1 1)
  (buffer v 0 read_write u32 0)
  (let i (gid x))
  (if (lt i (len v))
    ((store v i (add (mul (load v i) 2) 1))))))");
    if (!prog) FAIL(prog.error().what());
    REQUIRE(vyre::ir::validate(*prog).empty());
    scratch_dispatch d;
    auto v = d.allocate(8 * 4);
    REQUIRE(v.has_value());
    REQUIRE(d.upload(*v, std::vector<std::uint8_t>(32, 0)).has_value());
    using step = weir::dispatch_step<scratch_resource>;
    std::vector<step> one{{&*prog, {*v}, std::nullopt}};
    std::vector<step> two{{&*prog, {*v}, std::array<std::uint32_t, 3>{1, 1, 1}}, {&*prog, {*v}, std::nullopt}};
    std::uint32_t got[2] = {0, 0};
    std::vector<vyre::read_range<scratch_resource>> rr{{*v, 0, 4}, {*v, 28, 4}};
    std::vector<weir::mutable_bytes_view> outs{weir::mutable_bytes_view(reinterpret_cast<std::uint8_t*>(&got[0]), 4),
                                               weir::mutable_bytes_view(reinterpret_cast<std::uint8_t*>(&got[1]), 4)};
    d.reset_log();
    // Steps: element 0..3 (grid 1) then all: x -> 2x+1 twice for the first half, once for the rest.
    auto r = weir::dispatch_resident_sequence_read_ranges_into(d, std::span<const step>(two),
                                                               std::span<const vyre::read_range<scratch_resource>>(rr),
                                                               std::span<const weir::mutable_bytes_view>(outs));
    REQUIRE(r.has_value());
    CHECK(got[0] == 3u);
    CHECK(got[1] == 1u);
    CHECK(d.log.dispatches.size() == 2);
    CHECK(d.log.ranged_reads.size() == 2);
    // Prefix once, then the repeated part 3 times: 3 -> 7 -> 15 -> 31 -> 63; 1 -> 3 -> 7 -> 15 -> 31.
    auto r2 = weir::dispatch_resident_repeated_sequence_read_ranges_into(
        d, std::span<const step>(one), std::span<const step>(one), 3,
        std::span<const vyre::read_range<scratch_resource>>(rr), std::span<const weir::mutable_bytes_view>(outs));
    REQUIRE(r2.has_value());
    CHECK(got[0] == 63u);
    CHECK(got[1] == 31u);
    CHECK(d.log.dispatches.size() == 6);
    CHECK(d.log.full_downloads.empty());
    // An invalid program is refused by validation, not run.
    vyre::ir::program bad("bad");
    bad.buffer("v", 0, vyre::ir::access::read, vyre::ir::scalar_type::u32);
    bad.add(vyre::ir::dsl::store("v", vyre::ir::dsl::lit(0u), vyre::ir::dsl::lit(1u)));
    auto r3 = d.dispatch_resident(bad, std::vector<scratch_resource>{*v}, std::nullopt);
    REQUIRE_FALSE(r3.has_value());
    CHECK(r3.error().code() == vyre::error_code::invalid_program);
    REQUIRE(d.free(*v).has_value());
}

// ---- IDE with stage 2 on another dispatcher -------------------------------------------
// scratch_dispatch runs no op, as `cuda` runs none: the IDE solver solves its
// stage 1 there (IR kernels) and hands stage 2 to a host dispatcher.

TEST_CASE("scratch dispatcher: IDE with stage 2 on a host dispatcher equals tabulation", "[ide][dispatch][parity]") {
    using linear = weir::ide::linear;
    vyre::cpu_ref host_backend;
    weir::vyre_resident_ifds<vyre::cpu_ref> host(host_backend);
    using solver_t = weir::ide::resident_solver<linear, scratch_dispatch, weir::vyre_resident_ifds<vyre::cpu_ref>>;
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
        INFO("seed " << seed);
        scratch_dispatch d;
        const auto pb = weir::test::small_ide_problem(seed);
        const auto L = weir::ide::make_layout(pb);
        auto s = solver_t::create(d, host, L);
        if (!s) FAIL(s.error().what());
        auto out = s->solve();
        if (!out) FAIL(out.error().what());
        const auto expect = weir::ide::tabulation_solver<linear>(pb).solve().value();
        CHECK(out->result == expect);
        CHECK(out->result.stats == expect.stats);
        CHECK_FALSE(d.log.dispatches.empty());  // stage 1 ran on the scratch dispatcher
    }
    CHECK(host_backend.resident_bytes() == 0);  // every solver freed its stage 2
}

TEST_CASE("scratch dispatcher: IDE on it alone runs stage 2 as the IR kernels and equals tabulation",
          "[ide][dispatch][parity]") {
    using linear = weir::ide::linear;
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
        INFO("seed " << seed);
        scratch_dispatch d;
        const auto pb = weir::test::small_ide_problem(seed);
        const auto L = weir::ide::make_layout(pb);
        auto s = weir::ide::resident_solver<linear, scratch_dispatch>::create(d, L);
        if (!s) FAIL(s.error().what());
        CHECK(s->uses_ir_kernels());
        for (int run = 0; run < 2; ++run) {  // (the second reuses every buffer)
            auto out = s->solve();
            if (!out) FAIL(out.error().what());
            const auto expect = weir::ide::tabulation_solver<linear>(pb).solve().value();
            CHECK(out->result == expect);
            CHECK(out->result.stats == expect.stats);
        }
        auto dispatched = [&](std::string_view name) {
            return std::count_if(d.log.dispatches.begin(), d.log.dispatches.end(),
                                 [&](const auto& x) { return x.program == name; });
        };
        CHECK(dispatched("weir_ide_jf_apply") > 0);
        CHECK(dispatched("weir_ide_values") == 2);
    }
}

namespace {
/// `linear` under another name and without IR forms of its operations.
struct linear_without_ir : weir::ide::linear {
    static constexpr std::string_view name = "linear_without_ir";
};
} // namespace

TEST_CASE("scratch dispatcher: IDE that it can run neither as the op nor as kernels is refused before anything is "
          "uploaded",
          "[ide][dispatch][errors]") {
    static_assert(weir::ide::edge_function_family<linear_without_ir>);
    static_assert(!weir::ide::ir_edge_function_family<linear_without_ir>);
    scratch_dispatch d;
    {
        const auto pb = weir::test::small_ide_problem(3);
        const auto L = weir::ide::make_layout(pb);
        auto s = weir::ide::resident_solver<weir::ide::linear, scratch_dispatch>::create(d, L, {}, weir::ide::stage2_mode::op);
        REQUIRE_FALSE(s.has_value());
        CHECK(s.error().code() == vyre::error_code::unsupported);
        CHECK_THAT(s.error().message(), Catch::Contains("ide_solve_linear"));
    }
    weir::ide::problem<linear_without_ir> pb;
    pb.graph = weir::test::small_ide_problem(3).graph;
    pb.fill_defaults();  // (every edge the identity)
    const auto L = weir::ide::make_layout(pb);
    auto s = weir::ide::resident_solver<linear_without_ir, scratch_dispatch>::create(d, L);
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().code() == vyre::error_code::unsupported);
    CHECK_THAT(s.error().message(), Catch::Contains("no IR forms"));
    CHECK_THAT(s.error().fix(), Catch::Contains("create(d, host, L)"));
    CHECK(d.log.allocations == 0);
}
