#pragma once
/// \file support/ifds_gen.hpp
/// Test support: a tiny by-name problem builder for hand-written cases
/// (`weir::test::mini_problem`) and a random generator of well-formed IFDS
/// problems (`weir::test::random_problem`). Independent of the loader/builder.

#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <weir/ifds/problem.hpp>

namespace weir::test {

using namespace weir::ifds;

/// Builds a `problem` by names, for hand-written tests. Flow functions are
/// written as in the `.ifds` format (`"id kill:x gen:y a>b"`).
class mini_problem {
public:
    /// Declares facts (in order).
    mini_problem& facts(const std::vector<std::string>& names) {
        for (const auto& n : names) {
            fact_ids_[n] = static_cast<fact_id>(p_.facts.size() + 1);
            p_.facts.push_back(n);
        }
        return *this;
    }
    mini_problem& facts(std::initializer_list<std::string> names) { return facts(std::vector<std::string>(names)); }
    /// Declares a procedure with its start and exit nodes.
    mini_problem& proc(const std::string& name, const std::string& start, const std::string& exit) {
        const proc_id id = static_cast<proc_id>(p_.procs.size());
        proc_ids_[name] = id;
        p_.procs.push_back({name, add_node(start, id), add_node(exit, id)});
        return *this;
    }
    /// Declares a further node of procedure `proc`.
    mini_problem& node(const std::string& name, const std::string& proc) {
        add_node(name, proc_ids_.at(proc));
        return *this;
    }
    /// An intraprocedural edge.
    mini_problem& flow(const std::string& from, const std::string& to, const std::string& ff = "id") {
        p_.flows.push_back({n(from), n(to), parse_ff(ff)});
        return *this;
    }
    /// A call edge with its callflow and retflow.
    mini_problem& call(const std::string& site, const std::string& callee, const std::string& ret,
                       const std::string& callflow = "id", const std::string& retflow = "id") {
        p_.calls.push_back({n(site), proc_ids_.at(callee), n(ret), parse_ff(callflow), parse_ff(retflow)});
        return *this;
    }
    /// The call-to-return flow of a call site.
    mini_problem& ctr(const std::string& site, const std::string& ff) {
        p_.ctrflows[n(site)] = parse_ff(ff);
        return *this;
    }
    /// A seed.
    mini_problem& seed(const std::string& node, const std::string& fact) {
        p_.seeds.push_back({n(node), f(fact)});
        return *this;
    }
    /// Node id by name.
    node_id n(const std::string& name) const { return node_ids_.at(name); }
    /// Fact id by name (`"0"` is the zero fact).
    fact_id f(const std::string& name) const { return name == "0" ? zero_fact : fact_ids_.at(name); }
    /// Parses a flow function written as `.ifds` terms.
    flow_function parse_ff(const std::string& text) const {
        flow_function ff;
        std::istringstream in(text);
        std::string term;
        auto list = [&](const std::string& s) {
            std::vector<fact_id> out;
            std::string item;
            std::istringstream li(s);
            while (std::getline(li, item, ',')) out.push_back(f(item));
            return out;
        };
        while (in >> term) {
            if (term == "id") {
                ff.identity = true;
            } else if (term.rfind("kill:", 0) == 0) {
                auto v = list(term.substr(5));
                ff.kill.insert(ff.kill.end(), v.begin(), v.end());
            } else if (term.rfind("gen:", 0) == 0) {
                auto v = list(term.substr(4));
                ff.gen.insert(ff.gen.end(), v.begin(), v.end());
            } else if (auto gt = term.find('>'); gt != std::string::npos) {
                ff.pairs.emplace_back(f(term.substr(0, gt)), f(term.substr(gt + 1)));
            } else {
                throw std::invalid_argument("mini_problem: bad flow-function term " + term);
            }
        }
        return ff;
    }
    /// The problem built so far.
    const problem& get() const { return p_; }

private:
    node_id add_node(const std::string& name, proc_id proc) {
        const node_id id = static_cast<node_id>(p_.nodes.size());
        node_ids_[name] = id;
        p_.nodes.push_back({name, proc});
        return id;
    }
    problem p_;
    std::unordered_map<std::string, node_id> node_ids_;
    std::unordered_map<std::string, proc_id> proc_ids_;
    std::unordered_map<std::string, fact_id> fact_ids_;
};

/// Knobs of `random_problem`. Probabilities are in [0, 1].
struct gen_options {
    std::uint32_t procs = 4;               ///< procedure count
    std::uint32_t min_nodes = 2;           ///< nodes per procedure, start and exit included (≥ 2)
    std::uint32_t max_nodes = 6;
    std::uint32_t facts = 4;               ///< declared facts
    double p_call = 0.35;                  ///< a non-exit node (with a successor) becomes a call site
    double p_recursion = 0.15;             ///< a callee is the caller itself
    double p_mutual = 0.15;                ///< a callee is a lower-numbered procedure (cycles)
    double p_indirect = 0.2;               ///< a call site gets more callees
    double p_extra_edge = 0.3;             ///< extra intraprocedural edges per node (loops, branches)
    double p_missing = 0.3;                ///< a callflow/retflow/ctrflow is left as the default `id`
    double p_identity = 0.8;               ///< a flow function contains `id`
    double p_kill = 0.3;                   ///< per term slot: a kill
    double p_gen = 0.25;                   ///< per term slot: a gen
    double p_pair = 0.25;                  ///< per term slot: an `a>b` move
    double p_shared_retsite = 0.1;         ///< a call site returns to a node that is already a return site
    std::uint32_t seeds = 2;               ///< seed count (before deduplication)
    double p_seed_zero = 0.5;              ///< a seed is the zero fact
    bool shuffle_nodes = true;             ///< declare non-start/exit nodes in random order
};

/// A random, well-formed (per the spec) IFDS problem; the same seed and
/// options give the same problem.
inline problem random_problem(std::uint64_t seed, const gen_options& o = {}) {
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + 12345);
    auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
    auto pick = [&](std::uint32_t lo, std::uint32_t hi) {  // inclusive
        return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng);
    };
    problem pb;
    for (std::uint32_t i = 0; i < o.facts; ++i) pb.facts.push_back("f" + std::to_string(i + 1));
    const std::uint32_t P = std::max<std::uint32_t>(1, o.procs);
    const std::uint32_t nf = pb.fact_count();
    auto rand_fact = [&]() -> fact_id { return pick(1, nf - 1); };
    auto rand_ff = [&]() {
        flow_function ff;
        ff.identity = chance(o.p_identity);
        if (nf > 1) {
            for (int k = 0; k < 2; ++k) {
                if (chance(o.p_kill)) ff.kill.push_back(rand_fact());
                if (chance(o.p_gen)) ff.gen.push_back(rand_fact());
                if (chance(o.p_pair)) ff.pairs.emplace_back(chance(0.1) ? zero_fact : rand_fact(), rand_fact());
            }
        }
        return ff;
    };

    // Procedures: start/exit declared first (as `proc` lines), other nodes after.
    std::vector<std::vector<node_id>> chain(P);  // per procedure: start, inner..., exit (chain order)
    std::vector<std::uint32_t> inner_count(P);
    for (std::uint32_t p = 0; p < P; ++p) {
        const node_id s = static_cast<node_id>(pb.nodes.size());
        pb.nodes.push_back({"p" + std::to_string(p) + ".s", p});
        pb.nodes.push_back({"p" + std::to_string(p) + ".e", p});
        pb.procs.push_back({"p" + std::to_string(p), s, s + 1});
        inner_count[p] = pick(std::max<std::uint32_t>(2, o.min_nodes), std::max(o.min_nodes, o.max_nodes)) - 2;
    }
    std::vector<proc_id> inner_owner;
    for (std::uint32_t p = 0; p < P; ++p)
        for (std::uint32_t i = 0; i < inner_count[p]; ++i) inner_owner.push_back(p);
    if (o.shuffle_nodes) std::shuffle(inner_owner.begin(), inner_owner.end(), rng);
    std::vector<std::vector<node_id>> inner(P);
    for (proc_id p : inner_owner) {
        const node_id id = static_cast<node_id>(pb.nodes.size());
        pb.nodes.push_back({"n" + std::to_string(id), p});
        inner[p].push_back(id);
    }
    for (std::uint32_t p = 0; p < P; ++p) {
        chain[p].push_back(pb.procs[p].start);
        for (node_id x : inner[p]) chain[p].push_back(x);
        chain[p].push_back(pb.procs[p].exit);
    }

    // Call sites: node chain[i] (not the exit) may become a call site returning to chain[i+1]
    // (or, sometimes, to another later/earlier node of the procedure that is not itself).
    std::vector<char> is_site(pb.nodes.size(), 0);
    std::vector<node_id> retsites;
    for (std::uint32_t p = 0; p < P; ++p) {
        auto& ch = chain[p];
        for (std::size_t i = 0; i + 1 < ch.size(); ++i) {
            if (!chance(o.p_call)) continue;
            const node_id site = ch[i];
            node_id ret = ch[i + 1];
            if (!retsites.empty() && chance(o.p_shared_retsite)) {
                const node_id r = retsites[pick(0, static_cast<std::uint32_t>(retsites.size() - 1))];
                if (pb.nodes[r].proc == p && r != site) ret = r;
            }
            is_site[site] = 1;
            retsites.push_back(ret);
            std::vector<proc_id> callees;
            const std::uint32_t ntargets = chance(o.p_indirect) ? pick(2, 3) : 1;
            for (std::uint32_t k = 0; k < ntargets; ++k) {
                proc_id q;
                if (chance(o.p_recursion))
                    q = p;
                else if (chance(o.p_mutual) && p > 0)
                    q = pick(0, p - 1);
                else if (p + 1 < P)
                    q = pick(p + 1, P - 1);
                else
                    q = pick(0, P - 1);
                if (std::find(callees.begin(), callees.end(), q) != callees.end()) continue;
                callees.push_back(q);
                call_edge ce;
                ce.site = site;
                ce.callee = q;
                ce.retsite = ret;
                if (!chance(o.p_missing)) ce.callflow = rand_ff();
                if (!chance(o.p_missing)) ce.retflow = rand_ff();
                pb.calls.push_back(ce);
            }
            if (!chance(o.p_missing)) pb.ctrflows[site] = rand_ff();
        }
    }

    // Intraprocedural edges: the chain (for non-call sites), plus extras (no edge out of
    // call sites or exits; no duplicate FROM TO).
    for (std::uint32_t p = 0; p < P; ++p) {
        auto& ch = chain[p];
        for (std::size_t i = 0; i + 1 < ch.size(); ++i) {
            const node_id from = ch[i];
            if (is_site[from]) continue;
            std::vector<node_id> tos{ch[i + 1]};
            while (chance(o.p_extra_edge)) {
                const node_id to = ch[pick(0, static_cast<std::uint32_t>(ch.size() - 1))];
                if (std::find(tos.begin(), tos.end(), to) == tos.end()) tos.push_back(to);
            }
            for (node_id to : tos) pb.flows.push_back({from, to, rand_ff()});
        }
    }

    // Seeds at start nodes.
    for (std::uint32_t i = 0; i < std::max<std::uint32_t>(1, o.seeds); ++i) {
        weir::ifds::seed s{pb.procs[pick(0, P - 1)].start, (nf == 1 || chance(o.p_seed_zero)) ? zero_fact : rand_fact()};
        if (std::find(pb.seeds.begin(), pb.seeds.end(), s) == pb.seeds.end()) pb.seeds.push_back(s);
    }
    return pb;
}

/// The options of the parity tests' "larger" problems for `seed`: 8 to 32
/// procedures of 4 to 12 facts, recursion and mutual recursion.
inline gen_options larger_options(std::uint64_t seed) {
    gen_options o;
    o.procs = 8 + seed % 25;
    o.facts = 4 + seed % 9;
    o.max_nodes = 4 + seed % 8;
    o.seeds = 1 + seed % 4;
    o.p_recursion = 0.2;
    o.p_mutual = 0.3;
    return o;
}

/// Small problems of every shape for `seed` (the witness tests'): 1 to 5
/// procedures of 0 to 5 facts; every third with (mutual) recursion and
/// shared return sites, every third with indirect calls and pairs.
inline gen_options varied_options(std::uint64_t seed) {
    gen_options o;
    o.procs = 1 + static_cast<std::uint32_t>(seed % 5);
    o.facts = static_cast<std::uint32_t>(seed % 6);
    o.max_nodes = 3 + static_cast<std::uint32_t>(seed % 5);
    if (seed % 3 == 1) {
        o.p_recursion = 0.4;
        o.p_mutual = 0.4;
        o.p_shared_retsite = 0.4;
    }
    if (seed % 3 == 2) {
        o.p_indirect = 0.6;
        o.p_pair = 0.6;
    }
    o.seeds = 1 + static_cast<std::uint32_t>(seed % 3);
    return o;
}

/// p0 calls p1 calls ... p{k-1} (each from its start, returning to a node
/// that flows to its exit); the last generates fact 1, which flows back out.
/// Witnesses through it are 3k - 1 vertices long at p0's exit.
inline problem call_chain_problem(int k) {
    problem pb;
    pb.facts = {"x"};
    for (int i = 0; i < k; ++i) {
        const node_id s = static_cast<node_id>(pb.nodes.size());
        pb.nodes.push_back({"s" + std::to_string(i), static_cast<proc_id>(i)});
        pb.nodes.push_back({"e" + std::to_string(i), static_cast<proc_id>(i)});
        pb.procs.push_back({"p" + std::to_string(i), s, s + 1});
    }
    for (int i = 0; i < k; ++i) {
        const node_id s = pb.procs[i].start, e = pb.procs[i].exit;
        if (i + 1 < k) {
            const node_id r = static_cast<node_id>(pb.nodes.size());
            pb.nodes.push_back({"r" + std::to_string(i), static_cast<proc_id>(i)});
            call_edge ce;
            ce.site = s;
            ce.callee = static_cast<proc_id>(i + 1);
            ce.retsite = r;
            pb.calls.push_back(ce);
            pb.flows.push_back({r, e, flow_function::id()});
        } else {
            flow_function g = flow_function::id();
            g.gen.push_back(1);
            pb.flows.push_back({s, e, g});
        }
    }
    pb.seeds.push_back({pb.procs[0].start, zero_fact});
    return pb;
}

} // namespace weir::test
