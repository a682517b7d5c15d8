#pragma once
/// \file weir/ifds/make_layout.hpp
/// `make_layout`: derives the flat solver layout (`weir::ifds::layout`) from a
/// `problem`: per-procedure fact sets (a sound closure), local fact indices,
/// and every CSR table the solvers read. Deterministic: the same problem gives
/// the same layout, word for word.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <vyre/core/huge_pages.hpp>
#include <weir/ifds/detail/edge_table.hpp>
#include <weir/ifds/detail/node_parts.hpp>
#include <weir/ifds/layout.hpp>
#include <weir/ifds/problem.hpp>

namespace weir::ifds {

namespace detail {

/// A small open-addressing hash set of 64-bit keys (linear probing; the key
/// `~0` is reserved). Used for (procedure, fact) membership while the fact
/// sets grow.
class flat_u64_set {
public:
    /// An empty set with room for about `expected` keys before growing.
    explicit flat_u64_set(std::size_t expected = 16) {
        std::size_t cap = 16;
        while (cap < expected * 2) cap <<= 1;
        slots_.assign(cap, empty_key);
    }
    /// Inserts `key`; true when it was not present.
    bool insert(std::uint64_t key) {
        if ((count_ + 1) * 2 > slots_.size()) grow();
        return insert_no_grow(key);
    }
    /// Number of keys held.
    std::size_t size() const { return count_; }

private:
    static constexpr std::uint64_t empty_key = ~std::uint64_t{0};
    static std::uint64_t mix(std::uint64_t k) {
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        k *= 0xc4ceb9fe1a85ec53ULL;
        k ^= k >> 33;
        return k;
    }
    bool insert_no_grow(std::uint64_t key) {
        const std::size_t mask = slots_.size() - 1;
        std::size_t i = static_cast<std::size_t>(mix(key)) & mask;
        for (;;) {
            if (slots_[i] == key) return false;
            if (slots_[i] == empty_key) {
                slots_[i] = key;
                ++count_;
                return true;
            }
            i = (i + 1) & mask;
        }
    }
    void grow() {
        std::vector<std::uint64_t> old(slots_.size() * 2, empty_key);
        old.swap(slots_);
        count_ = 0;
        for (std::uint64_t k : old)
            if (k != empty_key) insert_no_grow(k);
    }
    std::vector<std::uint64_t> slots_;
    std::size_t count_ = 0;
};

/// Flow functions reduced to what the fact-set closure needs, in flat arrays
/// (one allocation per array, not per function): per function i, the
/// identity flag, the sorted kill list `kill[kill_off[i] .. kill_off[i+1])`
/// and the (source, target) pairs sorted by source, gens appearing as (0, g),
/// `pairs[pair_off[i] .. pair_off[i+1])`.
struct closure_ffs {
    std::vector<char> identity;
    std::vector<std::size_t> kill_off{0}, pair_off{0};
    std::vector<fact_id> kill;
    std::vector<std::pair<fact_id, fact_id>> pairs;

    /// Appends the reduced form of `ff` as the next function.
    void add(const flow_function& ff) {
        identity.push_back(ff.identity);
        const std::size_t k0 = kill.size(), p0 = pairs.size();
        kill.insert(kill.end(), ff.kill.begin(), ff.kill.end());
        std::sort(kill.begin() + static_cast<std::ptrdiff_t>(k0), kill.end());
        kill.erase(std::unique(kill.begin() + static_cast<std::ptrdiff_t>(k0), kill.end()), kill.end());
        for (fact_id g : ff.gen) pairs.emplace_back(zero_fact, g);
        pairs.insert(pairs.end(), ff.pairs.begin(), ff.pairs.end());
        std::sort(pairs.begin() + static_cast<std::ptrdiff_t>(p0), pairs.end());
        pairs.erase(std::unique(pairs.begin() + static_cast<std::ptrdiff_t>(p0), pairs.end()), pairs.end());
        kill_off.push_back(kill.size());
        pair_off.push_back(pairs.size());
    }
};

/// Scratch space for `compile_relation`.
struct relation_scratch {
    std::vector<std::uint32_t> idmap;
    std::vector<fact_id> kill;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> extras;
};

/// The gen and pair terms of `ff` as local (source, target) pairs into
/// `s.extras`, sorted and without duplicates; terms naming a fact outside
/// the sorted fact sets `src` (source) or `dst` (target) are left out.
inline void collect_extras(const flow_function& ff, std::span<const fact_id> src, std::span<const fact_id> dst,
                           relation_scratch& s) {
    s.extras.clear();
    for (fact_id g : ff.gen) {
        const std::uint32_t t = local_index(dst, g);
        if (t != no_index) s.extras.emplace_back(0u, t);
    }
    for (auto [a, b] : ff.pairs) {
        const std::uint32_t f = a == zero_fact ? 0u : local_index(src, a);
        if (f == no_index) continue;
        const std::uint32_t t = local_index(dst, b);
        if (t != no_index) s.extras.emplace_back(f, t);
    }
    if (s.extras.size() > 1) {
        std::sort(s.extras.begin(), s.extras.end());
        s.extras.erase(std::unique(s.extras.begin(), s.extras.end()), s.extras.end());
    }
}

/// Compiles flow function `ff` on an edge from a node with sorted fact set
/// `src` to a node with sorted fact set `dst` into a local relation: for each
/// source local fact d, the targets `tgt[off[d] .. off[d+1])`, sorted and
/// without duplicates. `tgt` is appended to; `off` gets src.size()+1 entries,
/// absolute positions in `tgt`.
inline void compile_relation(const flow_function& ff, std::span<const fact_id> src, std::span<const fact_id> dst,
                             relation_scratch& s, std::vector<std::uint32_t>& off, std::vector<std::uint32_t>& tgt) {
    const std::uint32_t fs = static_cast<std::uint32_t>(src.size());
    s.idmap.assign(fs, no_index);
    if (ff.identity) {
        s.kill.assign(ff.kill.begin(), ff.kill.end());
        std::sort(s.kill.begin(), s.kill.end());
        std::size_t j = 0, k = 0;
        for (std::uint32_t d = 1; d < fs; ++d) {
            const fact_id g = src[d];
            while (k < s.kill.size() && s.kill[k] < g) ++k;
            if (k < s.kill.size() && s.kill[k] == g) continue;
            while (j < dst.size() && dst[j] < g) ++j;
            if (j < dst.size() && dst[j] == g) s.idmap[d] = static_cast<std::uint32_t>(j);
        }
    }
    collect_extras(ff, src, dst, s);
    off.resize(fs + 1);
    std::size_t e = 0;
    for (std::uint32_t d = 0; d < fs; ++d) {
        const std::size_t begin = tgt.size();
        off[d] = static_cast<std::uint32_t>(begin);
        if (d == 0)
            tgt.push_back(0);
        else if (s.idmap[d] != no_index)
            tgt.push_back(s.idmap[d]);
        while (e < s.extras.size() && s.extras[e].first == d) tgt.push_back(s.extras[e++].second);
        if (tgt.size() - begin > 1) {
            // One identity/zero element in front of a sorted run: insert it in place.
            auto first = tgt.begin() + static_cast<std::ptrdiff_t>(begin);
            std::sort(first, tgt.end());
            tgt.erase(std::unique(first, tgt.end()), tgt.end());
        }
    }
    off[fs] = static_cast<std::uint32_t>(tgt.size());
}

/// Compiles flow function `ff` on an intraprocedural edge (both ends with
/// the sorted fact set `set`, F facts) into row form, the relation
/// `compile_relation` gives as rows: appends ceil(F/32) mask words to `mask`
/// (bit d: d -> d) and the other pairs (d, d'), by d then d', without
/// duplicates, to `xs`/`xd`.
inline void compile_edge_relation(const flow_function& ff, std::span<const fact_id> set, relation_scratch& s,
                                  std::vector<std::uint32_t>& mask, std::vector<std::uint32_t>& xs,
                                  std::vector<std::uint32_t>& xd) {
    const auto F = static_cast<std::uint32_t>(set.size());
    const std::uint32_t W = (F + 31) / 32;
    const std::size_t m0 = mask.size();
    mask.resize(m0 + W, 0);
    std::uint32_t* m = mask.data() + m0;
    if (ff.identity) {  // every fact but the killed ones (the zero fact below)
        for (std::uint32_t w = 0; w < W; ++w) m[w] = w + 1 < W || F % 32 == 0 ? ~0u : (1u << (F % 32)) - 1;
        for (fact_id g : ff.kill)
            if (const std::uint32_t d = local_index(set, g); d != no_index) m[d / 32] &= ~(1u << (d % 32));
    }
    m[0] |= 1u;  // 0 -> 0
    collect_extras(ff, set, set, s);
    for (auto [f, t] : s.extras) {
        if (f == t) {
            m[f / 32] |= 1u << (f % 32);
        } else {
            xs.push_back(f);
            xd.push_back(t);
        }
    }
}

/// Throws `std::length_error` when `v` does not fit a u32 layout field.
inline std::uint32_t checked_u32(std::uint64_t v, const char* what) {
    if (v > std::numeric_limits<std::uint32_t>::max())
        throw std::length_error(std::string("weir::ifds::make_layout: ") + what + " exceeds 2^32-1");
    return static_cast<std::uint32_t>(v);
}

/// Per-procedure fact sets (sorted ascending, zero fact first): the least sets
/// containing 0 and the seeds, closed under the gens/pairs of the procedure's
/// intraprocedural and call-to-return edges, under callflow into callees and
/// under retflow back into callers.
inline std::vector<std::vector<fact_id>> fact_sets(const problem& pb) {
    const std::size_t np = pb.procs.size();
    const std::size_t nn = pb.nodes.size();

    // Intraprocedural gens/pairs per procedure (flow edges and ctrflows), sorted
    // by source: procedure p's are local[local_off[p] .. local_end[p]).
    std::vector<std::size_t> local_off(np + 1, 0), local_end(np);
    auto each_local = [&](auto&& visit) {  // visit(p, ff) for every flow and call-to-return function
        for (const flow_edge& e : pb.flows) visit(pb.nodes[e.from].proc, e.ff);
        for (const auto& [site, ff] : pb.ctrflows)
            if (site < nn) visit(pb.nodes[site].proc, ff);
    };
    each_local([&](proc_id p, const flow_function& ff) { local_off[p + 1] += ff.gen.size() + ff.pairs.size(); });
    for (std::size_t p = 0; p < np; ++p) local_off[p + 1] += local_off[p];
    std::vector<std::pair<fact_id, fact_id>> local(local_off[np]);
    std::copy(local_off.begin(), local_off.end() - 1, local_end.begin());
    each_local([&](proc_id p, const flow_function& ff) {
        for (fact_id g : ff.gen) local[local_end[p]++] = {zero_fact, g};
        for (auto pr : ff.pairs) local[local_end[p]++] = pr;
    });
    for (std::size_t p = 0; p < np; ++p) {
        const auto b = local.begin() + static_cast<std::ptrdiff_t>(local_off[p]);
        const auto e = local.begin() + static_cast<std::ptrdiff_t>(local_end[p]);
        std::sort(b, e);
        local_end[p] = static_cast<std::size_t>(std::unique(b, e) - local.begin());
    }

    // Call edges out of and into each procedure.
    const std::size_t nc = pb.calls.size();
    closure_ffs cf, rf;  // per call edge: its callflow and retflow
    std::vector<std::uint32_t> out_off(np + 1, 0), in_off(np + 1, 0);
    for (const call_edge& c : pb.calls) {
        ++out_off[pb.nodes[c.site].proc + 1];
        ++in_off[c.callee + 1];
    }
    for (std::size_t p = 0; p < np; ++p) {
        out_off[p + 1] += out_off[p];
        in_off[p + 1] += in_off[p];
    }
    // out_ce/in_ce: the call edges out of and into each procedure; out_proc/in_proc:
    // the procedure at their other end (the callee, the caller), read in the loop below
    std::vector<std::uint32_t> out_ce(nc), in_ce(nc), out_proc(nc), in_proc(nc);
    {
        std::vector<std::uint32_t> po(out_off.begin(), out_off.end() - 1), pi(in_off.begin(), in_off.end() - 1);
        for (std::uint32_t i = 0; i < nc; ++i) {
            const call_edge& c = pb.calls[i];
            const proc_id caller = pb.nodes[c.site].proc;
            out_proc[po[caller]] = c.callee;
            out_ce[po[caller]++] = i;
            in_proc[pi[c.callee]] = caller;
            in_ce[pi[c.callee]++] = i;
            cf.add(c.callflow);
            rf.add(c.retflow);
        }
    }

    std::vector<std::vector<fact_id>> sets(np);
    std::vector<std::size_t> done(np, 0);
    std::vector<char> queued(np, 0);
    std::vector<proc_id> work;
    // Membership: a scan of the procedure's own set while it holds fewer than
    // `small_set` facts (most procedures; the scan stays in one short array,
    // where a table over all procedures misses the cache on every probe), then
    // a dense bitset when procedures x facts is small, else a hash set.
    constexpr std::size_t small_set = 32;
    const std::uint64_t nf = pb.fact_count();
    const bool dense = std::uint64_t{np} * nf <= (std::uint64_t{1} << 27);
    std::vector<char> large(np, 0);           // the procedure's set is in the bitset or hash set
    std::vector<std::uint64_t> dense_bits;    // allocated for the first large set
    flat_u64_set member;
    auto mark = [&](proc_id p, fact_id f) {  // true when (p, f) was not marked
        if (dense) {
            if (dense_bits.empty()) dense_bits.assign((std::uint64_t{np} * nf + 63) / 64, 0);
            const std::uint64_t b = std::uint64_t{p} * nf + f;
            const std::uint64_t m = std::uint64_t{1} << (b & 63);
            if (dense_bits[b >> 6] & m) return false;
            dense_bits[b >> 6] |= m;
            return true;
        }
        return member.insert((std::uint64_t{p} << 32) | f);
    };
    auto insert = [&](proc_id p, fact_id f) {  // true when f is new to p's set
        if (!large[p]) {
            const std::vector<fact_id>& s = sets[p];
            if (std::find(s.begin(), s.end(), f) != s.end()) return false;
            if (s.size() + 1 < small_set) return true;
            large[p] = 1;  // the set reaches small_set facts with f: mark them all from now on
            for (fact_id g : s) mark(p, g);
        }
        return mark(p, f);
    };
    auto add = [&](proc_id p, fact_id f) {
        if (insert(p, f)) {
            sets[p].push_back(f);
            if (!queued[p]) {
                queued[p] = 1;
                work.push_back(p);
            }
        }
    };
    for (proc_id p = 0; p < np; ++p) add(p, zero_fact);
    for (const seed& s : pb.seeds) add(pb.nodes[s.node].proc, s.fact);

    // A procedure's new facts are taken as one batch, marked in `stamp`: a
    // relation's pairs are then scanned once for sources in the batch, or,
    // when the batch is small against them, looked up per fact.
    std::vector<std::uint32_t> stamp(nf, 0);
    std::uint32_t epoch = 0;
    // the pairs [first, last) (sorted by source) applied to the batch sets[p][b0, b1), into q
    auto apply_pairs = [&](const std::pair<fact_id, fact_id>* first, const std::pair<fact_id, fact_id>* last, proc_id p,
                           std::size_t b0, std::size_t b1, proc_id q) {
        if (first == last) return;
        if ((b1 - b0) * 4 < static_cast<std::size_t>(last - first)) {
            for (std::size_t i = b0; i < b1; ++i) {
                const fact_id f = sets[p][i];
                auto lo = std::lower_bound(first, last, std::pair<fact_id, fact_id>(f, 0));
                for (; lo != last && lo->first == f; ++lo) add(q, lo->second);
            }
            return;
        }
        for (auto it = first; it != last; ++it)
            if (stamp[it->first] == epoch) add(q, it->second);
    };
    // a call edge's callflow or retflow (function i of `ffs`) applied to the batch, into q
    auto apply_call = [&](const closure_ffs& ffs, std::size_t i, proc_id p, std::size_t b0, std::size_t b1, proc_id q) {
        if (ffs.identity[i]) {
            const auto k0 = ffs.kill.begin() + static_cast<std::ptrdiff_t>(ffs.kill_off[i]);
            const auto k1 = ffs.kill.begin() + static_cast<std::ptrdiff_t>(ffs.kill_off[i + 1]);
            for (std::size_t j = b0; j < b1; ++j) {
                const fact_id f = sets[p][j];
                if (f != zero_fact && (k0 == k1 || !std::binary_search(k0, k1, f))) add(q, f);
            }
        }
        apply_pairs(ffs.pairs.data() + ffs.pair_off[i], ffs.pairs.data() + ffs.pair_off[i + 1], p, b0, b1, q);
    };
    while (!work.empty()) {
        const proc_id p = work.back();
        work.pop_back();
        queued[p] = 0;
        while (done[p] < sets[p].size()) {
            const std::size_t b0 = done[p], b1 = sets[p].size();
            done[p] = b1;
            ++epoch;
            for (std::size_t i = b0; i < b1; ++i) stamp[sets[p][i]] = epoch;
            apply_pairs(local.data() + local_off[p], local.data() + local_end[p], p, b0, b1, p);
            for (std::uint32_t i = out_off[p]; i < out_off[p + 1]; ++i) apply_call(cf, out_ce[i], p, b0, b1, out_proc[i]);
            for (std::uint32_t i = in_off[p]; i < in_off[p + 1]; ++i) apply_call(rf, in_ce[i], p, b0, b1, in_proc[i]);
        }
    }
    for (auto& s : sets) std::sort(s.begin(), s.end());
    return sets;
}

} // namespace detail

/// How `make_layout` works. The layout depends on `form` only: the same,
/// word for word, on any number of threads.
struct layout_options {
    /// The form of the intraprocedural edges.
    intra_form form = intra_form::per_row;
    /// Threads for the tables built per node or per call edge (the per-edge
    /// relations, the call and return relations, the call rows); 0: one
    /// per hardware thread.
    unsigned threads = 0;
    /// Problems of fewer nodes are laid out on one thread.
    std::uint32_t min_parallel_nodes = detail::default_min_parallel_nodes;
};

namespace detail {
/// `make_layout`; with `release` (which must be `&pb`), frees the problem's
/// flow functions as soon as the layout has compiled them (`release_flows`
/// in steps), so that the tables built after them can reuse their memory.
inline layout build_layout(const problem& pb, problem* release, const layout_options& opt) {
    const intra_form form = opt.form;
    layout L;
    const std::uint32_t nn = detail::checked_u32(pb.nodes.size(), "node count");
    const std::uint32_t np = detail::checked_u32(pb.procs.size(), "procedure count");
    const std::uint32_t nc = detail::checked_u32(pb.calls.size(), "call edge count");
    L.num_nodes = nn;
    L.num_procs = np;
    L.num_facts = pb.fact_count();

    // Fact sets.
    {
        auto sets = detail::fact_sets(pb);
        L.proc_fact_off.assign(np + 1, 0);
        std::uint64_t total = 0;
        for (std::uint32_t p = 0; p < np; ++p) {
            total += sets[p].size();
            L.proc_fact_off[p + 1] = detail::checked_u32(total, "total fact-set size");
        }
        L.proc_facts.reserve(total);
        for (auto& s : sets) L.proc_facts.insert(L.proc_facts.end(), s.begin(), s.end());
    }
    auto pfacts = [&](std::uint32_t p) {
        return std::span<const fact_id>(L.proc_facts.data() + L.proc_fact_off[p], L.fact_count(p));
    };

    // The large tables (those of a row per (node, fact) or of an entry per
    // relation pair) are filled at once and to the end, so their storage is
    // asked for in whole huge pages where the system allows them
    // (vyre/core/huge_pages.hpp): a fresh 4 KiB page costs a fault each, about
    // 13 µs in a VM. On 10000 generated procedures: 13,447 faults → 1,104–1,891.
    using vyre::detail::assign_huge;
    using vyre::detail::reserve_huge;
    constexpr auto whole = vyre::detail::huge_blocks::whole;

    // Procedures and nodes.
    L.proc_start.resize(np);
    L.proc_exit.resize(np);
    L.node_proc.resize(nn);
    L.node_kind.assign(nn, 0);
    L.node_fact_count.resize(nn);
    L.row_base.resize(nn + 1);
    L.pe_word.resize(nn + 1);
    L.node_retsite.assign(nn, no_index);
    for (std::uint32_t p = 0; p < np; ++p) {
        L.proc_start[p] = pb.procs[p].start;
        L.proc_exit[p] = pb.procs[p].exit;
        L.node_kind[pb.procs[p].start] |= kind_start;
        L.node_kind[pb.procs[p].exit] |= kind_exit;
    }
    for (const call_edge& c : pb.calls) {
        L.node_kind[c.site] |= kind_call_site;
        L.node_retsite[c.site] = c.retsite;
    }
    {
        std::uint64_t rows = 0, words = 0;
        for (std::uint32_t n = 0; n < nn; ++n) {
            const std::uint32_t p = pb.nodes[n].proc;
            const std::uint64_t f = L.fact_count(p);
            L.node_proc[n] = p;
            L.node_fact_count[n] = static_cast<std::uint32_t>(f);
            L.row_base[n] = detail::checked_u32(rows, "row count");
            L.pe_word[n] = detail::checked_u32(words, "path-edge words");
            rows += f;
            words += (f * f + 31) / 32;
        }
        L.row_base[nn] = L.num_rows = detail::checked_u32(rows, "row count");
        L.pe_word[nn] = L.pe_words = detail::checked_u32(words, "path-edge words");
    }

    // threads for the per-node and per-call-edge tables
    const unsigned nt = detail::threads_for(nn, opt.threads, opt.min_parallel_nodes);

    // Intraprocedural edges: flow edges grouped by source and sorted by target,
    // plus one call-to-return edge per call site; per row or per edge.
    {
        const bool per_row = form == intra_form::per_row;
        std::vector<std::uint32_t> fo(nn + 1, 0), fe(pb.flows.size());
        for (const flow_edge& e : pb.flows) ++fo[e.from + 1];
        for (std::uint32_t n = 0; n < nn; ++n) fo[n + 1] += fo[n];
        {
            std::vector<std::uint32_t> pos(fo.begin(), fo.end() - 1);
            for (std::uint32_t i = 0; i < pb.flows.size(); ++i) fe[pos[pb.flows[i].from]++] = i;
        }
        const flow_function identity = flow_function::id();
        // node n's edges, by target: their targets and flow functions (sorts n's
        // entries of `fe`, which no other node's call touches)
        auto edges_out = [&](std::uint32_t n, std::vector<std::uint32_t>& etarget, std::vector<const flow_function*>& effs) {
            etarget.clear();
            effs.clear();
            if (L.node_retsite[n] != no_index) {
                auto it = pb.ctrflows.find(n);
                etarget.push_back(L.node_retsite[n]);
                effs.push_back(it == pb.ctrflows.end() ? &identity : &it->second);
                return;
            }
            std::sort(fe.begin() + fo[n], fe.begin() + fo[n + 1],
                      [&](std::uint32_t a, std::uint32_t b) { return pb.flows[a].to < pb.flows[b].to; });
            for (std::uint32_t i = fo[n]; i < fo[n + 1]; ++i) {
                etarget.push_back(pb.flows[fe[i]].to);
                effs.push_back(&pb.flows[fe[i]].ff);
            }
        };
        if (per_row) {
            reserve_huge(L.intra_off, std::size_t{L.num_rows} + 1, whole);
            std::size_t est = 0;
            for (std::uint32_t n = 0; n < nn; ++n)
                est += std::size_t{L.node_fact_count[n]} * (fo[n + 1] - fo[n] + (L.node_retsite[n] != no_index));
            reserve_huge(L.intra_node, est + est / 8, whole);
            reserve_huge(L.intra_fact, est + est / 8, whole);
            std::vector<std::uint32_t> etarget;
            std::vector<const flow_function*> effs;
            std::vector<std::vector<std::uint32_t>> eoff, etgt;
            detail::relation_scratch scratch;
            for (std::uint32_t n = 0; n < nn; ++n) {
                const std::uint32_t p = L.node_proc[n];
                const std::uint32_t F = L.node_fact_count[n];
                edges_out(n, etarget, effs);
                const std::size_t k = etarget.size();
                if (eoff.size() < k) {
                    eoff.resize(k);
                    etgt.resize(k);
                }
                for (std::size_t i = 0; i < k; ++i) {
                    etgt[i].clear();
                    detail::compile_relation(*effs[i], pfacts(p), pfacts(p), scratch, eoff[i], etgt[i]);
                }
                for (std::uint32_t d = 0; d < F; ++d) {
                    L.intra_off.push_back(detail::checked_u32(L.intra_node.size(), "intra entries"));
                    for (std::size_t i = 0; i < k; ++i) {
                        const std::uint32_t* t = etgt[i].data();
                        for (std::uint32_t j = eoff[i][d]; j < eoff[i][d + 1]; ++j) {
                            L.intra_node.push_back(etarget[i]);
                            L.intra_fact.push_back(t[j]);
                        }
                    }
                }
            }
            L.intra_off.push_back(detail::checked_u32(L.intra_node.size(), "intra entries"));
        } else {
            detail::edge_table_ref all{L.intra_edge_off, L.intra_edge_dst, L.intra_edge_mask_off, L.intra_edge_mask,
                                       L.intra_edge_x_off, L.intra_edge_x_src, L.intra_edge_x_dst};
            all.off.push_back(0);
            all.x_off.push_back(0);
            // nodes [n0, n1): each edge as a mask of the facts it keeps and its other pairs
            auto build = [&](std::uint32_t n0, std::uint32_t n1, detail::edge_table_ref out) {
                std::size_t edges = 0, words = 0;  // (the arrays reserved at once: no copies as they grow)
                for (std::uint32_t n = n0; n < n1; ++n) {
                    const std::size_t k = fo[n + 1] - fo[n] + (L.node_retsite[n] != no_index);
                    edges += k;
                    words += k * ((L.node_fact_count[n] + 31) / 32);
                }
                out.off.reserve(out.off.size() + (n1 - n0));
                out.dst.reserve(out.dst.size() + edges);
                out.mask_off.reserve(out.mask_off.size() + edges);
                out.mask.reserve(out.mask.size() + words);
                out.x_off.reserve(out.x_off.size() + edges);
                detail::relation_scratch s;
                std::vector<std::uint32_t> targets;
                std::vector<const flow_function*> ffs;
                for (std::uint32_t n = n0; n < n1; ++n) {
                    edges_out(n, targets, ffs);
                    for (std::size_t i = 0; i < targets.size(); ++i) {
                        out.dst.push_back(targets[i]);
                        out.mask_off.push_back(detail::checked_u32(out.mask.size(), "intra mask words"));
                        detail::compile_edge_relation(*ffs[i], pfacts(L.node_proc[n]), s, out.mask, out.xs, out.xd);
                        out.x_off.push_back(detail::checked_u32(out.xs.size(), "intra pairs"));
                    }
                    out.off.push_back(detail::checked_u32(out.dst.size(), "intra edges"));
                }
            };
            if (nt <= 1) {
                build(0, nn, all);
            } else {
                // parts of about equal size (edges and nodes), joined in node order
                const unsigned parts = nt * detail::parts_per_thread;
                const auto cuts = detail::cut_by_cost(nn, parts, [&](std::uint32_t i) { return std::uint64_t{fo[i]} + i; });
                std::vector<detail::edge_table> rest(parts - 1);
                detail::for_each_part(parts, nt, [&](unsigned k, unsigned) {
                    build(cuts[k], cuts[k + 1], k == 0 ? all : rest[k - 1].ref());
                });
                detail::table_sizes more;
                for (detail::edge_table& part : rest) more.add(part.ref());
                more.reserve_in(all);
                for (detail::edge_table& part : rest) {
                    detail::checked_u32(all.dst.size() + part.dst.size(), "intra edges");
                    detail::checked_u32(all.mask.size() + part.mask.size(), "intra mask words");
                    detail::checked_u32(all.xs.size() + part.xs.size(), "intra pairs");
                    detail::append_edge_table(all, part.ref());
                    part = detail::edge_table{};
                }
            }
        }
    }
    if (release) {  // read no more: the call tables below may take their memory
        std::vector<flow_edge>().swap(release->flows);
        std::unordered_map<node_id, flow_function>().swap(release->ctrflows);
    }

    // Relation `ff` (callflow or retflow) of every call edge c, from the facts
    // of procedure from(c) to those of to(c): its offsets into the slice of
    // `off` from base(ce) (the relation's end too when `with_end`), its
    // targets into `tgt`, the call edges in parts on the threads.
    auto compile_per_call_edge = [&](flow_function call_edge::*ff, auto from, auto to, auto base,
                                     std::vector<std::uint32_t>& off, std::vector<std::uint32_t>& tgt, bool with_end) {
        detail::fill_sliced<1>(nc, nt, base, off, {&tgt},
                               [&](std::uint32_t c0, std::uint32_t c1, std::array<std::vector<std::uint32_t>*, 1> out) {
                                   detail::relation_scratch s;
                                   std::vector<std::uint32_t> offs;
                                   for (std::uint32_t ce = c0; ce < c1; ++ce) {
                                       const call_edge& c = pb.calls[ce];
                                       detail::compile_relation(c.*ff, pfacts(from(c)), pfacts(to(c)), s, offs, *out[0]);
                                       std::copy(offs.begin(), offs.end() - (with_end ? 0 : 1), off.begin() + base(ce));
                                   }
                               });
    };

    // Call edges.
    L.ce_site.resize(nc);
    L.ce_callee.resize(nc);
    L.ce_retsite.resize(nc);
    L.ret_row.resize(nc + 1);
    L.rcall_row.resize(nc + 1);
    L.callers_off.assign(np + 1, 0);
    {
        std::uint64_t rr = 0;
        for (std::uint32_t ce = 0; ce < nc; ++ce) {
            const call_edge& c = pb.calls[ce];
            L.ce_site[ce] = c.site;
            L.ce_callee[ce] = c.callee;
            L.ce_retsite[ce] = c.retsite;
            L.ret_row[ce] = L.rcall_row[ce] = detail::checked_u32(rr, "return rows");
            rr += L.fact_count(c.callee);
            ++L.callers_off[c.callee + 1];
        }
        L.ret_row[nc] = L.rcall_row[nc] = detail::checked_u32(rr, "return rows");
        for (std::uint32_t p = 0; p < np; ++p) L.callers_off[p + 1] += L.callers_off[p];
        L.callers_ce.resize(nc);
        std::vector<std::uint32_t> pos(L.callers_off.begin(), L.callers_off.end() - 1);
        for (std::uint32_t ce = 0; ce < nc; ++ce) L.callers_ce[pos[pb.calls[ce].callee]++] = ce;
    }
    {
        // Callflow relations per call edge: crel_off[cbase[ce] + d] (absolute into crel_tgt).
        std::vector<std::uint32_t> cbase(nc + 1, 0), crel_off, crel_tgt;
        for (std::uint32_t ce = 0; ce < nc; ++ce)
            cbase[ce + 1] = cbase[ce] + L.node_fact_count[L.ce_site[ce]] + 1;
        crel_off.resize(cbase[nc]);
        compile_per_call_edge(
            &call_edge::callflow, [&](const call_edge& c) { return L.node_proc[c.site]; },
            [](const call_edge& c) { return c.callee; }, [&](std::uint32_t ce) { return cbase[ce]; }, crel_off, crel_tgt, true);
        // Call relation by caller row.
        std::vector<std::uint32_t> so(nn + 1, 0), sce(nc);
        for (std::uint32_t ce = 0; ce < nc; ++ce) ++so[L.ce_site[ce] + 1];
        for (std::uint32_t n = 0; n < nn; ++n) so[n + 1] += so[n];
        {
            std::vector<std::uint32_t> pos(so.begin(), so.end() - 1);
            for (std::uint32_t ce = 0; ce < nc; ++ce) sce[pos[L.ce_site[ce]]++] = ce;
        }
        assign_huge(L.call_off, std::size_t{L.num_rows} + 1, std::uint32_t{0}, whole);
        reserve_huge(L.call_ce, crel_tgt.size(), whole);
        reserve_huge(L.call_fact, crel_tgt.size(), whole);
        detail::fill_sliced<2>(nn, nt, [&](std::uint32_t n) { return L.row_base[n]; }, L.call_off, {&L.call_ce, &L.call_fact},
                               [&](std::uint32_t n0, std::uint32_t n1, std::array<std::vector<std::uint32_t>*, 2> out) {
                                   std::vector<std::uint32_t>& ces = *out[0];
                                   std::vector<std::uint32_t>& facts = *out[1];
                                   for (std::uint32_t n = n0; n < n1; ++n) {
                                       std::uint32_t* rows = L.call_off.data() + L.row_base[n];
                                       if (so[n] == so[n + 1]) {  // not a call site: empty rows
                                           std::fill(rows, rows + L.node_fact_count[n], static_cast<std::uint32_t>(ces.size()));
                                           continue;
                                       }
                                       for (std::uint32_t d = 0; d < L.node_fact_count[n]; ++d) {
                                           rows[d] = detail::checked_u32(ces.size(), "call entries");
                                           for (std::uint32_t i = so[n]; i < so[n + 1]; ++i) {
                                               const std::uint32_t ce = sce[i];
                                               for (std::uint32_t j = crel_off[cbase[ce] + d]; j < crel_off[cbase[ce] + d + 1]; ++j) {
                                                   ces.push_back(ce);
                                                   facts.push_back(crel_tgt[j]);
                                               }
                                           }
                                       }
                                   }
                               });
        L.call_off[L.num_rows] = detail::checked_u32(L.call_ce.size(), "call entries");

        // Reverse call relation per call edge (counting sort by callee fact; caller facts ascend).
        const std::uint32_t nr = L.rcall_row[nc];
        assign_huge(L.rcall_off, std::size_t{nr} + 1, std::uint32_t{0}, whole);
        for (std::uint32_t ce = 0; ce < nc; ++ce)
            for (std::uint32_t j = crel_off[cbase[ce]]; j < crel_off[cbase[ce + 1] - 1]; ++j)
                ++L.rcall_off[L.rcall_row[ce] + crel_tgt[j] + 1];
        for (std::uint32_t r = 0; r < nr; ++r) L.rcall_off[r + 1] += L.rcall_off[r];
        assign_huge(L.rcall_fact, L.rcall_off[nr], std::uint32_t{0}, whole);
        std::vector<std::uint32_t> pos(L.rcall_off.begin(), L.rcall_off.end() - 1);
        for (std::uint32_t ce = 0; ce < nc; ++ce) {
            const std::uint32_t F = L.node_fact_count[L.ce_site[ce]];
            for (std::uint32_t d = 0; d < F; ++d)
                for (std::uint32_t j = crel_off[cbase[ce] + d]; j < crel_off[cbase[ce] + d + 1]; ++j)
                    L.rcall_fact[pos[L.rcall_row[ce] + crel_tgt[j]]++] = d;
        }
    }
    {
        // Return relation per call edge.
        assign_huge(L.ret_off, std::size_t{L.ret_row[nc]} + 1, std::uint32_t{0}, whole);
        compile_per_call_edge(
            &call_edge::retflow, [](const call_edge& c) { return c.callee; },
            [&](const call_edge& c) { return L.node_proc[c.retsite]; }, [&](std::uint32_t ce) { return L.ret_row[ce]; },
            L.ret_off, L.ret_fact, false);
        L.ret_off[L.ret_row[nc]] = detail::checked_u32(L.ret_fact.size(), "return entries");
    }
    if (release) std::vector<call_edge>().swap(release->calls);

    // Seeds: (start node, local fact), sorted, without duplicates.
    {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> s;
        s.reserve(pb.seeds.size());
        for (const seed& sd : pb.seeds) {
            const std::uint32_t d = detail::local_index(pfacts(L.node_proc[sd.node]), sd.fact);
            s.emplace_back(sd.node, d);
        }
        std::sort(s.begin(), s.end());
        s.erase(std::unique(s.begin(), s.end()), s.end());
        for (auto [n, d] : s) {
            L.seed_node.push_back(n);
            L.seed_fact.push_back(d);
        }
    }
    if (release) release_flows(*release);  // (the seeds: all that is left)
    return L;
}
} // namespace detail

/// Builds the flat solver layout of `pb` (see `layout.hpp` for every
/// encoding), its intraprocedural edges in `form` (`intra_form::per_edge`
/// only for the row-wise solve on a host backend). `pb` must be well-formed
/// (as the loader or builder guarantee). Throws `std::length_error` when a
/// table would not fit u32 indices.
inline layout make_layout(const problem& pb, const layout_options& opt) {
    return detail::build_layout(pb, nullptr, opt);
}

/// `make_layout` in `form` with the default options.
inline layout make_layout(const problem& pb, intra_form form = intra_form::per_row) {
    return make_layout(pb, layout_options{.form = form});
}

/// `make_layout(pb)` followed by `release_flows(pb)`, for a caller that
/// keeps the problem only for its names (to print a result), with a lower
/// peak: each part of the problem is freed as soon as the layout has read
/// it (the flow and call-to-return functions before the call tables are
/// built, the call edges before the seeds), so that the later tables can
/// take its memory. The layout is the same, word for word; `pb` keeps its
/// facts, procedures and nodes. `weir solve` uses it.
inline layout make_layout_releasing(problem& pb, const layout_options& opt) {
    return detail::build_layout(pb, &pb, opt);
}

/// `make_layout_releasing` in `form` with the default options.
inline layout make_layout_releasing(problem& pb, intra_form form = intra_form::per_row) {
    return make_layout_releasing(pb, layout_options{.form = form});
}

} // namespace weir::ifds
