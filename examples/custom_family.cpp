// Your own IDE edge-function family, solved on the `cpu` backend.
//
// `typestate` tracks which states a file handle may be in (open, closed,
// error) as a set of states: an edge function maps each state to a set of
// states (`close`: open -> closed, closed -> error), and values are the sets
// that reach a node. The family is checked by the concept with a readable
// static_assert, registered with vyre by the resident solver itself, and
// solved on `vyre::cpu`; the example then reports where a handle may be
// closed twice, and checks its answer against the host tabulation solver.
//
// Run: ./build/examples/custom_family

#include <array>
#include <bit>
#include <stdexcept>
#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>

#include <vyre/backend/cpu.hpp>
#include <weir/core/vyre_resident_ifds.hpp>
#include <weir/ide/edge_function_family.hpp>
#include <weir/ide/layout.hpp>
#include <weir/ide/problem.hpp>
#include <weir/ide/resident_solver.hpp>
#include <weir/ide/tabulation_solver.hpp>
#include <weir/ifds/format.hpp>

/// A typestate family over three states: a value is a set of states (3 bits),
/// a function maps each state to a set (3 bits per state), plus the
/// solver-internal `top` (no path yet).
struct typestate {
    static constexpr std::string_view name = "typestate";
    static constexpr std::size_t encoded_words = 1, encoded_value_words = 1;
    enum state : std::uint32_t { open = 1, closed = 2, error = 4 };
    static constexpr std::uint32_t all = open | closed | error;

    /// The states a handle may be in (empty: no information, the least value).
    struct value {
        std::uint32_t states = 0;
        bool operator==(const value&) const = default;
    };
    /// For each state s (bit i), the states it may become: 3 bits at 3i.
    struct function {
        std::uint32_t table = 0;
        bool top = true;  ///< no path yet
        bool operator==(const function&) const = default;
    };

    static function make(std::uint32_t from_open, std::uint32_t from_closed, std::uint32_t from_error) {
        return {from_open | from_closed << 3 | from_error << 6, false};
    }
    static std::uint32_t image(const function& f, std::uint32_t state_bit) {
        return f.table >> (3 * std::countr_zero(state_bit)) & all;
    }

    static value top_value() { return {}; }
    static value bottom_value() { return {all}; }
    static value join_values(const value& a, const value& b) { return {a.states | b.states}; }
    static function identity() { return make(open, closed, error); }
    static function bottom() { return make(all, all, all); }
    static function top() { return {}; }
    /// The union of the images of the states in `v`.
    static value apply(const function& f, const value& v) {
        if (f.top) return top_value();
        value r;
        for (std::uint32_t s : {open, closed, error})
            if (v.states & s) r.states |= image(f, s);
        return r;
    }
    /// g after f, state by state.
    static function compose(const function& g, const function& f) {
        if (g.top || f.top) return top();
        return make(apply(g, {image(f, open)}).states, apply(g, {image(f, closed)}).states,
                    apply(g, {image(f, error)}).states);
    }
    static function join(const function& f, const function& g) {
        if (f.top) return g;
        if (g.top) return f;
        return {f.table | g.table, false};
    }
    static void encode(const function& f, std::uint32_t* out) { out[0] = f.top ? 1u << 31 : f.table; }
    static function decode(const std::uint32_t* in) {
        return in[0] >> 31 ? top() : function{in[0] & 0777u, false};
    }
    static void encode_value(const value& v, std::uint32_t* out) { out[0] = v.states; }
    static value decode_value(const std::uint32_t* in) { return {in[0] & all}; }
};
// A missing or mistyped member is named here, in words.
static_assert(weir::ide::check_edge_function_family<typestate>());

namespace {

/// main opens f, closes it on one branch, uses it, then calls finish(f),
/// which closes its parameter again.
constexpr std::string_view program = R"(ifds 1
facts f h
proc main main.s main.e
node main.open main
node main.then main
node main.else main
node main.use main
node main.call main
node main.ret main
flow main.s main.open id
flow main.open main.then id gen:f
flow main.open main.else id gen:f
flow main.then main.use id
flow main.else main.use id
flow main.use main.call id
call main.call finish main.ret
callflow main.call finish f>h
retflow main.call finish h>f
ctrflow main.call id kill:f
flow main.ret main.e id
proc finish finish.s finish.e
flow finish.s finish.e id
seed main.s 0
)";

std::string states(typestate::value v) {
    std::string s;
    for (auto [bit, n] : {std::pair{typestate::open, "open"}, {typestate::closed, "closed"}, {typestate::error, "error"}})
        if (v.states & bit) s += (s.empty() ? "" : "|") + std::string(n);
    return s.empty() ? "-" : s;
}

} // namespace

int main() {
    using F = typestate;
    weir::ide::problem<F> pb;
    pb.graph = weir::ifds::load_problem(program, "typestate.ifds").value();
    pb.fill_defaults();
    const auto& g = pb.graph;
    auto node = [&](std::string_view name) {
        for (weir::ifds::node_id n = 0; n < g.nodes.size(); ++n)
            if (g.nodes[n].name == name) return n;
        throw std::runtime_error("no node " + std::string(name));
    };
    auto flow = [&](std::string_view from, std::string_view to) -> weir::ide::edge_terms<F>& {
        for (std::size_t i = 0; i < g.flows.size(); ++i)
            if (g.flows[i].from == node(from) && g.flows[i].to == node(to)) return pb.flow_functions[i];
        throw std::runtime_error("no flow edge");
    };
    const weir::ifds::fact_id f = 1, h = 2;
    const F::function fopen = F::make(F::open, F::open, F::open);       // whatever came before: open
    const F::function fclose = F::make(F::closed, F::error, F::error);  // closing a closed file: error
    flow("main.open", "main.then") = {{0, f, fopen}};
    flow("main.open", "main.else") = {{0, f, fopen}};
    flow("main.then", "main.use") = {{f, f, fclose}};  // the then-branch closes f
    flow("finish.s", "finish.e") = {{h, h, fclose}};   // finish(h) closes h

    vyre::cpu backend;
    weir::vyre_resident_ifds<vyre::cpu> device(backend);
    const auto L = weir::ide::make_layout(pb);
    auto solver = weir::ide::resident_solver<F, decltype(device)>::create(device, L);
    if (!solver) {
        std::cerr << solver.error().what() << "\n";
        return 1;
    }
    auto out = solver->solve();
    if (!out) {
        std::cerr << out.error().what() << "\n";
        return 1;
    }
    const auto& s = out->result;
    int problems = 0;
    for (std::size_t n = 0; n < s.at.size(); ++n)
        for (const auto& [fact, v] : s.at[n]) {
            if (fact == 0) continue;
            std::cout << g.nodes[n].name << ": " << g.facts[fact - 1] << " may be " << states(v) << "\n";
            if (v.states & F::error) ++problems;
        }
    const bool same = s == weir::ide::tabulation_solver<F>(pb).solve().value();
    std::cout << problems << " place(s) where a handle may have been closed twice; "
              << (same ? "same as the host tabulation solver" : "DIFFERENT from the host tabulation solver") << "\n";
    // main.ret and main.e see f closed twice on the then-branch, and finish.e sees h so
    return same && problems == 3 ? 0 : 1;
}
