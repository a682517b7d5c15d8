#pragma once
/// \file weir/ifds/resident_graph.hpp
/// A layout uploaded to resident memory once (`resident_graph<D>`), and a
/// cache of them keyed by backend id, backend version, layout hash and shape,
/// with LRU eviction under a byte budget (`resident_graph_cache<D>`).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string_view>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <weir/ifds/kernels.hpp>
#include <weir/ifds/ops/register.hpp>
#include <weir/ifds/layout.hpp>
#include <weir/core/resident_dispatch.hpp>
#include <weir/ifds/row_tables.hpp>
#include <weir/ifds/summaries.hpp>

namespace weir::ifds {

namespace detail {
/// The layout's tables in `kernel_buffers` order.
inline std::array<const std::vector<std::uint32_t>*, graph_buffer_count> graph_tables(const layout& L) {
    return {&L.node_kind,   &L.node_fact_count, &L.pe_word,     &L.row_base,   &L.node_proc,  &L.node_retsite,
            &L.intra_off,   &L.intra_node,      &L.intra_fact,  &L.call_off,   &L.call_ce,    &L.call_fact,
            &L.ce_site,     &L.ce_callee,       &L.ce_retsite,  &L.proc_start, &L.proc_exit,  &L.ret_row,
            &L.ret_off,     &L.ret_fact,        &L.rcall_row,   &L.rcall_off,  &L.rcall_fact, &L.callers_off,
            &L.callers_ce};
}
/// Whether a graph uploaded with the row tables leaves graph table `t` out
/// (one zero word in its place): the per-(node, fact) tables that the row
/// ops never read. The intraprocedural ones always (the row tables hold
/// those edges); the call relation when `sites_complete`, that is when every
/// call site has its own pairs in `row_tables::site_call_off` (else the op
/// falls back to the layout's `call_off`).
inline bool left_out_with_rows(std::size_t t, bool sites_complete) {
    namespace op = weir::ops::ifds;
    if (t == op::intra_off || t == op::intra_node || t == op::intra_fact) return true;
    return sites_complete && (t == op::call_off || t == op::call_ce || t == op::call_fact);
}
inline void fnv(std::uint64_t& h, const void* p, std::size_t n) {
    auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
}
} // namespace detail

/// A stable 64-bit hash of every table of a layout (for cache keys): the
/// uploaded ones and the per-edge relations (`intra_form::per_edge`).
inline std::uint64_t layout_hash(const layout& L) {
    std::uint64_t h = 1469598103934665603ull;
    std::uint32_t dims[5] = {L.num_nodes, L.num_procs, L.num_facts, L.num_rows, L.pe_words};
    detail::fnv(h, dims, sizeof dims);
    const auto uploaded = detail::graph_tables(L);
    std::vector<const std::vector<std::uint32_t>*> tables(uploaded.begin(), uploaded.end());
    for (const auto* t : {&L.intra_edge_off, &L.intra_edge_dst, &L.intra_edge_mask_off, &L.intra_edge_mask,
                          &L.intra_edge_x_off, &L.intra_edge_x_src, &L.intra_edge_x_dst})
        tables.push_back(t);
    for (const auto* t : tables) {
        std::uint64_t n = t->size();
        detail::fnv(h, &n, sizeof n);
        if (!t->empty()) detail::fnv(h, t->data(), t->size() * 4);
    }
    return h;
}

/// The shape of a layout: what sizes its resident buffers have.
struct layout_shape {
    std::uint32_t num_nodes = 0, num_procs = 0, num_rows = 0, pe_words = 0;
    bool operator==(const layout_shape&) const = default;
};

/// The shape of layout `L`.
inline layout_shape shape_of(const layout& L) { return {L.num_nodes, L.num_procs, L.num_rows, L.pe_words}; }

/// True when dispatcher `d` lists every op of `names` in `supported_ops()`
/// (false for a dispatcher without that member).
template <class D>
bool runs_ops(const D& d, std::initializer_list<std::string_view> names) {
    if constexpr (requires { d.supported_ops(); }) {
        const auto ops = d.supported_ops();
        return std::all_of(names.begin(), names.end(),
                           [&](std::string_view n) { return std::find(ops.begin(), ops.end(), n) != ops.end(); });
    } else {
        return false;
    }
}

/// True when dispatcher `d` runs weir's op `ifds_rows_solve` (so a
/// resident graph for it carries the row tables).
template <class D>
bool runs_row_solve(const D& d) {
    (void)ops::register_ops();  // (normally done before main, weir/ifds/ops/register.hpp)
    return runs_ops(d, {"ifds_rows_solve"});
}

/// A layout's tables in resident memory, uploaded with one `upload_many`.
/// Frees them when destroyed; the dispatcher must outlive it.
template <ifds_resident_dispatch D>
class resident_graph {
public:
    using resource = typename D::resource;

    /// Uploads `L`'s tables (each padded to at least one element), and with
    /// `with_rows` also its row tables (`row_tables`, for the row-wise ops).
    /// A graph with row tables serves the row modes only: it leaves out the
    /// layout's per-(node, fact) tables that those never read
    /// (`detail::left_out_with_rows`; 14 of 17 MiB at 2000 procedures), and
    /// its `pe_word` table gives positions in the packed bitset
    /// (`bitset_words()`). The layout's tables are copied; the row tables,
    /// made here for the upload, are handed over without a copy where the
    /// dispatcher has host-visible memory (`adopts_host_memory`).
    static result<std::shared_ptr<resident_graph>> upload(D& d, const layout& L, bool with_rows = false) {
        return make(d, L, with_rows, false);
    }

    /// As `upload`, but where the dispatcher can borrow host memory
    /// (`borrows_host_memory`: the host backends) the layout's tables become
    /// read-only resources without a copy: `L` must then outlive the graph
    /// and stay unchanged. For a solver that keeps its layout anyway; never
    /// for a graph that a cache may keep longer than its layout.
    static result<std::shared_ptr<resident_graph>> upload_borrowing(D& d, const layout& L, bool with_rows = false) {
        return make(d, L, with_rows, true);
    }
    resident_graph(const resident_graph&) = delete;
    resident_graph& operator=(const resident_graph&) = delete;
    ~resident_graph() {
        for (const auto& r : tables_) (void)d_->free(r);
    }

private:
    static result<std::shared_ptr<resident_graph>> make(D& d, const layout& L, bool with_rows, bool borrow) {
        if (!with_rows) {
            VYRE_TRY(check_intra_rows(L, "resident_graph (per-fact kernels)"));
        }
        auto g = std::shared_ptr<resident_graph>(new resident_graph(d));
        auto base = detail::graph_tables(L);
        std::vector<const std::vector<std::uint32_t>*> tables(base.begin(), base.end());
        row_tables rt;
        static const std::vector<std::uint32_t> none;
        if (with_rows) {
            rt = make_row_tables(L, row_table_options{.threads = weir::host_threads(d)});
            const bool sites_complete = every_site_has_pairs(L, rt);
            for (std::size_t i = 0; i < tables.size(); ++i)
                if (detail::left_out_with_rows(i, sites_complete)) tables[i] = &none;
            tables[weir::ops::ifds::pe_word] = &rt.packing.pe_word;  // positions in the packed bitset
            if constexpr (!adopts_host_memory<D>)
                for (const auto* t : std::as_const(rt).tables()) tables.push_back(t);
        }
        // Uploaded straight from the tables (no staging copy: the peak memory
        // of a solve is the layout plus its resident copy); an empty table is
        // one zero word.
        static constexpr std::uint32_t zero_word = 0;
        std::vector<vyre::upload_op<resource>> ops;
        for (const auto* t : tables) {
            const std::size_t n = std::max<std::size_t>(t->size(), 1);
            if constexpr (borrows_host_memory<D>) {
                if (borrow) {
                    auto r = d.borrow(t->empty() ? std::span<const std::uint32_t>(&zero_word, 1)
                                                 : std::span<const std::uint32_t>(*t));
                    if (!r) return vyre::make_unexpected(r.error());
                    g->tables_.push_back(*r);
                    g->bytes_ += n * 4;
                    continue;
                }
            }
            auto r = d.allocate(n * 4);
            if (!r) return vyre::make_unexpected(r.error());
            g->tables_.push_back(*r);
            g->bytes_ += n * 4;
            const auto* data = reinterpret_cast<const std::uint8_t*>(t->empty() ? &zero_word : t->data());
            ops.push_back({*r, vyre::bytes_view(data, n * 4)});
        }
        // The row tables were made for this upload: a dispatcher with
        // host-visible memory takes them over as they are, without a copy.
        if constexpr (adopts_host_memory<D>) {
            if (with_rows)
                for (auto* t : rt.tables()) {
                    if (t->empty()) t->push_back(0);
                    const std::uint64_t n = t->size() * 4;
                    auto r = d.adopt(std::move(*t));
                    if (!r) return vyre::make_unexpected(r.error());
                    g->tables_.push_back(*r);
                    g->bytes_ += n;
                }
        }
        VYRE_TRY(d.upload_many(std::span<const vyre::upload_op<resource>>(ops)));
        g->shape_ = shape_of(L);
        g->rows_ = with_rows;
        g->derived_ = std::move(rt.derived);
        g->packing_ = std::move(rt.packing);
        g->return_masks_ = make_return_masks(L, L.pe_words);
        return g;
    }

public:
    /// The tables' resources in `kernel_buffers` order.
    const std::vector<resource>& tables() const { return tables_; }
    /// Resident bytes held.
    std::uint64_t bytes() const { return bytes_; }
    /// Sizes of the uploaded layout.
    const layout_shape& shape() const { return shape_; }
    /// True when the row tables were uploaded too (after the 25 graph tables);
    /// the graph then leaves out the per-fact tables (`detail::left_out_with_rows`)
    /// and serves only the row modes.
    bool has_rows() const { return rows_; }
    /// The nodes the row tables skip, kept on the host: a row-wise solve
    /// completes its downloaded result with `derive_rows` (see row_tables.hpp).
    const derived_rows& derived() const { return derived_; }
    /// Words of the path-edge bitset that a solve on this graph keeps:
    /// with row tables the packed one (the solved nodes' blocks only, see
    /// row_tables.hpp; its resident `pe_word` table and row tables give
    /// positions in it), else the layout's `pe_words`.
    std::uint32_t bitset_words() const { return rows_ ? packing_.words : shape_.pe_words; }
    /// With row tables, where the packed bitset keeps each node's block
    /// (`unpack_bitset` moves a downloaded one to the layout's positions);
    /// without, empty.
    const bitset_packing& packing() const { return packing_; }
    /// The call edges' return flows as masks (host memory, at most as many
    /// words as the layout's bitset), for counting the summary edges after
    /// a solve (`count_summary_edges`).
    const return_masks& returns() const { return return_masks_; }

private:
    explicit resident_graph(D& d) : d_(&d) {}
    D* d_;
    std::vector<resource> tables_;
    std::uint64_t bytes_ = 0;
    layout_shape shape_;
    bool rows_ = false;
    derived_rows derived_;
    bitset_packing packing_;
    return_masks return_masks_;
};

/// Counters of a graph cache.
struct graph_cache_stats {
    std::uint64_t hits = 0, misses = 0, evictions = 0, bytes = 0, entries = 0;
};

/// Resident graphs keyed by (backend id, backend version, layout hash, shape),
/// least recently used evicted first when the byte budget is exceeded. A graph
/// still used by a solver stays alive (shared) until that solver drops it.
template <ifds_resident_dispatch D>
class resident_graph_cache {
public:
    using graph = resident_graph<D>;

    /// A cache holding at most `byte_budget` resident bytes (the newest graph is kept even if larger).
    explicit resident_graph_cache(std::uint64_t byte_budget = 1ull << 30) : budget_(byte_budget) {}

    /// The resident graph of `L` on `d`: cached, or uploaded now (with the row
    /// tables when `d` runs the row-wise ops).
    result<std::shared_ptr<graph>> get(D& d, const layout& L) { return get(d, L, runs_row_solve(d)); }

    /// The resident graph of `L` on `d`, with or without the row tables.
    result<std::shared_ptr<graph>> get(D& d, const layout& L, bool with_rows) {
        key k{std::string(d.backend_id()), std::string(d.backend_version()), layout_hash(L), shape_of(L), with_rows, &d};
        std::lock_guard lk(mu_);
        for (auto it = lru_.begin(); it != lru_.end(); ++it)
            if (it->first == k) {
                lru_.splice(lru_.begin(), lru_, it);
                stats_.hits++;
                return lru_.front().second;
            }
        stats_.misses++;
        auto g = graph::upload(d, L, with_rows);
        if (!g) return g;
        lru_.emplace_front(k, *g);
        stats_.bytes += (*g)->bytes();
        while (stats_.bytes > budget_ && lru_.size() > 1) {
            stats_.bytes -= lru_.back().second->bytes();
            lru_.pop_back();
            stats_.evictions++;
        }
        return lru_.front().second;
    }
    /// Hit, miss and eviction counters, bytes and entries held.
    graph_cache_stats stats() const {
        std::lock_guard lk(mu_);
        auto s = stats_;
        s.entries = lru_.size();
        return s;
    }
    /// Drops every entry.
    void clear() {
        std::lock_guard lk(mu_);
        lru_.clear();
        stats_.bytes = 0;
    }

private:
    struct key {
        std::string id, version;
        std::uint64_t hash;
        layout_shape shape;
        bool rows;
        const D* dispatcher;  // resources belong to one dispatcher instance
        bool operator==(const key&) const = default;
    };
    mutable std::mutex mu_;
    std::uint64_t budget_;
    std::list<std::pair<key, std::shared_ptr<graph>>> lru_;
    graph_cache_stats stats_;
};

} // namespace weir::ifds
