#pragma once
/// \file weir/ide/resident_solver.hpp
/// `weir::ide::resident_solver<F, D>`: the IDE solution on resident buffers
/// over any `ifds_resident_dispatch` D, equal to `tabulation_solver<F>`'s
/// bit for bit. Two stages per solve, no virtual call:
///
/// 1. reachability: `weir::ifds::resident_solver<D>` solves the graph
///    without its edge functions (every IFDS mode and backend; on `cpu` the
///    one-dispatch `ifds_rows_solve`) and gives the path-edge bitset;
/// 2. values: the bitset goes back up, and weir's op `ide_solve_<F::name>`
///    (weir/ide/ops/solve.hpp) computes both IDE phases in one dispatch, the
///    jump functions encoded in resident memory, one slot per path edge; the
///    values of every row come back in one download.
///
/// Batches (`solve(seed_set)`, `solve_batch`) reuse every buffer; both
/// resident graphs may come from an `ifds::resident_graph_cache`.
///
/// Stage 2 runs as the op where its dispatcher runs it (the host backends:
/// `cpu` natively, `cpu_ref` by its reference), and otherwise, for a family
/// with IR forms of its operations (`ir_edge_function_family`, `linear`
/// among them), as the portable IR kernels of weir/ide/kernels.hpp in
/// rounds (`cuda` through its lowering); `stage2_mode` picks one by hand.
/// Stage 2 may also run on a second dispatcher S, given to `create(d, s, L)`
/// (`resident_solver<F, D, S>`; the bitset goes from the one to the other
/// through the host, as it does anyway). A dispatcher that can run neither
/// is refused with `unsupported` before anything is uploaded.

#include <algorithm>
#include <bit>
#include <chrono>
#include <concepts>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <vyre/core/popcount.hpp>
#include <weir/core/resident_dispatch.hpp>
#include <weir/ide/kernel_stage.hpp>
#include <weir/ide/layout.hpp>
#include <weir/ide/linear_ir.hpp>
#include <weir/ide/ops/register.hpp>
#include <weir/ide/solution.hpp>
#include <weir/ifds/resident_graph.hpp>
#include <weir/ifds/resident_solver.hpp>

namespace weir::ide {

/// True when dispatcher `d` runs weir's op `ide_solve_<F::name>` (registers
/// it first), which the resident IDE solver's second stage dispatches.
template <edge_function_family F, class D>
bool runs_ide_solve(const D& d) {
    (void)ops::register_ide_ops<F>();
    return ifds::runs_ops(d, {ops::ide_solve_op<F>::name});
}

/// How stage 2 runs: `automatic` takes the op where stage 2's dispatcher
/// runs it and the IR kernels otherwise; `op` and `ir_kernels` insist.
enum class stage2_mode { automatic, op, ir_kernels };

/// A set of seeds in layout terms: start nodes, *local* fact indices and a
/// value each (the zero fact's value is bottom whatever is given).
template <edge_function_family F>
struct seed_set {
    std::vector<std::uint32_t> node;
    std::vector<std::uint32_t> fact;
    std::vector<typename F::value> value;
};

/// Times and sizes of one resident IDE solve, by stage.
struct resident_stats {
    ifds::solve_stats reachability;   ///< stage 1 (the IFDS solve)
    double seconds_upload = 0;        ///< stage 2's tables (the first solve after `create`) and the bitset
    double seconds_solve = 0;         ///< stage 2's dispatch
    double seconds_extract = 0;       ///< the values' download and the solution
    std::uint64_t updates = 0;        ///< jump-function updates in stage 2
};

/// The resident IDE solver (see the file comment): stage 1 on D, stage 2 on
/// S (by default the same dispatcher). Its buffers are allocated once and
/// reused by every solve.
template <edge_function_family F, ifds_resident_dispatch D, ifds_resident_dispatch S = D>
class resident_solver {
public:
    /// Stage 2's resources (its graph, tables, jump functions, values).
    using resource = typename S::resource;

    /// What a solve returns: the solution and the stages' statistics.
    struct output {
        solution<F> result;
        resident_stats stats;
    };

    /// Uploads the layout's graph and function tables; `L` must outlive the
    /// solver. `opt` configures stage 1; its `memory_budget` bounds both
    /// stages together: stage 1's footprint (as `ifds::resident_solver`
    /// counts it) plus stage 2's graph, tables, host values and jump
    /// functions (`held_bytes()`). Past it, `create` or a solve fails with
    /// `out_of_memory` before allocating what would not fit.
    static result<resident_solver> create(D& d, const layout<F>& L, ifds::resident_options opt = {},
                                          stage2_mode mode = stage2_mode::automatic)
        requires std::same_as<D, S>
    {
        return create(d, d, L, std::move(opt), mode);
    }

    /// The same with stage 1 on `d` and stage 2 on `s` (which must run the
    /// op; `d` need not, see the file comment). Both must outlive the solver.
    static result<resident_solver> create(D& d, S& s, const layout<F>& L, ifds::resident_options opt = {},
                                          stage2_mode mode = stage2_mode::automatic) {
        auto kernels = pick_stage2(s, d, mode);
        if (!kernels) return vyre::make_unexpected(kernels.error());
        const auto t0 = clock::now();
        auto reach = ifds::resident_solver<D>::create(d, L.graph, opt);
        if (!reach) return vyre::make_unexpected(reach.error());
        VYRE_TRY(check_stage2(L, *reach, opt.memory_budget, *kernels));
        auto full = ifds::resident_graph<S>::upload_borrowing(s, L.graph, false);  // (L outlives the solver)
        if (!full) return vyre::make_unexpected(full.error());
        return assemble(s, L, std::move(*reach), std::move(*full), t0, opt.memory_budget, *kernels);
    }

    /// The same with both resident graphs from `cache` (uploaded there when
    /// missing, shared with other solvers of the same layout): the one stage
    /// 1 solves on (with row tables where the dispatcher runs
    /// `ifds_rows_solve`) and the full one stage 2 reads.
    static result<resident_solver> create(D& d, const layout<F>& L, ifds::resident_graph_cache<D>& cache,
                                          ifds::resident_options opt = {}, stage2_mode mode = stage2_mode::automatic)
        requires std::same_as<D, S>
    {
        auto kernels = pick_stage2(d, d, mode);
        if (!kernels) return vyre::make_unexpected(kernels.error());
        const auto t0 = clock::now();
        auto g = cache.get(d, L.graph);
        if (!g) return vyre::make_unexpected(g.error());
        auto reach = ifds::resident_solver<D>::create(d, L.graph, *g, opt);
        if (!reach) return vyre::make_unexpected(reach.error());
        VYRE_TRY(check_stage2(L, *reach, opt.memory_budget, *kernels));  // (a cached graph counts in full, shared or not)
        auto full = cache.get(d, L.graph, false);
        if (!full) return vyre::make_unexpected(full.error());
        return assemble(d, L, std::move(*reach), std::move(*full), t0, opt.memory_budget, *kernels);
    }

    resident_solver(resident_solver&& o) noexcept
        : d_(o.d_), L_(o.L_), reach_(std::move(o.reach_)), graph_(std::move(o.graph_)), program_(std::move(o.program_)),
          bufs_(std::move(o.bufs_)), seeds_(std::move(o.seeds_)), seed_words_(o.seed_words_), jf_(o.jf_),
          jf_bytes_(o.jf_bytes_), upload_seconds_(o.upload_seconds_), budget_(o.budget_), fixed_bytes_(o.fixed_bytes_),
          kernels_(std::move(o.kernels_)) {
        o.bufs_.clear();
        o.jf_bytes_ = 0;
    }
    resident_solver& operator=(resident_solver&&) = delete;
    resident_solver(const resident_solver&) = delete;
    resident_solver& operator=(const resident_solver&) = delete;
    ~resident_solver() { release(); }

    /// Solves for the layout's seeds and seed values.
    result<output> solve() { return run(L_->graph.seed_node, L_->graph.seed_fact, seeds_); }

    /// Solves for other seeds over the same resident graph and buffers.
    result<output> solve(const seed_set<F>& seeds) {
        const std::size_t n = seeds.node.size();
        if (seeds.fact.size() != n || seeds.value.size() != n)
            return vyre::fail(vyre::error_code::invalid_argument,
                              "ide::resident_solver: a seed set has " + std::to_string(n) + " nodes, " +
                                  std::to_string(seeds.fact.size()) + " facts and " + std::to_string(seeds.value.size()) +
                                  " values",
                              "give every seed a node, a local fact and a value");
        VYRE_TRY(ifds::check_seeds(L_->graph, seeds.node, seeds.fact, "ide::resident_solver"));
        constexpr std::size_t V = F::encoded_value_words;
        std::vector<std::uint32_t> words;
        words.reserve(n * (2 + V));
        for (std::size_t i = 0; i < n; ++i) {
            words.push_back(seeds.node[i]);
            words.push_back(seeds.fact[i]);
            words.resize(words.size() + V);
            F::encode_value(seeds.fact[i] == 0 ? F::bottom_value() : seeds.value[i], words.data() + words.size() - V);
        }
        return run(seeds.node, seeds.fact, words);
    }

    /// Solves many seed sets over the one resident graph, reusing every buffer.
    result<std::vector<output>> solve_batch(std::span<const seed_set<F>> sets) {
        std::vector<output> outs;
        outs.reserve(sets.size());
        for (const auto& s : sets) {
            auto o = solve(s);
            if (!o) return vyre::make_unexpected(o.error());
            outs.push_back(std::move(*o));
        }
        return outs;
    }

    /// Bytes both stages hold now, as `memory_budget` counts them: stage 1's
    /// (`ifds::resident_solver::held_bytes`), stage 2's graph, tables and
    /// values (with their host copy where they are downloaded) and the
    /// jump-function slots.
    std::uint64_t held_bytes() const { return reach_.held_bytes() + fixed_bytes_ + jf_bytes_ + kernel_bytes(); }

    /// True when stage 2 runs as the IR kernels (weir/ide/kernels.hpp) rather than the op.
    bool uses_ir_kernels() const {
        if constexpr (ir_edge_function_family<F>) return kernels_.has_value();
        else return false;
    }

    /// The dispatch that stage 2 runs (its buffers named as the op's arguments).
    const vyre::ir::program& program() const { return program_; }

private:
    using clock = std::chrono::steady_clock;

    /// How stage 2 runs on `s` (`d` is stage 1's): true for the IR kernels,
    /// false for the op; `unsupported` when `s` can run neither as asked.
    static result<bool> pick_stage2(const S& s, const D& d, stage2_mode mode) {
        VYRE_TRY(ops::register_ide_ops<F>());
        const bool op = runs_ide_solve<F>(s);
        if (mode == stage2_mode::op || (mode == stage2_mode::automatic && op)) {
            if (op) return false;
            return vyre::fail(vyre::error_code::unsupported,
                              "ide::resident_solver: this dispatcher (" + std::string(s.backend_id()) +
                                  ") does not run weir's op " + std::string(ops::ide_solve_op<F>::name),
                              "use stage2_mode::ir_kernels or automatic (the op runs on cpu and cpu-ref)");
        }
        if constexpr (ir_edge_function_family<F>) {
            return true;
        } else {
            return vyre::fail(vyre::error_code::unsupported,
                              "ide::resident_solver: this dispatcher (" + std::string(s.backend_id()) +
                                  ") does not run weir's op " + std::string(ops::ide_solve_op<F>::name) +
                                  ", and the family '" + std::string(F::name) +
                                  "' has no IR forms of its operations for the portable kernels",
                              std::string("specialise weir::ide::ir_ops<F> (weir/ide/ir_family.hpp), solve on vyre::cpu "
                                          "or vyre::cpu_ref") +
                                  (static_cast<const void*>(&s) == static_cast<const void*>(&d)
                                       ? ", or give stage 2 a host dispatcher: create(d, host, L)"
                                       : "") +
                                  ", or with ide::tabulation_solver");
        }
    }

    /// Stage 2's bytes besides the jump functions: the full graph, its own
    /// buffers (function tables, bitset, seeds, values, counters) and, where
    /// S has no host-visible memory, the host copy of the values that a
    /// solve downloads.
    static std::uint64_t stage2_fixed_bytes(const layout<F>& L) {
        const ifds::layout& G = L.graph;
        constexpr std::uint64_t V = F::encoded_value_words;
        auto words = [](std::uint64_t n) { return std::max<std::uint64_t>(n, 1); };
        std::uint64_t w = 0;
        for (const auto* t : ifds::detail::graph_tables(G)) w += words(t->size());
        for (const auto* t : {&L.intra_fn, &L.call_fn, &L.rcall_fn, &L.ret_fn, &L.functions}) w += words(t->size());
        w += words(G.pe_words) + words(G.seed_node.size() * (2 + V)) + 4;
        // the resident values, and their host copy where they are downloaded (not read in place)
        w += (adopts_host_memory<S> ? 1 : 2) * words(std::uint64_t(G.num_rows) * V);
        return 4 * w;
    }

    /// Fails with `out_of_memory` when `more` bytes on top of `held` would
    /// pass `budget` (0: none); `what` names them.
    static result<void> fits(std::uint64_t held, std::uint64_t more, std::uint64_t budget, const std::string& what) {
        if (budget == 0 || (more <= budget && held <= budget - more)) return {};
        return vyre::fail(vyre::error_code::out_of_memory,
                          "ide::resident_solver: " + what + " need " + std::to_string(more) + " bytes on top of " +
                              std::to_string(held) + " held, past the memory budget of " + std::to_string(budget),
                          "raise resident_options::memory_budget (weir solve --memory-budget), or split the problem");
    }

    /// Stage 2's graph and tables within the budget, next to stage 1's solver.
    static result<void> check_stage2(const layout<F>& L, const ifds::resident_solver<D>& reach, std::uint64_t budget,
                                     bool kernels) {
        return fits(reach.held_bytes(), stage2_fixed_bytes(L) + kernel_fixed_bytes(L, kernels), budget,
                    "stage 2's graph, tables and values");
    }
    /// The IR kernels' own fixed buffers (0 with the op).
    static std::uint64_t kernel_fixed_bytes(const layout<F>& L, bool kernels) {
        if constexpr (ir_edge_function_family<F>) return kernels ? kernel_stage::fixed_bytes(L) : 0;
        else return 0;
    }
    /// Bytes the IR kernels' per-solve buffers hold now.
    std::uint64_t kernel_bytes() const {
        if constexpr (ir_edge_function_family<F>) return kernels_ ? kernels_->grown_bytes() : 0;
        else return 0;
    }

    static result<resident_solver> assemble(S& s, const layout<F>& L, ifds::resident_solver<D> reach,
                                            std::shared_ptr<ifds::resident_graph<S>> full, clock::time_point t0,
                                            std::uint64_t budget, bool kernels) {
        resident_solver r(s, L, std::move(reach));
        r.budget_ = budget;
        r.fixed_bytes_ = stage2_fixed_bytes(L) + kernel_fixed_bytes(L, kernels);
        r.graph_ = std::move(full);
        VYRE_TRY(r.upload_tables());
        if constexpr (ir_edge_function_family<F>) {
            if (kernels) {
                auto k = kernel_stage::create(s, L);
                if (!k) return vyre::make_unexpected(k.error());
                r.kernels_.emplace(std::move(*k));
            }
        }
        if (!kernels) VYRE_TRY(weir::prepare(s, r.program_));
        r.upload_seconds_ = seconds_since(t0);
        return r;
    }

    /// Both stages for seeds (start nodes, local facts) whose op entries are `seed_words`.
    result<output> run(std::span<const std::uint32_t> seed_node, std::span<const std::uint32_t> seed_fact,
                       const std::vector<std::uint32_t>& seed_words) {
        output out;
        out.stats.seconds_upload = upload_seconds_;
        upload_seconds_ = 0;
        // stage 1: where facts hold
        auto reach = reach_.solve(seed_node, seed_fact);
        if (!reach) return vyre::make_unexpected(reach.error());
        out.stats.reachability = reach->stats;
        std::vector<std::uint32_t>& pe = reach->path_edges;
        std::uint64_t edges = 0;
        edges = vyre::popcount(std::span<const std::uint32_t>(pe));
        // stage 2: the bitset and seeds up, the jump-function slots sized to the path edges
        auto t0 = clock::now();
        const std::uint64_t jf_need = std::max<std::uint64_t>(edges, 1) * F::encoded_words * 4;
        if (jf_need > jf_bytes_ || uses_ir_kernels())
            VYRE_TRY(fits(reach_.held_bytes() + fixed_bytes_,
                          std::max(jf_need, jf_bytes_) + kernel_solve_bytes(edges, seed_node.size()),
                          budget_,
                          "the jump functions of " + std::to_string(edges) + " path edges" +
                              (uses_ir_kernels() ? " (with the IR kernels' entry values, frontiers and proposals)" : "")));
        VYRE_TRY(ensure_jf(jf_need));
        const std::uint32_t contexts = uses_ir_kernels() ? count_contexts(pe) : 0;
        if (pe.empty()) pe.push_back(0);  // (an empty bitset: its buffer holds one word)
        VYRE_TRY(put_bitset(pe));
        if (!uses_ir_kernels()) {  // the op's seed entries and counters (the kernels take theirs in `run`)
            VYRE_TRY(put_seeds(seed_words));
            const std::uint32_t counters[4] = {static_cast<std::uint32_t>(seed_node.size()), 0, 0, 0};
            VYRE_TRY(d_->upload(bufs_[counters_buf], as_bytes(std::span<const std::uint32_t>(counters))));
        }
        out.stats.seconds_upload += seconds_since(t0);
        auto t1 = clock::now();
        std::uint32_t got[4] = {};
        if (uses_ir_kernels()) {
            VYRE_TRY(run_kernels(edges, seed_node, seed_fact, seed_words, got));
            got[2] = contexts;
        } else {
            std::vector<dispatch_step<resource>> steps{{&program_, bindings(), std::array<std::uint32_t, 3>{1, 1, 1}}};
            std::vector<vyre::read_range<resource>> rr{{bufs_[counters_buf], 0, sizeof got}};
            std::vector<mutable_bytes_view> outs{mutable_bytes_view(reinterpret_cast<std::uint8_t*>(got), sizeof got)};
            VYRE_TRY(dispatch_resident_sequence_read_ranges_into(*d_, std::span<const dispatch_step<resource>>(steps),
                                                                 std::span<const vyre::read_range<resource>>(rr),
                                                                 std::span<const mutable_bytes_view>(outs)));
        }
        out.stats.seconds_solve = seconds_since(t1);
        out.stats.updates = got[3];
        auto t2 = clock::now();
        const ifds::layout& G = L_->graph;
        const std::uint64_t value_words = std::max<std::uint64_t>(std::uint64_t(G.num_rows) * F::encoded_value_words, 1);
        if constexpr (adopts_host_memory<S>) {
            // host-visible: the bitset and the values are read where they are
            auto pe_bytes = d_->map(bufs_[pe_buf]);
            if (!pe_bytes) return vyre::make_unexpected(pe_bytes.error());
            auto val_bytes = d_->map(bufs_[values_buf]);
            if (!val_bytes) return vyre::make_unexpected(val_bytes.error());
            out.result = collect(words_of(*pe_bytes), words_of(*val_bytes).first(value_words));
        } else {
            std::vector<std::uint32_t> vals(value_words);
            VYRE_TRY(d_->download_into(bufs_[values_buf],
                                       mutable_bytes_view(reinterpret_cast<std::uint8_t*>(vals.data()), vals.size() * 4)));
            out.result = collect(pe, vals);
        }
        out.result.stats.jump_functions = got[1];
        out.result.stats.contexts = got[2];
        out.stats.seconds_extract = seconds_since(t2);
        return out;
    }

    /// Stage 2 as the IR kernels; fills `got` as the op fills its counters (but contexts).
    result<void> run_kernels(std::uint64_t edges, std::span<const std::uint32_t> seed_node,
                             std::span<const std::uint32_t> seed_fact, const std::vector<std::uint32_t>& seed_words,
                             std::uint32_t (&got)[4]) {
        if constexpr (ir_edge_function_family<F>) {
            constexpr std::size_t V = F::encoded_value_words;
            std::vector<std::uint32_t> values;
            values.reserve(seed_node.size() * V);
            for (std::size_t i = 0; i < seed_node.size(); ++i)
                values.insert(values.end(), seed_words.begin() + i * (2 + V) + 2, seed_words.begin() + (i + 1) * (2 + V));
            typename kernel_stage::shared sh{graph_->tables(),
                                             {bufs_[intra_fn_buf], bufs_[call_fn_buf], bufs_[rcall_fn_buf],
                                              bufs_[ret_fn_buf], bufs_[functions_buf]},
                                             bufs_[pe_buf], jf_, bufs_[values_buf]};
            kernels_->limit(budget_, reach_.held_bytes() + fixed_bytes_ + jf_bytes_);
            auto rep = kernels_->run(sh, edges, seed_node, seed_fact, values);
            if (!rep) return vyre::make_unexpected(rep.error());
            got[1] = static_cast<std::uint32_t>(edges);
            got[3] = static_cast<std::uint32_t>(std::min<std::uint64_t>(rep->updates, ~0u));
            return {};
        } else {
            (void)edges, (void)seed_node, (void)seed_fact, (void)seed_words, (void)got;
            return {};
        }
    }
    /// Bytes the IR kernels' per-solve buffers need over `edges` path edges (0 with the op).
    std::uint64_t kernel_solve_bytes(std::uint64_t edges, std::uint64_t seeds) const {
        if constexpr (ir_edge_function_family<F>) return kernels_ ? kernel_stage::per_solve_bytes(edges, seeds) : 0;
        else return 0;
    }
    /// The contexts (start, c) with a path edge (start, c, c), as the op counts them.
    std::uint32_t count_contexts(std::span<const std::uint32_t> pe) const {
        const ifds::layout& G = L_->graph;
        std::uint32_t n = 0;
        for (std::uint32_t p = 0; p < G.num_procs; ++p) {
            const std::uint32_t s = G.proc_start[p], f = G.node_fact_count[s];
            for (std::uint32_t c = 0; c < f; ++c) {
                const std::uint64_t pos = ifds::detail::row_start(G, s, c) + c;
                n += (pos >> 5) < pe.size() && (pe[pos >> 5] >> (pos & 31) & 1u);
            }
        }
        return n;
    }

    /// Puts stage 1's bitset (the layout's `pe_words` words, at least one) in
    /// the resident `pe` buffer: handed over without a copy where stage 2's
    /// dispatcher has host-visible memory (`pe` is left empty; read it back
    /// through `map`), uploaded otherwise.
    result<void> put_bitset(std::vector<std::uint32_t>& pe) {
        if constexpr (adopts_host_memory<S>) {
            auto r = d_->adopt(std::move(pe));
            if (!r) return vyre::make_unexpected(r.error());
            (void)d_->free(bufs_[pe_buf]);
            bufs_[pe_buf] = *r;
            return {};
        } else {
            return d_->upload(bufs_[pe_buf], as_bytes(std::span<const std::uint32_t>(pe)));
        }
    }
    /// A host-visible buffer's bytes as words.
    static std::span<const std::uint32_t> words_of(std::span<std::uint8_t> b) {
        return {reinterpret_cast<const std::uint32_t*>(b.data()), b.size() / 4};
    }

    /// Writes the seed entries at the start of the seeds buffer, growing it when they do not fit.
    result<void> put_seeds(const std::vector<std::uint32_t>& words) {
        if (words.empty()) return {};
        if (words.size() > seed_words_) {
            auto r = d_->allocate(words.size() * 4);
            if (!r) return vyre::make_unexpected(r.error());
            (void)d_->free(bufs_[seeds_buf]);
            bufs_[seeds_buf] = *r;
            seed_words_ = words.size();
        }
        const std::vector<vyre::write_range<resource>> w{{bufs_[seeds_buf], 0, as_bytes(std::span<const std::uint32_t>(words))}};
        return upload_at_many(*d_, std::span<const vyre::write_range<resource>>(w));
    }
    static double seconds_since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }
    template <class T>
    static bytes_view as_bytes(std::span<const T> s) {
        return bytes_view(reinterpret_cast<const std::uint8_t*>(s.data()), s.size_bytes());
    }

    /// Stage 2's own buffers, in the op's argument order after the 25 graph tables.
    enum buffer : std::size_t { intra_fn_buf, call_fn_buf, rcall_fn_buf, ret_fn_buf, functions_buf, pe_buf, seeds_buf,
                                values_buf, counters_buf, buffer_count };

    resident_solver(S& s, const layout<F>& L, ifds::resident_solver<D> reach)
        : d_(&s), L_(&L), reach_(std::move(reach)), program_(make_program()) {}

    /// `ide_solve_<family>` over buffers named as its parameters.
    static vyre::ir::program make_program() {
        vyre::ir::program p("weir_" + std::string(ops::ide_solve_op<F>::name));
        p.workgroup(1);
        std::vector<vyre::ir::expr> args;
        std::uint32_t binding = 0;
        for (const auto& prm : ops::ide_solve::signature()) {
            p.buffer(std::string(prm.name), binding++, prm.writable ? vyre::ir::access::read_write : vyre::ir::access::read,
                     vyre::ir::scalar_type::u32);
            args.push_back(vyre::ir::dsl::var(std::string(prm.name)));
        }
        p.add(vyre::ir::dsl::op(std::string(ops::ide_solve_op<F>::name), std::move(args)));
        return p;
    }

    /// Uploads the function tables and the layout's seeds with one
    /// `upload_many`; allocates the bitset, values and counters. (The full
    /// graph, `graph_`, is already resident: stage 2 reads the per-fact
    /// relations that a graph with row tables leaves out.)
    result<void> upload_tables() {
        const ifds::layout& G = L_->graph;
        constexpr std::size_t V = F::encoded_value_words;
        seeds_.reserve(G.seed_node.size() * (2 + V));
        for (std::size_t i = 0; i < G.seed_node.size(); ++i) {
            seeds_.push_back(G.seed_node[i]);
            seeds_.push_back(G.seed_fact[i]);
            seeds_.insert(seeds_.end(), L_->seed_values.begin() + i * V, L_->seed_values.begin() + (i + 1) * V);
        }
        const std::vector<std::uint32_t>* up[] = {&L_->intra_fn, &L_->call_fn, &L_->rcall_fn, &L_->ret_fn, &L_->functions};
        // (with host-visible memory a solve hands its bitset over, so the
        // `pe` buffer is a one-word placeholder until then)
        const std::uint64_t sizes[buffer_count] = {
            L_->intra_fn.size(), L_->call_fn.size(), L_->rcall_fn.size(), L_->ret_fn.size(), L_->functions.size(),
            adopts_host_memory<S> ? 1 : G.pe_words, seeds_.size(), std::uint64_t(G.num_rows) * V, 4};
        std::vector<vyre::upload_op<resource>> ups;
        for (std::size_t i = 0; i < buffer_count; ++i) {
            auto r = d_->allocate(std::max<std::uint64_t>(sizes[i], 1) * 4);
            if (!r) return vyre::make_unexpected(r.error());
            bufs_.push_back(*r);
            if (i < 5 && !up[i]->empty()) ups.push_back({*r, as_bytes(std::span<const std::uint32_t>(*up[i]))});
        }
        seed_words_ = std::max<std::size_t>(seeds_.size(), 1);
        if (!seeds_.empty()) ups.push_back({bufs_[seeds_buf], as_bytes(std::span<const std::uint32_t>(seeds_))});
        return d_->upload_many(std::span<const vyre::upload_op<resource>>(ups));
    }

    /// Makes the jump-function buffer hold at least `bytes`.
    result<void> ensure_jf(std::uint64_t bytes) {
        if (jf_bytes_ >= bytes) return {};
        if (jf_bytes_) (void)d_->free(jf_);
        jf_bytes_ = 0;
        auto r = d_->allocate(bytes);
        if (!r) return vyre::make_unexpected(r.error());
        jf_ = *r;
        jf_bytes_ = bytes;
        return {};
    }

    std::vector<resource> bindings() const {
        std::vector<resource> rs = graph_->tables();
        for (std::size_t i = 0; i <= seeds_buf; ++i) rs.push_back(bufs_[i]);
        rs.push_back(jf_);
        rs.push_back(bufs_[values_buf]);
        rs.push_back(bufs_[counters_buf]);
        return rs;
    }

    /// The facts that hold at each node (from the bitset) with their values (from `vals`).
    solution<F> collect(std::span<const std::uint32_t> pe, std::span<const std::uint32_t> vals) const {
        const ifds::layout& G = L_->graph;
        constexpr std::size_t V = F::encoded_value_words;
        solution<F> s;
        s.at.resize(G.num_nodes);
        std::vector<std::uint32_t> held;
        for (std::uint32_t n = 0; n < G.num_nodes; ++n) {
            ifds::detail::held_facts(G, pe, n, held);
            const std::uint32_t p = G.node_proc[n];
            for (std::uint32_t j = 0; j < held.size(); ++j)
                for (std::uint32_t m = held[j]; m; m &= m - 1) {
                    const std::uint32_t d = 32 * j + static_cast<std::uint32_t>(std::countr_zero(m));
                    s.at[n].push_back({G.global_fact(p, d), F::decode_value(vals.data() + (std::uint64_t(G.row_base[n]) + d) * V)});
                }
            std::sort(s.at[n].begin(), s.at[n].end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        }
        return s;
    }

    void release() {
        for (const auto& r : bufs_) (void)d_->free(r);
        bufs_.clear();
        if (jf_bytes_) (void)d_->free(jf_);
        jf_bytes_ = 0;
    }

    S* d_ = nullptr;  ///< stage 2's dispatcher (stage 1's is in reach_)
    const layout<F>* L_ = nullptr;
    ifds::resident_solver<D> reach_;
    std::shared_ptr<ifds::resident_graph<S>> graph_;
    vyre::ir::program program_;
    std::vector<resource> bufs_;
    std::vector<std::uint32_t> seeds_;  ///< the layout's seeds: node, local fact, encoded value each
    std::size_t seed_words_ = 0;        ///< words of the resident seeds buffer
    resource jf_{};
    std::uint64_t jf_bytes_ = 0;
    double upload_seconds_ = 0;
    std::uint64_t budget_ = 0;       ///< resident_options::memory_budget (0: none)
    std::uint64_t fixed_bytes_ = 0;  ///< stage2_fixed_bytes(L) and the IR kernels' fixed buffers
    /// Stage 2 as IR kernels (engaged in that mode; a family without IR forms has none).
    using kernel_stage = detail::kernel_stage<F, S>;
    std::conditional_t<ir_edge_function_family<F>, std::optional<kernel_stage>, std::monostate> kernels_{};
};

} // namespace weir::ide
