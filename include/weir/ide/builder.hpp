#pragma once
/// \file weir/ide/builder.hpp
/// `weir::ide::problem_builder<F>`: builds an IDE problem statement by
/// statement, as `ifds::problem_builder` builds an IFDS one (it is one,
/// underneath: every well-formedness rule is checked by the same code as the
/// `.ifds` and `.ide` loaders), with an edge function on any term and a value
/// on any seed.
///
/// Flow functions with edge functions are written with `eff<F>`, term for
/// term as in an `.ide` file (ide-format.md):
/// `eff<linear>::id().kill({x}).pair(x, y, linear::affine(2, 1))` is
/// `id kill:x x>y=2*x+1`, and `eff<linear>::none().gen({x}, linear::constant(5))`
/// is `gen:x=5`. Terms without a function carry the identity, and terms
/// relating the same pair join their functions, as in the file.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <vyre/core/result.hpp>
#include <weir/ide/problem.hpp>
#include <weir/ifds/builder.hpp>

namespace weir::ide {

/// A flow function whose terms may carry edge functions of family `F` (see
/// the file comment); converts from `ifds::ff` and `ifds::flow_function`
/// (every term the identity).
template <edge_function_family F>
struct eff {
    using function = typename F::function;

    /// The relation, every term as written.
    ifds::flow_function fn;
    /// The terms written with a function, as written (joined by the builder).
    edge_terms<F> terms;

    eff() = default;
    /// Every term of `f` with the identity.
    eff(const ifds::flow_function& f) : fn(f) {}  // NOLINT: implicit on purpose (an IFDS function is an IDE one)
    /// Every term of `f` with the identity.
    eff(const ifds::ff& f) : fn(f.fn) {}  // NOLINT: implicit on purpose

    /// The identity (`id`).
    static eff id() { return eff(ifds::flow_function::id()); }
    /// The empty list: only `0 → 0`.
    static eff none() { return eff(); }
    /// `kill:` facts (removed from `id`; they take no function).
    eff kill(std::initializer_list<fact_id> facts) const { return with(ifds::ff{fn}.kill(facts)); }
    /// `gen:` facts with the identity.
    eff gen(std::initializer_list<fact_id> facts) const { return with(ifds::ff{fn}.gen(facts)); }
    /// `gen:a,b=EF`: each fact generated with function `f` (from the zero fact's value, bottom).
    eff gen(std::initializer_list<fact_id> facts, const function& f) const {
        eff r = gen(facts);
        for (fact_id g : facts) r.terms.push_back({zero_fact, g, f});
        return r;
    }
    /// The pair `from > to` with the identity.
    eff pair(fact_id from, fact_id to) const { return with(ifds::ff{fn}.pair(from, to)); }
    /// The pair `from > to` with function `f` (`from>to=EF`).
    eff pair(fact_id from, fact_id to, const function& f) const {
        eff r = pair(from, to);
        r.terms.push_back({from, to, f});
        return r;
    }

private:
    /// This function's edge functions on relation `g`.
    eff with(ifds::ff g) const {
        eff r = *this;
        r.fn = std::move(g.fn);
        return r;
    }
};

/// Builds a `problem<F>` (see the file comment). Ids returned by the
/// declarations are those of the finished problem; `finish` checks every
/// rule of both specs and returns the first error in call order.
template <edge_function_family F>
class problem_builder {
public:
    using function = typename F::function;
    using value = typename F::value;

    /// Declares fact `name`; returns its id (the zero fact is 0 and is not declared).
    fact_id fact(std::string_view name) { return count(), g_.fact(name); }
    /// Declares procedure `name` with new nodes `start_name` and `exit_name`.
    proc_id proc(std::string_view name, std::string_view start_name, std::string_view exit_name) {
        return count(), g_.proc(name, start_name, exit_name);
    }
    /// Declares a further node of procedure `owner`.
    node_id node(std::string_view name, proc_id owner) { return count(), g_.node(name, owner); }

    /// An intraprocedural edge `from → to` with flow function `f` and its edge functions.
    void flow(node_id from, node_id to, eff<F> f) {
        flows_[key(from, to)] = terms(f);
        g_.flow(from, to, std::move(f.fn));
    }
    /// A call from `site` to `callee`, returning to `retsite`.
    void call(node_id site, proc_id callee, node_id retsite) { count(), g_.call(site, callee, retsite); }
    /// The flow on the edge `site → start(callee)` (default: `id`, identity functions).
    void callflow(node_id site, proc_id callee, eff<F> f) {
        calls_[key(site, callee)] = terms(f);
        g_.callflow(site, callee, std::move(f.fn));
    }
    /// The flow on the edge `exit(callee) → retsite(site)` (default: `id`, identity functions).
    void retflow(node_id site, proc_id callee, eff<F> f) {
        returns_[key(site, callee)] = terms(f);
        g_.retflow(site, callee, std::move(f.fn));
    }
    /// The call-to-return flow of `site` (default: `id`, identity functions).
    void ctrflow(node_id site, eff<F> f) {
        ctrs_[site] = terms(f);
        g_.ctrflow(site, std::move(f.fn));
    }
    /// A seed: `f` holds at `start_node` with value `v` (the zero fact's is always bottom).
    void seed(node_id start_node, fact_id f, value v = F::bottom_value()) {
        count();
        seeds_[key(start_node, f)] = f == zero_fact ? F::bottom_value() : v;
        g_.seed(start_node, f);
    }

    /// The id of a declared fact (`"0"` is the zero fact).
    std::optional<fact_id> find_fact(std::string_view name) const { return g_.find_fact(name); }
    /// The id of a declared procedure.
    std::optional<proc_id> find_proc(std::string_view name) const { return g_.find_proc(name); }
    /// The id of a declared node.
    std::optional<node_id> find_node(std::string_view name) const { return g_.find_node(name); }
    /// Start node of a declared procedure.
    node_id start_of(proc_id q) const { return g_.start_of(q); }
    /// Exit node of a declared procedure.
    node_id exit_of(proc_id q) const { return g_.exit_of(q); }

    /// Checks every rule and returns the problem, or the first error in call
    /// order: the IFDS rules (ifds-format.md), and an edge function that is
    /// `top` (it means "no path" and belongs to solvers only).
    vyre::result<problem<F>, ifds::build_error> finish() const {
        auto g = g_.finish();
        if (!g) {
            if (top_at_ != 0 && top_at_ < g.error().statement) return vyre::make_unexpected(top_error());
            return vyre::make_unexpected(g.error());
        }
        if (top_at_ != 0) return vyre::make_unexpected(top_error());
        problem<F> p;
        p.graph = std::move(*g);
        p.fill_defaults();
        const auto& G = p.graph;
        for (std::size_t i = 0; i < G.flows.size(); ++i)
            if (auto it = flows_.find(key(G.flows[i].from, G.flows[i].to)); it != flows_.end())
                p.flow_functions[i] = it->second;
        for (std::size_t i = 0; i < G.calls.size(); ++i) {
            const std::uint64_t k = key(G.calls[i].site, G.calls[i].callee);
            if (auto it = calls_.find(k); it != calls_.end()) p.call_functions[i] = it->second;
            if (auto it = returns_.find(k); it != returns_.end()) p.return_functions[i] = it->second;
        }
        for (const auto& [site, t] : ctrs_)
            if (!t.empty()) p.ctr_functions[site] = t;
        for (std::size_t i = 0; i < G.seeds.size(); ++i)
            if (auto it = seeds_.find(key(G.seeds[i].node, G.seeds[i].fact)); it != seeds_.end())
                p.seed_values[i] = it->second;
        return p;
    }

private:
    static std::uint64_t key(std::uint32_t a, std::uint32_t b) { return std::uint64_t(a) << 32 | b; }

    /// Counts one builder call (they are numbered as the IFDS builder numbers them).
    void count() { ++calls_made_; }

    /// `f`'s edge functions in canonical form; notes the first `top` among them.
    edge_terms<F> terms(const eff<F>& f) {
        count();
        for (const auto& t : f.terms)
            if (t.f == F::top() && top_at_ == 0) top_at_ = calls_made_;
        return detail::join_written_terms<F>(f.terms, f.fn);
    }

    ifds::build_error top_error() const {
        return {top_at_, "top", "an edge function may not be `top` (it means \"no path\" and belongs to the solvers): "
                                "leave the term out, or use bottom"};
    }

    ifds::problem_builder g_;
    std::size_t calls_made_ = 0;
    std::size_t top_at_ = 0;  ///< the first call with a `top` function (0: none)
    std::unordered_map<std::uint64_t, edge_terms<F>> flows_, calls_, returns_;  ///< by (FROM, TO), (SITE, CALLEE)
    std::unordered_map<node_id, edge_terms<F>> ctrs_;                           ///< by SITE
    std::unordered_map<std::uint64_t, value> seeds_;                            ///< by (NODE, FACT)
};

} // namespace weir::ide
