#pragma once
/// \file weir/ifds/resident_solver.hpp
/// `resident_solver<D>`: the exact IFDS fixed point computed in
/// bulk-synchronous rounds on resident buffers, over any
/// `ifds_resident_dispatch` D (vyre backends through `vyre_resident_ifds`).
///
/// The graph is uploaded once (or shared through `resident_graph_cache`).
/// A solve seeds the frontier, then runs rounds: each round is one resident
/// sequence (the expand kernel) followed by a ranged read of the 4-byte
/// out-count; the frontiers swap; it stops when a round finds nothing new.
/// Only the final path-edge bitset is downloaded whole (on a dispatcher that
/// gives adopted host memory back, `reclaims_host_memory`, not even that: the
/// solve runs in a zeroed host vector of the result's size that it adopted,
/// and returns that vector as the result). In the row modes the
/// solve skips the derived nodes (weir/ifds/row_tables.hpp): the resident
/// bitset holds the solved nodes' blocks only (packed), and after the
/// download `unpack_bitset` moves them to the layout's positions and
/// `derive_rows` sets the derived nodes' bits on the host. The bits equal the
/// tabulation solver's, bit for bit.

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <vyre/backend/parallel.hpp>
#include <vyre/core/huge_pages.hpp>

#include <weir/ifds/host_pass.hpp>
#include <weir/ifds/kernels.hpp>
#include <weir/ifds/layout.hpp>
#include <weir/core/resident_dispatch.hpp>
#include <weir/ifds/resident_graph.hpp>
#include <weir/ifds/row_tables.hpp>
#include <weir/ifds/stats.hpp>
#include <weir/ifds/summaries.hpp>

namespace weir::ifds {

/// How a solve runs, both with the same result:
/// - `ir_kernels`: bulk-synchronous rounds of vyre IR kernels, one
///   invocation per path edge (portable: any backend can interpret or
///   compile them; what `cuda` runs);
/// - `row_solve`: weir's extension op `ifds_rows_solve`
///   (weir/ifds/ops/solve.hpp), the whole fixed point in one dispatch on a
///   worklist inside the op, up to 32 facts of a row per entry (needs the
///   graph's row tables).
/// `automatic` takes `row_solve` when the dispatcher lists the op in
/// `supported_ops()` (every host backend: natively on `cpu`, by its
/// reference on `cpu_ref`), else `ir_kernels`. (Round ops per path edge
/// and per row chunk were measured slower than `row_solve` on every host
/// backend and removed: bench/README.md.)
enum class kernel_mode { automatic, ir_kernels, row_solve };

/// True for the modes that need the graph's row tables.
constexpr bool needs_rows(kernel_mode m) { return m == kernel_mode::row_solve; }

/// Options of a resident solver.
struct resident_options {
    /// IR kernels or the solve op (see `kernel_mode`).
    kernel_mode mode = kernel_mode::automatic;
    /// Frontier entries allocated at first (grown by doubling on demand).
    std::uint32_t initial_frontier = 4096;
    /// Workgroups per round at most (rounds use a grid-stride loop).
    std::uint32_t max_workgroups = 65535;
    /// Bytes the solver may hold, resident and host together: the graph's
    /// tables, the path-edge bitset, the frontiers (as they grow) and the
    /// downloaded result (not the derived nodes' relations that a graph with
    /// row tables keeps on the host, `resident_graph::derived()`: some 30
    /// bytes per derived node on the benchmark problems). 0: no limit. Past
    /// it, `create` or a solve fails with `out_of_memory`, frees what it took
    /// and presents no partial result.
    std::uint64_t memory_budget = 0;
    /// Threads for the host work after a solve (completing the derived
    /// rows, counting summary edges); 0: `host_threads(d)`, the backend's own
    /// thread count on `cpu`, else every core.
    unsigned host_threads = 0;
    /// Called after each round with (round, frontier size, path edges so far); may be empty.
    std::function<void(std::uint64_t, std::uint64_t, std::uint64_t)> on_round = {};
};

/// A set of seeds in layout terms: start nodes and *local* fact indices.
struct seed_set {
    std::vector<std::uint32_t> node;
    std::vector<std::uint32_t> fact;
};

/// The resident solver. Scratch buffers (path edges, frontiers, counters) are
/// allocated once and reused by every solve and batch entry.
template <ifds_resident_dispatch D>
class resident_solver {
public:
    using resource = typename D::resource;

    /// What a solve returns: the path-edge bitset (as `tabulation_solver`'s) and statistics.
    struct output {
        std::vector<std::uint32_t> path_edges;
        solve_stats stats;
    };

    /// Uploads the layout's graph now (`L` must outlive the solver; on a
    /// dispatcher that borrows host memory the layout's tables are borrowed,
    /// not copied: `resident_graph::upload_borrowing`).
    static result<resident_solver> create(D& d, const layout& L, resident_options opt = {}) {
        VYRE_TRY(ops::register_ops());
        VYRE_TRY(check_mode(d, opt.mode));
        auto t0 = clock::now();
        // Over budget on the graph's own tables already: fail before uploading anything.
        const bool rows = needs_rows(pick_mode(d, opt.mode, true));
        std::uint64_t graph_bytes = 0;
        const auto tables = detail::graph_tables(L);
        for (std::size_t i = 0; i < tables.size(); ++i)
            if (!rows || !detail::left_out_with_rows(i, false)) graph_bytes += std::max<std::uint64_t>(tables[i]->size(), 1) * 4;
        if (opt.memory_budget != 0 && graph_bytes > opt.memory_budget)
            return vyre::fail(vyre::error_code::out_of_memory,
                              "resident_solver: the resident graph needs " + std::to_string(graph_bytes) +
                                  " bytes, past the memory budget of " + std::to_string(opt.memory_budget),
                              "raise resident_options::memory_budget, or split the problem");
        auto g = resident_graph<D>::upload_borrowing(d, L, rows);
        if (!g) return vyre::make_unexpected(g.error());
        auto s = create(d, L, std::move(*g), std::move(opt));
        if (s) s->upload_seconds_ = seconds_since(t0);
        return s;
    }
    /// Uses an already resident graph (from a `resident_graph_cache`).
    static result<resident_solver> create(D& d, const layout& L, std::shared_ptr<resident_graph<D>> g,
                                          resident_options opt = {}) {
        if (!(g->shape() == shape_of(L)))
            return vyre::fail(vyre::error_code::invalid_argument, "resident_solver: the resident graph has another shape than the layout",
                              "get the graph for this layout from the cache");
        VYRE_TRY(check_mode(d, opt.mode));
        if (needs_rows(opt.mode) && !g->has_rows())
            return vyre::fail(vyre::error_code::invalid_argument,
                              "resident_solver: row_solve needs a resident graph with row tables",
                              "upload it with resident_graph::upload(d, L, true) or cache.get(d, L, true)");
        if (g->has_rows() && !needs_rows(pick_mode(d, opt.mode, true)))
            return vyre::fail(vyre::error_code::invalid_argument,
                              "resident_solver: a resident graph with row tables serves only row_solve (it leaves "
                              "out the per-fact tables), and this solve would run ir_kernels",
                              "upload the graph without row tables: resident_graph::upload(d, L, false) or cache.get(d, L, false)");
        resident_solver s(d, L, std::move(g), std::move(opt));
        VYRE_TRY(s.allocate_scratch());
        VYRE_TRY(s.prepare_kernels());
        return s;
    }

    resident_solver(resident_solver&& o) noexcept { *this = std::move(o); }
    resident_solver& operator=(resident_solver&& o) noexcept {
        if (this != &o) {
            release();
            d_ = o.d_;
            L_ = o.L_;
            graph_ = std::move(o.graph_);
            opt_ = std::move(o.opt_);
            pe_ = o.pe_, fa_ = o.fa_, fb_ = o.fb_, counters_ = o.counters_;
            cap_a_ = o.cap_a_, cap_b_ = o.cap_b_;
            have_pe_ = o.have_pe_, have_a_ = o.have_a_, have_b_ = o.have_b_, have_c_ = o.have_c_;
            upload_seconds_ = o.upload_seconds_;
            held_ = o.held_;
            programs_ = std::move(o.programs_);
            entry_words_ = o.entry_words_;
            owns_ = o.owns_;
            o.owns_ = false;
        }
        return *this;
    }
    resident_solver(const resident_solver&) = delete;
    resident_solver& operator=(const resident_solver&) = delete;
    ~resident_solver() { release(); }

    /// Solves for the layout's own seeds.
    result<output> solve() { return solve(L_->seed_node, L_->seed_fact); }

    /// Solves for the given seeds (start nodes, local fact indices).
    result<output> solve(std::span<const std::uint32_t> seed_node, std::span<const std::uint32_t> seed_fact) {
        output out;
        out.stats.seconds_upload = upload_seconds_;
        if (upload_seconds_ > 0) out.stats.bytes_uploaded += graph_->bytes();  // the first solve after the upload
        upload_seconds_ = 0;
        VYRE_TRY(run(seed_node, seed_fact, out));
        return out;
    }

    /// Solves many seed sets over the one resident graph, reusing every buffer.
    result<std::vector<output>> solve_batch(std::span<const seed_set> sets) {
        std::vector<output> outs;
        outs.reserve(sets.size());
        for (const auto& s : sets) {
            auto o = solve(s.node, s.fact);
            if (!o) return vyre::make_unexpected(o.error());
            outs.push_back(std::move(*o));
        }
        return outs;
    }

    /// The resident graph in use (one that `create(d, L)` made may borrow
    /// `L`'s tables: it must not outlive `L`).
    const std::shared_ptr<resident_graph<D>>& graph() const { return graph_; }

private:
    using clock = std::chrono::steady_clock;
    static double seconds_since(clock::time_point t) {
        return std::chrono::duration<double>(clock::now() - t).count();
    }

    struct kernels {
        explicit kernels(kernel_mode m) : mode(m) {
            if (m == kernel_mode::row_solve) {
                seed = rows_solve_kernel();
            } else {
                seed = seed_kernel();
                expand = expand_kernel();
            }
        }
        kernel_mode mode;
        vyre::ir::program seed{""}, expand{""}, copy = copy_kernel(), clear = clear_kernel();
    };

    /// Refuses `row_solve` on a dispatcher that does not run its op (`cuda`:
    /// weir's extension ops are host ops), before anything is uploaded.
    static result<void> check_mode(const D& d, kernel_mode m) {
        if (m == kernel_mode::row_solve && !runs_row_solve(d))
            return vyre::fail(vyre::error_code::unsupported,
                              "resident_solver: row_solve runs weir's op ifds_rows_solve, which this dispatcher does "
                              "not list in supported_ops()",
                              "use kernel_mode::ir_kernels (or automatic, which picks what the dispatcher runs)");
        return {};
    }

    /// The mode a solve runs in: `m` unless automatic, else `row_solve`
    /// where the dispatcher runs the op and the graph has row tables.
    static kernel_mode pick_mode(const D& d, kernel_mode m, bool graph_has_rows) {
        if (m != kernel_mode::automatic) return m;
        if (graph_has_rows && runs_row_solve(d)) return kernel_mode::row_solve;
        return kernel_mode::ir_kernels;
    }

    resident_solver(D& d, const layout& L, std::shared_ptr<resident_graph<D>> g, resident_options opt)
        : d_(&d), L_(&L), graph_(std::move(g)), opt_(std::move(opt)),
          programs_(std::make_shared<kernels>(pick_mode(d, opt_.mode, graph_->has_rows()))),
          entry_words_(needs_rows(programs_->mode) ? 4 : 2) {}

public:
    /// The mode rounds run in (never `automatic`).
    kernel_mode mode() const { return programs_->mode; }
    /// True when the solve runs as weir's op rather than IR kernels.
    bool uses_solve_op() const { return programs_->mode == kernel_mode::row_solve; }

private:

public:
    /// True when each solve runs in the host vector it returns: zeroed,
    /// adopted as the resident bitset, given back after the solve
    /// (`reclaims_host_memory<D>`: the host backends), so that no resident
    /// copy of the bitset is held or downloaded; else the bitset stays
    /// resident between solves and each solve downloads it.
    static constexpr bool solves_in_place = reclaims_host_memory<D>;

    /// Bytes the solver holds now, as `resident_options::memory_budget`
    /// counts them (its graph, bitset, frontiers and the result's host bitset).
    std::uint64_t held_bytes() const { return held_; }

private:
    /// Words of the resident path-edge bitset (at least one).
    std::uint64_t resident_bitset_words() const { return std::max<std::uint32_t>(graph_->bitset_words(), 1); }

    /// The solver's own footprint: what `memory_budget` limits.
    std::uint64_t frontier_bytes(std::uint64_t entries) const { return entries * entry_words_ * 4; }

    /// Fails with `out_of_memory` when holding `more` bytes on top of what the
    /// solver holds would pass the budget (nothing is allocated here).
    result<void> fits(std::uint64_t more, const char* what) const {
        if (opt_.memory_budget == 0 || held_ + more <= opt_.memory_budget) return {};
        return vyre::fail(vyre::error_code::out_of_memory,
                          std::string("resident_solver: ") + what + " needs " + std::to_string(more) + " bytes on top of " +
                              std::to_string(held_) + " held, past the memory budget of " +
                              std::to_string(opt_.memory_budget),
                          "raise resident_options::memory_budget, or split the problem or its seeds");
    }

    /// Allocates `n` bytes into `r` within the budget.
    result<void> take(resource& r, bool& have, std::uint64_t n, const char* what) {
        VYRE_TRY(fits(n, what));
        auto a = d_->allocate(n);
        if (!a) return vyre::make_unexpected(a.error());
        r = *a;
        have = true;
        held_ += n;
        return {};
    }

    /// Readies the kernels every solve dispatches (`weir::prepare`), so that
    /// the first solve does not validate or compile them: the clear (unless
    /// solving in place, where the bitset starts as a zeroed vector and is
    /// never cleared), the seed (in `row_solve` mode the whole solve), and
    /// the expand of the round modes. `copy` runs only when a frontier grows,
    /// and is left to its first dispatch.
    result<void> prepare_kernels() {
        if constexpr (!solves_in_place) VYRE_TRY(weir::prepare(*d_, programs_->clear));
        VYRE_TRY(weir::prepare(*d_, programs_->seed));
        if (programs_->mode != kernel_mode::row_solve) VYRE_TRY(weir::prepare(*d_, programs_->expand));
        return {};
    }

    result<void> allocate_scratch() {
        owns_ = true;
        held_ = graph_->bytes();
        VYRE_TRY(fits(0, "the resident graph"));
        const std::uint64_t words = std::max<std::uint32_t>(L_->pe_words, 1);
        // The downloaded bitset of a solve is budgeted from the start, so a solve cannot fail on it.
        VYRE_TRY(fits(words * 4, "the result's host bitset"));
        held_ += words * 4;
        cap_a_ = cap_b_ = std::max<std::uint32_t>(opt_.initial_frontier, 16);
        // resident: the packed bitset on a graph with row tables (the solved nodes' blocks
        // only); solving in place, the result's host bitset is the resident one (each solve adopts it)
        if constexpr (!solves_in_place)
            VYRE_TRY(take(pe_, have_pe_, resident_bitset_words() * 4, "the path-edge bitset"));
        VYRE_TRY(take(fa_, have_a_, frontier_bytes(cap_a_), "frontier A"));
        VYRE_TRY(take(fb_, have_b_, frontier_bytes(cap_b_), "frontier B"));
        VYRE_TRY(take(counters_, have_c_, 16, "the round counters"));
        return {};
    }

    /// Replaces frontier `f` (capacity `cap`) by a new one of `want` entries;
    /// with `keep`, copies the old entries over first. On error `f` is unchanged.
    result<void> grow(resource& f, std::uint32_t& cap, std::uint64_t want, bool keep) {
        VYRE_TRY(fits(frontier_bytes(want), "a larger frontier"));
        auto nb = d_->allocate(frontier_bytes(want));
        if (!nb) return vyre::make_unexpected(nb.error());
        if (keep) {
            std::vector<resource> cp{f, *nb};
            auto r = d_->dispatch_resident(programs_->copy, std::span<const resource>(cp),
                                           std::array<std::uint32_t, 3>{1, 1, 1});
            if (!r) {
                (void)d_->free(*nb);
                return r;
            }
        }
        (void)d_->free(f);
        held_ += frontier_bytes(want);
        held_ -= frontier_bytes(cap);
        f = *nb;
        cap = static_cast<std::uint32_t>(want);
        return {};
    }

    void release() {
        if (!owns_) return;
        if (have_pe_) (void)d_->free(pe_);
        if (have_a_) (void)d_->free(fa_);
        if (have_b_) (void)d_->free(fb_);
        if (have_c_) (void)d_->free(counters_);
        owns_ = false;
    }

    std::vector<resource> bindings(const resource& fin, const resource& fout) const {
        std::vector<resource> rs = graph_->tables();
        rs.push_back(pe_);
        rs.push_back(fin);
        rs.push_back(fout);
        rs.push_back(counters_);
        return rs;
    }

    result<void> set_counters(std::uint32_t in, std::uint32_t out, std::uint32_t cap, output& o) {
        std::uint32_t c[4] = {in, out, cap, 0};
        o.stats.bytes_uploaded += sizeof c;
        if constexpr (requires { d_->upload_at(counters_, 0, bytes_view()); })
            return d_->upload_at(counters_, 0, bytes_view(reinterpret_cast<const std::uint8_t*>(c), sizeof c));
        else
            return d_->upload(counters_, bytes_view(reinterpret_cast<const std::uint8_t*>(c), sizeof c));
    }

    /// Runs `prog` over frontier A → B until it fits, growing B on overflow.
    /// Returns the number of new entries in B.
    result<std::uint32_t> round(const vyre::ir::program& prog, std::uint32_t n_in, output& o) {
        std::uint32_t already = 0;
        for (;;) {
            VYRE_TRY(set_counters(n_in, already, cap_b_, o));
            std::uint32_t groups = std::clamp<std::uint32_t>((n_in + 63) / 64, 1, opt_.max_workgroups);
            std::vector<dispatch_step<resource>> steps{
                {&prog, bindings(fa_, fb_), std::array<std::uint32_t, 3>{groups, 1, 1}}};
            std::uint32_t n_out = 0;
            std::vector<vyre::read_range<resource>> rr{{counters_, 4, 4}};
            std::vector<mutable_bytes_view> outs{mutable_bytes_view(reinterpret_cast<std::uint8_t*>(&n_out), 4)};
            VYRE_TRY(dispatch_resident_sequence_read_ranges_into(
                *d_, std::span<const dispatch_step<resource>>(steps), std::span<const vyre::read_range<resource>>(rr),
                std::span<const mutable_bytes_view>(outs)));
            o.stats.bytes_downloaded += 4;
            if (n_out <= cap_b_) return n_out;
            // Overflow: keep the cap_b_ valid entries, grow B, and run the round again;
            // the edges that did not fit had their bits cleared and are found again.
            std::uint64_t want = std::max<std::uint64_t>(std::uint64_t(n_out), std::uint64_t(cap_b_) * 2);
            if (want > 0x7fffffffull)
                return vyre::fail(vyre::error_code::out_of_memory, "resident_solver: frontier of " + std::to_string(n_out) +
                                  " path edges exceeds the 2^31 entry limit", "split the problem or its seeds");
            already = cap_b_;
            VYRE_TRY(grow(fb_, cap_b_, want, true));
        }
    }

    /// Rounds: seed, then expand until a round finds nothing new.
    result<void> run_rounds(std::uint32_t n_seeds, output& o) {
        auto n = round(programs_->seed, n_seeds, o);
        if (!n) return vyre::make_unexpected(n.error());
        std::uint64_t total = *n;
        std::uint32_t frontier = *n;
        while (frontier > 0) {
            std::swap(fa_, fb_);
            std::swap(cap_a_, cap_b_);
            auto next = round(programs_->expand, frontier, o);
            if (!next) return vyre::make_unexpected(next.error());
            o.stats.rounds++;
            o.stats.max_frontier = std::max<std::uint64_t>(o.stats.max_frontier, frontier);
            frontier = *next;
            total += frontier;
            if (opt_.on_round) opt_.on_round(o.stats.rounds, frontier, total);
        }
        o.stats.path_edges = total;  // row entries carry several edges: recounted from the bits
        return {};
    }

    /// `row_solve`: the seeds (already in frontier A) and one dispatch of
    /// `ifds_rows_solve`, whose counters say how many row chunks it expanded.
    result<void> solve_in_one_dispatch(std::uint32_t n_seeds, output& o) {
        VYRE_TRY(set_counters(n_seeds, 0, 0, o));
        std::vector<resource> rs = graph_->tables();
        rs.insert(rs.end(), {pe_, fa_, counters_});
        std::vector<dispatch_step<resource>> steps{{&programs_->seed, rs, std::array<std::uint32_t, 3>{1, 1, 1}}};
        std::uint32_t expanded = 0;
        std::vector<vyre::read_range<resource>> rr{{counters_, 4, 4}};
        std::vector<mutable_bytes_view> outs{mutable_bytes_view(reinterpret_cast<std::uint8_t*>(&expanded), 4)};
        VYRE_TRY(dispatch_resident_sequence_read_ranges_into(
            *d_, std::span<const dispatch_step<resource>>(steps), std::span<const vyre::read_range<resource>>(rr),
            std::span<const mutable_bytes_view>(outs)));
        o.stats.bytes_downloaded += 4;
        o.stats.rounds = 1;
        o.stats.expanded = expanded;
        if (opt_.on_round) opt_.on_round(1, 0, 0);  // one "round"; the path edges are counted from the bits after
        return {};
    }

    result<void> run(std::span<const std::uint32_t> seed_node, std::span<const std::uint32_t> seed_fact, output& o) {
        const layout& L = *L_;
        VYRE_TRY(check_seeds(L, seed_node, seed_fact, "resident_solver"));
        auto t0 = clock::now();
        const unsigned threads = host_thread_count();
        if constexpr (solves_in_place) {
            // the result's vector, zeroed, becomes the resident bitset (its first
            // resident_bitset_words() words; no clear needed)
            if (have_pe_) (void)d_->free(std::exchange(pe_, resource{})), have_pe_ = false;  // (a failed solve's)
            detail::assign_zeroed(o.path_edges, std::max<std::uint32_t>(L.pe_words, 1), threads);
            auto r = d_->adopt(std::move(o.path_edges));
            if (!r) return vyre::make_unexpected(r.error());
            pe_ = *r, have_pe_ = true;
        } else {
            // reset the path edges
            std::vector<resource> clr{pe_};
            VYRE_TRY(d_->dispatch_resident(programs_->clear, std::span<const resource>(clr),
                                           std::array<std::uint32_t, 3>{1, 1, 1}));
        }
        // seeds into frontier A
        auto n_seeds = static_cast<std::uint32_t>(seed_node.size());
        if (n_seeds > cap_a_) VYRE_TRY(grow(fa_, cap_a_, n_seeds, false));
        if (n_seeds) {
            std::vector<std::uint32_t> entries(std::size_t(entry_words_) * n_seeds);
            for (std::uint32_t i = 0; i < n_seeds; ++i) {
                std::uint32_t* e = entries.data() + std::size_t(entry_words_) * i;
                if (entry_words_ == 4) {  // row entry: node, context, chunk, mask
                    e[0] = seed_node[i], e[1] = seed_fact[i], e[2] = seed_fact[i] / 32, e[3] = 1u << (seed_fact[i] % 32);
                } else {                  // edge entry: node, ctx * F + fact
                    e[0] = seed_node[i], e[1] = seed_fact[i] * L.node_fact_count[seed_node[i]] + seed_fact[i];
                }
            }
            if constexpr (requires { d_->upload_at(fa_, 0, bytes_view()); } ||
                          requires(std::span<const vyre::write_range<resource>> w) { d_->upload_at_many(w); }) {
                bytes_view v(reinterpret_cast<const std::uint8_t*>(entries.data()), entries.size() * 4);
                std::vector<vyre::write_range<resource>> w{{fa_, 0, v}};
                VYRE_TRY(upload_at_many(*d_, std::span<const vyre::write_range<resource>>(w)));
                o.stats.bytes_uploaded += v.size();
            } else {
                // No ranged upload: write the whole frontier buffer (what lies past the seeds is never read).
                entries.resize(std::size_t(cap_a_) * entry_words_, 0);
                bytes_view v(reinterpret_cast<const std::uint8_t*>(entries.data()), entries.size() * 4);
                VYRE_TRY(d_->upload(fa_, v));
                o.stats.bytes_uploaded += v.size();
            }
        }
        if (programs_->mode == kernel_mode::row_solve) {
            VYRE_TRY(solve_in_one_dispatch(n_seeds, o));
        } else {
            VYRE_TRY(run_rounds(n_seeds, o));
        }
        o.stats.seconds_solve = seconds_since(t0);
        auto t1 = clock::now();
        if constexpr (solves_in_place) {
            auto v = d_->template reclaim<std::uint32_t>(pe_);
            if (!v) return vyre::make_unexpected(v.error());
            o.path_edges = std::move(*v);
            have_pe_ = false;
        } else {
            detail::assign_zeroed(o.path_edges, std::max<std::uint32_t>(L.pe_words, 1), threads);
            const std::uint64_t resident_words = resident_bitset_words();
            VYRE_TRY(d_->download_into(pe_, mutable_bytes_view(reinterpret_cast<std::uint8_t*>(o.path_edges.data()),
                                                              resident_words * 4)));
            o.stats.bytes_downloaded += resident_words * 4;
        }
        o.path_edges.resize(L.pe_words);
        if (graph_->has_rows()) unpack_bitset(graph_->packing(), o.path_edges);  // to the layout's positions
        // Row modes skip the derived nodes (row_tables.hpp): their rows follow from the
        // solved ones. Completing them writes derived nodes' words only, and counting
        // the summary edges reads call sites' and exits' only (always solved), so the
        // two share one parallel pass.
        o.stats.summary_edges = finish_rows(L, needs_rows(programs_->mode) ? &graph_->derived() : nullptr, o.path_edges, threads);
        // Contexts (self-loop path edges <s_p, c> -> <s_p, c>) and, for row
        // entries (which carry several edges each), the path edges, from the
        // bits: one more parallel pass.
        const auto totals = detail::count_contexts_and_bits(L, o.path_edges, threads);
        o.stats.contexts = totals.contexts;
        if (entry_words_ == 4) o.stats.path_edges = totals.bits;
        o.stats.seconds_extract = seconds_since(t1);
        return {};
    }

    /// Threads for the host work after a solve: `resident_options::host_threads`,
    /// else the dispatcher's (`weir::host_threads`).
    unsigned host_thread_count() const { return opt_.host_threads ? opt_.host_threads : weir::host_threads(*d_); }

    /// Completes the derived rows of `pe` (when `dr` is given) and returns the
    /// summary edges, on up to `max_threads` threads: the chunks of groups of
    /// derived nodes (`derived_rows::chunk_off`) and of call edges handed out
    /// one at a time.
    std::uint64_t finish_rows(const layout& L, const derived_rows* dr, std::span<std::uint32_t> pe, unsigned max_threads) const {
        const std::size_t ces = L.ce_site.size();
        constexpr std::size_t ce_chunk = 256;
        const std::size_t group_items = dr && !dr->chunk_off.empty() ? dr->chunk_off.size() - 1 : 0;
        const std::size_t items = group_items + (ces + ce_chunk - 1) / ce_chunk;
        const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(max_threads, std::max<std::size_t>(items, 1)));
        std::atomic<std::size_t> next{0};
        std::atomic<std::uint64_t> summaries{0};
        vyre::parallel_region(threads, [&](unsigned, unsigned nt) {
            std::uint64_t mine = 0;
            for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < items;) {
                if (i < group_items) {
                    detail::derive_groups(L, *dr, pe, dr->chunk_off[i], dr->chunk_off[i + 1], nt > 1);
                } else {
                    const std::size_t c0 = (i - group_items) * ce_chunk;
                    mine += detail::count_summary_edges(L, pe, static_cast<std::uint32_t>(c0),
                                                        static_cast<std::uint32_t>(std::min(ces, c0 + ce_chunk)),
                                                        &graph_->returns());
                }
            }
            summaries.fetch_add(mine, std::memory_order_relaxed);
        });
        return summaries.load();
    }

    D* d_ = nullptr;
    const layout* L_ = nullptr;
    std::shared_ptr<resident_graph<D>> graph_;
    resident_options opt_;
    resource pe_{}, fa_{}, fb_{}, counters_{};
    bool have_pe_ = false, have_a_ = false, have_b_ = false, have_c_ = false, owns_ = false;
    std::uint32_t cap_a_ = 0, cap_b_ = 0;
    double upload_seconds_ = 0;
    std::uint64_t held_ = 0;  ///< bytes counted against `memory_budget`
    std::shared_ptr<kernels> programs_;
    std::uint32_t entry_words_ = 2;  ///< u32 words per frontier entry (2: one edge, 4: a row chunk)
};

} // namespace weir::ifds
