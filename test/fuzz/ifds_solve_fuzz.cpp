/// \file test/fuzz/ifds_solve_fuzz.cpp
/// Fuzz target `ifds_solve`: the IFDS solvers on whatever `.ifds` input loads.
/// An input that does not load as text is read as a *recipe* instead: its
/// bytes choose a well-formed problem (`recipe_text`), printed as `.ifds`
/// text and loaded, so that mutations which break the text syntax still
/// reach the solvers. A problem small enough for one fast run (at most `max_path_edge_bits`
/// possible path edges) is laid out and solved by `tabulation_solver` (the
/// oracle) and by `resident_solver` on `cpu_ref` in every kernel mode, with
/// a frontier size and workgroup cap derived from the input's hash (so
/// frontier regrowth and grid-stride rounds are exercised too). Laws checked:
/// every resident run succeeds and gives tabulation's path-edge bitset and
/// its path-edge, context and summary-edge counts (in `row_solve` mode on
/// the layout made with `intra_form::per_edge` too), and the solvers free
/// all their resident memory; on tiny problems the solution also equals the
/// naive reference of `test/support/brute_force.hpp`.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <vyre/backend/cpu_ref.hpp>
#include <weir/core/vyre_resident_ifds.hpp>
#include <weir/ifds/format.hpp>
#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/resident_solver.hpp>
#include <weir/ifds/solution.hpp>
#include <weir/ifds/tabulation_solver.hpp>

#include "fuzz/fuzz_targets.hpp"
#include "support/brute_force.hpp"

namespace {

using namespace weir::ifds;

/// Problems with more possible path edges (nodes x facts^2) are skipped.
constexpr std::uint64_t max_path_edge_bits = 1u << 14;
/// Problems at most this large (procs x nodes x facts^2) are also checked
/// against the brute-force reference.
constexpr std::uint64_t max_brute_force_size = 1u << 14;

/// Every resident kernel mode, each checked against tabulation.
constexpr kernel_mode all_modes[] = {kernel_mode::ir_kernels, kernel_mode::row_solve};

/// A mode's name for failure messages.
const char* mode_name(kernel_mode m) {
    switch (m) {
    case kernel_mode::automatic: return "automatic";
    case kernel_mode::ir_kernels: return "ir_kernels";
    case kernel_mode::row_solve: return "row_solve";
    }
    return "?";
}

/// Aborts with the problem's text when `ok` is false.
void require(bool ok, const std::string& what, const problem& pb) {
    if (!ok) vyre_fuzz::fail("ifds_solve", what, print_problem(pb));
}

/// Reads recipe bytes in order; 0 once they run out.
struct byte_reader {
    const std::uint8_t* p;
    const std::uint8_t* e;
    /// The next byte, or 0 at the end.
    std::uint32_t next() { return p < e ? *p++ : 0u; }
    /// A value in [0, n) (n > 0) from the next byte.
    std::uint32_t below(std::uint32_t n) { return next() % n; }
};

/// A well-formed `.ifds` problem chosen by `r`: up to 5 procedures of up to
/// 6 nodes, up to 5 facts, flow edges inside procedures (none leaving an exit
/// or a call site), direct and indirect calls with their return sites and
/// optional callflow/retflow/ctrflow, and 1 to 3 seeds at start nodes.
std::string recipe_text(byte_reader r) {
    const std::uint32_t num_facts = r.below(6);
    const std::uint32_t num_procs = 1 + r.below(5);
    auto fact = [&](std::uint32_t f) { return f == 0 ? std::string("0") : "f" + std::to_string(f); };
    auto fact_list = [&](std::uint32_t n) {  // 1..n nonzero facts, comma separated
        std::string out;
        const std::uint32_t k = 1 + r.below(n);
        for (std::uint32_t i = 0; i < k; ++i) out += (i ? "," : "") + fact(1 + r.below(n));
        return out;
    };
    auto flow_terms = [&]() {  // a flow function: id, kill:, gen:, pairs
        std::string out;
        const std::uint32_t shape = r.next();
        if (shape & 1) out += " id";
        if (num_facts == 0) return out;
        if (shape & 2) out += " kill:" + fact_list(num_facts);
        if (shape & 4) out += " gen:" + fact_list(num_facts);
        for (std::uint32_t i = 0, n = (shape >> 3) % 3; i < n; ++i) {
            const std::uint32_t a = r.below(num_facts + 1);  // (one read per statement: a fixed order)
            const std::uint32_t b = 1 + r.below(num_facts);
            out += " " + fact(a) + ">" + fact(b);
        }
        return out;
    };
    std::string text = "ifds 1\n";
    if (num_facts) {
        text += "facts";
        for (std::uint32_t f = 1; f <= num_facts; ++f) text += " " + fact(f);
        text += "\n";
    }
    // Nodes of procedure p: 0 is its start, 1 its exit, then the others.
    std::vector<std::uint32_t> sizes(num_procs);
    auto node = [&](std::uint32_t p, std::uint32_t i) {
        return "p" + std::to_string(p) + (i == 0 ? ".s" : i == 1 ? ".e" : ".n" + std::to_string(i));
    };
    for (std::uint32_t p = 0; p < num_procs; ++p) {
        sizes[p] = 2 + r.below(5);
        text += "proc p" + std::to_string(p) + " " + node(p, 0) + " " + node(p, 1) + "\n";
        for (std::uint32_t i = 2; i < sizes[p]; ++i) text += "node " + node(p, i) + " p" + std::to_string(p) + "\n";
    }
    for (std::uint32_t p = 0; p < num_procs; ++p) {
        const std::uint32_t n = sizes[p];
        // Call sites first (any node but the exit), each with its return site.
        std::vector<bool> is_site(n, false);
        for (std::uint32_t i = 0; i < n; ++i) {
            if (i == 1 || r.below(4) != 0) continue;
            is_site[i] = true;
            std::uint32_t ret = r.below(n - 1);
            if (ret >= i) ++ret;  // any other node of the procedure
            const std::uint32_t first = r.below(num_procs);
            const std::uint32_t targets = 1 + (num_procs > 1 ? r.below(2) : 0);
            for (std::uint32_t t = 0; t < targets; ++t) {
                const std::string callee = "p" + std::to_string((first + t) % num_procs);
                text += "call " + node(p, i) + " " + callee + " " + node(p, ret) + "\n";
                const std::uint32_t extra = r.next();
                if (extra & 1) text += "callflow " + node(p, i) + " " + callee + flow_terms() + "\n";
                if (extra & 2) text += "retflow " + node(p, i) + " " + callee + flow_terms() + "\n";
            }
            if (r.below(2)) text += "ctrflow " + node(p, i) + flow_terms() + "\n";
        }
        // Flow edges: distinct pairs, never from the exit or a call site.
        std::vector<bool> used(n * n, false);
        for (std::uint32_t k = 0, m = r.below(2 * n + 1); k < m; ++k) {
            const std::uint32_t from = r.below(n), to = r.below(n);
            if (from == 1 || is_site[from] || used[from * n + to]) continue;
            used[from * n + to] = true;
            text += "flow " + node(p, from) + " " + node(p, to) + flow_terms() + "\n";
        }
    }
    std::vector<bool> seeded(num_procs * (num_facts + 1), false);
    for (std::uint32_t k = 0, m = 1 + r.below(3); k < m; ++k) {
        const std::uint32_t p = k == 0 ? 0 : r.below(num_procs), f = k == 0 ? 0 : r.below(num_facts + 1);
        if (seeded[p * (num_facts + 1) + f]) continue;
        seeded[p * (num_facts + 1) + f] = true;
        text += "seed " + node(p, 0) + " " + fact(f) + "\n";
    }
    return text;
}

} // namespace

/// One input: `.ifds` text, or a recipe for a problem.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto loaded = load_problem(text, "fuzz.ifds");
    if (!loaded) {
        const std::string recipe = recipe_text(byte_reader{data, data + size});
        loaded = load_problem(recipe, "recipe.ifds");
        if (!loaded) vyre_fuzz::fail("ifds_solve", "a recipe problem does not load: " + loaded.error().what(), recipe);
    }
    const problem& pb = *loaded;
    const std::uint64_t facts = pb.fact_count();
    if (facts * facts > max_path_edge_bits || pb.nodes.size() * facts * facts > max_path_edge_bits) return 0;

    const layout L = make_layout(pb);
    const layout P = make_layout(pb, intra_form::per_edge);
    const auto solved = tabulation_solver(L).solve();
    require(solved.has_value(),
            "tabulation failed: " + (solved ? std::string() : std::string(solved.error().what())), pb);
    const auto& expect = *solved;

    vyre_fuzz::splitmix rng{vyre_fuzz::hash_bytes(data, size)};
    constexpr std::uint32_t frontiers[] = {1, 3, 64, 4096};
    constexpr std::uint32_t workgroup_caps[] = {1, 2, 65535};
    // One backend for the whole process, as in a long-running tool: the
    // solver's kernels are validated and compiled once, and every solver must
    // give back all it allocated (live_bytes is 0 after each input).
    static vyre::cpu_ref backend;
    weir::vyre_resident_ifds<vyre::cpu_ref> device(backend);
    using solver_t = resident_solver<weir::vyre_resident_ifds<vyre::cpu_ref>>;
    for (kernel_mode mode : all_modes) {
        const std::string in_mode = std::string(" (mode ") + mode_name(mode) + ")";
        resident_options opt;
        opt.mode = mode;
        opt.initial_frontier = frontiers[rng.below(4)];
        opt.max_workgroups = workgroup_caps[rng.below(3)];
        auto solver = solver_t::create(device, L, opt);
        require(solver.has_value(), "resident_solver::create failed" + in_mode + ": " +
                                        (solver ? std::string() : std::string(solver.error().what())),
                pb);
        require(solver->mode() == mode, "resident_solver picked another mode" + in_mode, pb);
        auto got = solver->solve();
        require(got.has_value(),
                "resident solve failed" + in_mode + ": " + (got ? std::string() : std::string(got.error().what())), pb);
        require(got->path_edges == expect.path_edges, "path edges differ from tabulation" + in_mode, pb);
        require(got->stats.path_edges == expect.stats.path_edges, "path-edge count differs from tabulation" + in_mode, pb);
        require(got->stats.contexts == expect.stats.contexts, "context count differs from tabulation" + in_mode, pb);
        require(got->stats.summary_edges == expect.stats.summary_edges,
                "summary-edge count differs from tabulation" + in_mode, pb);
        if (mode != kernel_mode::row_solve) continue;
        // the row-wise solve on the layout with its intraprocedural edges per edge only
        auto on_edges = solver_t::create(device, P, opt);
        require(on_edges.has_value(), "resident_solver::create failed on the per-edge layout" + in_mode, pb);
        auto again = on_edges->solve();
        require(again.has_value() && again->path_edges == expect.path_edges &&
                    again->stats.path_edges == expect.stats.path_edges &&
                    again->stats.summary_edges == expect.stats.summary_edges,
                "the per-edge layout's row-wise solve differs from tabulation" + in_mode, pb);
    }
    require(backend.backend_metric_snapshot()["live_bytes"] == 0, "resident memory left allocated after the solvers", pb);

    if (pb.procs.size() * pb.nodes.size() * facts * facts <= max_brute_force_size)
        require(extract_solution(L, expect.path_edges) == weir::test::brute_force_solve(pb),
                "tabulation differs from the brute-force reference", pb);
    return 0;
}
