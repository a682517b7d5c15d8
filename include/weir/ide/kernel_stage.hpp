#pragma once
/// \file weir/ide/kernel_stage.hpp
/// `ide::detail::kernel_stage<F, S>`: the resident IDE solver's stage 2 as
/// the portable IR kernels of weir/ide/kernels.hpp, driven round by round
/// from the host over any `ifds_resident_dispatch` S (used where S does not
/// run the op `ide_solve_<F>`, e.g. `cuda`, or when asked for). It owns the
/// kernels' own buffers; the graph, function tables, bitset, jump functions
/// and values are the solver's.

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <weir/core/resident_dispatch.hpp>
#include <weir/ide/kernels.hpp>
#include <weir/ide/layout.hpp>
#include <weir/ifds/kernels.hpp>

namespace weir::ide::detail {

/// Stage 2 in IR kernels (see the file comment). `F` must be an
/// `ir_edge_function_family` for any member but the destructor to be used.
template <edge_function_family F, ifds_resident_dispatch S>
class kernel_stage {
public:
    using resource = typename S::resource;
    static constexpr std::uint32_t W = F::encoded_words, V = F::encoded_value_words;

    /// The resources the solver lends each solve.
    struct shared {
        std::vector<resource> graph;            ///< the 25 graph tables
        std::array<resource, 5> fn;             ///< intra_fn, call_fn, rcall_fn, ret_fn, functions
        resource pe, jf, values;
    };
    /// What a solve reports.
    struct report {
        std::uint64_t updates = 0;
        std::uint32_t rounds = 0;
    };

    /// Bytes `create` allocates (rank, counts, call sites, counters) for layout `L`.
    static std::uint64_t fixed_bytes(const layout<F>& L) {
        std::uint64_t words = 0;
        for (std::uint64_t w : fixed_words(L.graph, sites_by_proc(L.graph))) words += w;
        return 4 * words;
    }
    /// Bytes a solve over `edges` path edges from `seeds` seeds allocates
    /// first: entry values, frontiers, proposals and their keys (the
    /// proposals may grow during the rounds, within the budget of `limit`).
    static std::uint64_t per_solve_bytes(std::uint64_t edges, std::uint64_t seeds) {
        return 4 * (std::max<std::uint64_t>(edges, 1) * (V + 4) + first_capacity(edges, seeds) * R) +
               key_class_bytes(seeds);
    }
    /// Bounds the per-solve buffers to `budget` (0: none) bytes, `others` of them held elsewhere.
    void limit(std::uint64_t budget, std::uint64_t others) { budget_ = budget, others_ = others; }

    /// Allocates the fixed buffers on `s` and readies the kernels.
    static result<kernel_stage> create(S& s, const layout<F>& L) {
        kernel_stage k(s, L);
        VYRE_TRY(k.setup());
        return k;
    }

    kernel_stage(kernel_stage&& o) noexcept
        : s_(o.s_), L_(o.L_), p_(o.p_), fixed_(std::move(o.fixed_)), grown_(std::move(o.grown_)),
          sizes_(o.sizes_), keys_(std::move(o.keys_)), key_bytes_(o.key_bytes_), budget_(o.budget_), others_(o.others_) {
        o.fixed_.clear();
        o.grown_.clear();
        o.key_bytes_.fill(0);
    }
    kernel_stage& operator=(kernel_stage&&) = delete;
    ~kernel_stage() {
        for (const auto& r : fixed_) (void)s_->free(r);
        for (std::size_t i = 0; i < grown_.size(); ++i)
            if (sizes_[i]) (void)s_->free(grown_[i]);
        for (std::size_t k = 0; k < key_bytes_.size(); ++k)
            if (key_bytes_[k]) (void)s_->free(keys_[k]);
    }

    /// Bytes the per-solve buffers hold now.
    std::uint64_t grown_bytes() const {
        std::uint64_t b = 0;
        for (auto n : sizes_) b += n;
        for (auto n : key_bytes_) b += n;
        return b;
    }

    /// Both phases over `edges` path edges of the bitset in `sh.pe`, for
    /// seeds (start node, local fact, encoded value of V words each); writes
    /// every row's value into `sh.values`.
    result<report> run(const shared& sh, std::uint64_t edges, std::span<const std::uint32_t> seed_node,
                       std::span<const std::uint32_t> seed_fact, std::span<const std::uint32_t> seed_values) {
        const ifds::layout& G = L_->graph;
        const std::uint64_t n_seeds = seed_node.size();
        VYRE_TRY(ensure(entry_buf, std::max<std::uint64_t>(edges, 1) * V));
        VYRE_TRY(ensure(fin_buf, std::max<std::uint64_t>(edges, 1) * 2));
        VYRE_TRY(ensure(fout_buf, std::max<std::uint64_t>(edges, 1) * 2));
        VYRE_TRY(ensure_props(first_capacity(edges, n_seeds)));
        // rank: set bits before each word of the bitset
        VYRE_TRY(dispatch(p_->count_bits, {sh.pe, fixed_[cnt_buf]}, groups(G.pe_words + 1)));
        VYRE_TRY(dispatch(p_->scan, {fixed_[cnt_buf], fixed_[rank_buf]}, std::nullopt));
        VYRE_TRY(dispatch(p_->clear, {sh.jf}, std::nullopt));
        VYRE_TRY(dispatch(p_->clear, {grown_[entry_buf]}, std::nullopt));
        report rep;
        // phase 1: from the identity at each seed
        std::vector<std::uint32_t> props;
        const auto id = encoded<F>(F::identity());
        for (std::uint64_t i = 0; i < n_seeds; ++i) {
            props.insert(props.end(), {seed_node[i], seed_fact[i], seed_fact[i]});
            props.insert(props.end(), id.begin(), id.end());
            props.resize(props.size() + (R - 3 - W));
        }
        VYRE_TRY(rounds(sh, props, p_->jf_apply, p_->jf_expand, rep));
        // phase 2: the seeds' entry values (the zero fact's is bottom)
        props.clear();
        const auto bot = encoded_value<F>(F::bottom_value());
        for (std::uint64_t i = 0; i < n_seeds; ++i) {
            const std::uint32_t s = G.proc_start[G.node_proc[seed_node[i]]];
            props.insert(props.end(), {s, seed_fact[i], seed_fact[i]});
            for (std::uint32_t w = 0; w < V; ++w) props.push_back(seed_fact[i] == 0 ? bot[w] : seed_values[i * V + w]);
            props.resize(props.size() + (R - 3 - V));
        }
        VYRE_TRY(rounds(sh, props, p_->entry_apply, p_->entry_expand, rep));
        auto keys = keys_for(0);
        if (!keys) return vyre::make_unexpected(keys.error());
        VYRE_TRY(dispatch(p_->values, bindings(sh, *keys), groups(G.num_nodes)));
        return rep;
    }

private:
    using kern = kernels<F>;
    static constexpr std::uint32_t R = kern::R;
    static constexpr std::uint32_t max_groups = 65535;
    static std::uint64_t first_capacity(std::uint64_t edges, std::uint64_t seeds) {
        return std::max<std::uint64_t>({seeds, edges, 1024});
    }

    enum fixed_buffer : std::size_t { rank_buf, cnt_buf, sites_off_buf, sites_buf, counters_buf, fixed_count };
    enum grown_buffer : std::size_t { entry_buf, fin_buf, fout_buf, props_buf, grown_count };

    /// The call sites of each procedure: `sites[off[p] .. off[p+1])`, in node order.
    struct proc_sites {
        std::vector<std::uint32_t> off, sites;
    };
    static proc_sites sites_by_proc(const ifds::layout& G) {
        proc_sites ps;
        ps.off.assign(G.num_procs + 1, 0);
        auto is_site = [&](std::uint32_t n) { return (G.node_kind[n] & ifds::kind_call_site) && G.node_proc[n] < G.num_procs; };
        for (std::uint32_t n = 0; n < G.num_nodes; ++n)
            if (is_site(n)) ++ps.off[G.node_proc[n] + 1];
        for (std::uint32_t p = 0; p < G.num_procs; ++p) ps.off[p + 1] += ps.off[p];
        ps.sites.resize(ps.off[G.num_procs]);
        std::vector<std::uint32_t> at(ps.off.begin(), ps.off.end() - 1);
        for (std::uint32_t n = 0; n < G.num_nodes; ++n)
            if (is_site(n)) ps.sites[at[G.node_proc[n]]++] = n;
        return ps;
    }
    /// Words of each fixed buffer (`fixed_buffer` order; each at least one).
    static std::array<std::uint64_t, fixed_count> fixed_words(const ifds::layout& G, const proc_sites& ps) {
        return {std::uint64_t(G.pe_words) + 1, std::uint64_t(G.pe_words) + 1, ps.off.size(),
                std::max<std::size_t>(ps.sites.size(), 1), kernel_counter_count};
    }
    static constexpr std::array<const char*, grown_count> grown_names = {"entry values", "frontier", "frontier",
                                                                         "proposals"};

    struct programs {
        vyre::ir::program count_bits = kern::count_bits(), scan = kern::scan(), clear = ifds::clear_kernel(),
                          keys = kern::keys(), sort = kern::sort(), jf_expand = kern::jf_expand(),
                          jf_apply = kern::jf_apply(), entry_expand = kern::entry_expand(),
                          entry_apply = kern::entry_apply(), values = kern::values();
    };

    /// The kernels of family F, built on first use (thread-safe) and shared by every solver.
    static const programs& shared_programs() {
        static const programs p;
        return p;
    }

    kernel_stage(S& s, const layout<F>& L) : s_(&s), L_(&L) {}

    /// The call sites of each procedure, the fixed buffers, the kernels readied.
    result<void> setup() {
        const proc_sites ps = sites_by_proc(L_->graph);
        const auto& [off, sites] = ps;
        const auto words = fixed_words(L_->graph, ps);
        for (std::size_t i = 0; i < fixed_count; ++i) {
            auto r = s_->allocate(words[i] * 4);
            if (!r) return vyre::make_unexpected(r.error());
            fixed_.push_back(*r);
        }
        std::vector<vyre::upload_op<resource>> ups{{fixed_[sites_off_buf], as_bytes(std::span<const std::uint32_t>(off))}};
        if (!sites.empty()) ups.push_back({fixed_[sites_buf], as_bytes(std::span<const std::uint32_t>(sites))});
        VYRE_TRY(s_->upload_many(std::span<const vyre::upload_op<resource>>(ups)));
        grown_.assign(grown_count, resource{});
        sizes_.fill(0);
        for (const vyre::ir::program* p : {&p_->count_bits, &p_->scan, &p_->clear, &p_->keys, &p_->sort,
                                           &p_->jf_expand, &p_->jf_apply, &p_->entry_expand, &p_->entry_apply,
                                           &p_->values})
            VYRE_TRY(weir::prepare(*s_, *p));
        return {};
    }

    /// One phase: the initial proposals, then rounds of keys, sort, apply
    /// and expand until no slot changes.
    result<void> rounds(const shared& sh, const std::vector<std::uint32_t>& initial, const vyre::ir::program& apply,
                        const vyre::ir::program& expand, report& rep) {
        std::uint64_t n_props = initial.size() / R;
        VYRE_TRY(ensure_props(n_props));
        if (!initial.empty()) {
            const std::vector<vyre::write_range<resource>> w{
                {grown_[props_buf], 0, as_bytes(std::span<const std::uint32_t>(initial))}};
            VYRE_TRY(upload_at_many(*s_, std::span<const vyre::write_range<resource>>(w)));
        }
        for (;;) {
            // join the proposals into their slots
            // (keys of a size class just above the count: sorting the proposals costs what they are)
            auto keys = keys_for(n_props);
            if (!keys) return vyre::make_unexpected(keys.error());
            VYRE_TRY(set_counters({0, 0, static_cast<std::uint32_t>(n_props), capacity(), counter_updates(rep)}));
            VYRE_TRY(dispatch(p_->keys, bindings(sh, *keys), groups(n_props)));
            VYRE_TRY(dispatch(p_->sort, {*keys}, std::nullopt));
            if (n_props) VYRE_TRY(dispatch(apply, bindings(sh, *keys), exact_groups(n_props)));
            auto c = get_counters();
            if (!c) return vyre::make_unexpected(c.error());
            rep.updates = (*c)[k_updates];
            ++rep.rounds;
            const std::uint32_t queued = (*c)[k_out];
            if (queued == 0) return {};
            // the changed slots are the next frontier; their proposals
            std::swap(grown_[fin_buf], grown_[fout_buf]);
            std::swap(sizes_[fin_buf], sizes_[fout_buf]);
            for (;;) {
                VYRE_TRY(set_counters({queued, 0, 0, capacity(), counter_updates(rep)}));
                VYRE_TRY(dispatch(expand, bindings(sh, *keys), groups(queued)));
                c = get_counters();
                if (!c) return vyre::make_unexpected(c.error());
                n_props = (*c)[k_props];
                if (n_props <= capacity()) break;
                VYRE_TRY(ensure_props(std::max<std::uint64_t>(n_props, 2 * std::uint64_t(capacity()))));  // and again
            }
        }
    }

    static std::uint32_t counter_updates(const report& r) {
        return static_cast<std::uint32_t>(std::min<std::uint64_t>(r.updates, ~0u));
    }
    std::uint32_t capacity() const { return static_cast<std::uint32_t>(sizes_[props_buf] / (4 * R)); }

    result<void> set_counters(std::array<std::uint32_t, kernel_counter_count> c) {
        return s_->upload(fixed_[counters_buf], as_bytes(std::span<const std::uint32_t>(c)));
    }
    result<std::array<std::uint32_t, kernel_counter_count>> get_counters() {
        std::array<std::uint32_t, kernel_counter_count> c{};
        VYRE_TRY(s_->download_range_into(fixed_[counters_buf], 0,
                                         mutable_bytes_view(reinterpret_cast<std::uint8_t*>(c.data()), sizeof c)));
        return c;
    }

    /// Every kernel's bindings, in `kernels<F>::buffer_names()` order.
    std::vector<resource> bindings(const shared& sh, const resource& keys) const {
        std::vector<resource> rs = sh.graph;
        rs.insert(rs.end(), sh.fn.begin(), sh.fn.end());
        rs.insert(rs.end(), {sh.pe, fixed_[rank_buf], sh.jf, grown_[entry_buf], sh.values, grown_[fin_buf],
                             grown_[fout_buf], grown_[props_buf], keys, fixed_[sites_off_buf],
                             fixed_[sites_buf], fixed_[counters_buf]});
        return rs;
    }

    result<void> dispatch(const vyre::ir::program& p, std::vector<resource> rs, grid_override g) {
        return s_->dispatch_resident(p, std::span<const resource>(rs), g);
    }
    /// Workgroups of 64 for `n` invocations of a grid-stride kernel (at most `max_groups`).
    static grid_override groups(std::uint64_t n) {
        return std::array<std::uint32_t, 3>{static_cast<std::uint32_t>(std::clamp<std::uint64_t>((n + 63) / 64, 1, max_groups)), 1, 1};
    }
    /// Workgroups of 64 covering exactly `n` invocations (the apply kernels have no stride).
    static grid_override exact_groups(std::uint64_t n) {
        return std::array<std::uint32_t, 3>{static_cast<std::uint32_t>(std::max<std::uint64_t>((n + 63) / 64, 1)), 1, 1};
    }

    /// Makes per-solve buffer `b` hold at least `words` u32 (contents not kept).
    result<void> ensure(grown_buffer b, std::uint64_t words) {
        if (sizes_[b] >= words * 4) return {};
        VYRE_TRY(room_for(words * 4, others_ + grown_bytes() - sizes_[b], grown_names[b]));
        if (sizes_[b]) (void)s_->free(grown_[b]);
        sizes_[b] = 0;
        auto r = s_->allocate(words * 4);
        if (!r) return vyre::make_unexpected(r.error());
        grown_[b] = *r;
        sizes_[b] = words * 4;
        return {};
    }
    /// Fails with `out_of_memory` when `bytes` more on top of `held` would pass the budget (0: none).
    result<void> room_for(std::uint64_t bytes, std::uint64_t held, const char* what) const {
        if (budget_ == 0 || (bytes <= budget_ && held <= budget_ - bytes)) return {};
        return vyre::fail(vyre::error_code::out_of_memory,
                          "ide::resident_solver: the IR kernels' " + std::string(what) + " need " + std::to_string(bytes) +
                              " bytes on top of " + std::to_string(held) + " held, past the memory budget of " +
                              std::to_string(budget_),
                          "raise resident_options::memory_budget (weir solve --memory-budget), or split the problem");
    }

    /// Room for `n` proposals.
    result<void> ensure_props(std::uint64_t n) {
        if (n * R > 0xffffffffull)
            return vyre::fail(vyre::error_code::out_of_memory,
                              "ide::resident_solver: a round of the IDE kernels makes " + std::to_string(n) +
                                  " proposals, past 32-bit indices",
                              "split the problem or its seeds");
        if (n <= capacity()) return {};
        return ensure(props_buf, n * R);
    }

    /// Size class of `n` keys: the power of two at or above it, at least 2^10.
    static unsigned key_class(std::uint64_t n) {
        unsigned k = 10;
        while ((std::uint64_t{1} << k) < n) ++k;
        return k;
    }
    static std::uint64_t key_class_bytes(std::uint64_t n) { return 8 * (std::uint64_t{1} << key_class(n)); }
    /// The keys buffer for a round of `n` proposals: its size class's, allocated once (within the budget).
    result<resource> keys_for(std::uint64_t n) {
        const unsigned k = key_class(n);
        if (key_bytes_[k]) return keys_[k];
        const std::uint64_t bytes = key_class_bytes(n);
        VYRE_TRY(room_for(bytes, others_ + grown_bytes(), "proposal keys"));
        auto r = s_->allocate(bytes);
        if (!r) return vyre::make_unexpected(r.error());
        keys_[k] = *r;
        key_bytes_[k] = bytes;
        return *r;
    }

    template <class T>
    static bytes_view as_bytes(std::span<const T> s) {
        return bytes_view(reinterpret_cast<const std::uint8_t*>(s.data()), s.size_bytes());
    }

    S* s_;
    const layout<F>* L_;
    const programs* p_ = &shared_programs();  ///< built once per process and family
    std::vector<resource> fixed_;
    std::vector<resource> grown_;
    std::array<std::uint64_t, grown_count> sizes_{};  ///< bytes of each per-solve buffer (0: none)
    std::array<resource, 64> keys_{};                 ///< proposal keys by size class (`keys_for`)
    std::array<std::uint64_t, 64> key_bytes_{};       ///< bytes of each (0: none)
    std::uint64_t budget_ = 0, others_ = 0;           ///< see `limit`
};

} // namespace weir::ide::detail
