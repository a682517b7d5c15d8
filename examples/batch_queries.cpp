// Many seed sets over one resident graph: the graph is uploaded once, every
// query reuses the solver's buffers, and a second solver for the same layout
// finds the graph in the resident graph cache instead of uploading it again.
//
// The problem: a library of N procedures in a call chain lib0 → lib1 → ...;
// each procedure may taint a local, pass its parameter on, or clear it. A
// query asks "starting in lib_k with a tainted parameter, which procedures'
// exits see taint?".

#include <cstdio>
#include <string>
#include <vector>

#include <vyre/backend/cpu_ref.hpp>
#include <weir/weir.hpp>

using namespace weir::ifds;

int main() {
    constexpr std::uint32_t n = 24;
    problem_builder b;
    std::vector<fact_id> param(n), local(n);
    std::vector<proc_id> procs(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        param[i] = b.fact("lib" + std::to_string(i) + ".param");
        local[i] = b.fact("lib" + std::to_string(i) + ".local");
    }
    for (std::uint32_t i = 0; i < n; ++i)
        procs[i] = b.proc("lib" + std::to_string(i), "lib" + std::to_string(i) + ".start",
                          "lib" + std::to_string(i) + ".exit");
    for (std::uint32_t i = 0; i < n; ++i) {
        std::string name = "lib" + std::to_string(i);
        node_id body = b.node(name + ".body", procs[i]);
        // every third procedure sanitizes its parameter, every fifth taints its local
        flow_function f = (i % 3 == 2) ? ff::none() : ff::id().pair(param[i], local[i]);
        if (i % 5 == 4) f.gen.push_back(local[i]);
        b.flow(b.start_of(procs[i]), body, f);
        if (i + 1 < n) {
            node_id ret = b.node(name + ".ret", procs[i]);
            b.call(body, procs[i + 1], ret);
            b.callflow(body, procs[i + 1], ff::none().pair(local[i], param[i + 1]).pair(param[i], param[i + 1]));
            b.retflow(body, procs[i + 1], ff::none());
            b.flow(ret, b.exit_of(procs[i]), ff::id());
        } else {
            b.flow(body, b.exit_of(procs[i]), ff::id());
        }
    }
    b.seed(b.start_of(procs[0]), zero_fact);
    auto pb = b.finish();
    if (!pb) {
        std::fprintf(stderr, "batch_queries: %s\n", pb.error().what().c_str());
        return 1;
    }
    auto L = make_layout(*pb);

    vyre::cpu_ref backend;
    using device_t = weir::vyre_resident_ifds<vyre::cpu_ref>;
    device_t device(backend);
    resident_graph_cache<device_t> cache(64 << 20);

    // One seed set per procedure: its start with the tainted parameter.
    std::vector<seed_set> queries;
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint32_t s = L.proc_start[procs[i]];
        std::uint32_t p = L.node_proc[s];
        // local index of the global fact param[i] in the procedure's fact set
        std::uint32_t local_fact = 0;
        for (std::uint32_t k = 0; k < L.fact_count(p); ++k)
            if (L.global_fact(p, k) == param[i]) local_fact = k;
        if (local_fact == 0) continue;  // parameter never reaches this procedure
        queries.push_back({{s}, {local_fact}});
    }

    auto graph = cache.get(device, L);
    if (!graph) {
        std::fprintf(stderr, "batch_queries: %s\n", graph.error().what());
        return 1;
    }
    auto solver = resident_solver<device_t>::create(device, L, *graph);
    if (!solver) {
        std::fprintf(stderr, "batch_queries: %s\n", solver.error().what());
        return 1;
    }
    auto before = backend.backend_metric_snapshot();
    auto outs = solver->solve_batch(queries);
    if (!outs) {
        std::fprintf(stderr, "batch_queries: %s\n", outs.error().what());
        return 1;
    }
    auto after = backend.backend_metric_snapshot();
    int mismatches = 0;
    for (std::size_t q = 0; q < queries.size(); ++q) {
        auto sol = extract_solution(L, (*outs)[q].path_edges);
        std::string tainted;
        for (std::uint32_t i = 0; i < n; ++i) {
            node_id e = pb->procs[procs[i]].exit;
            for (fact_id f : sol.facts[e])
                if (f != zero_fact) {
                    tainted += " lib" + std::to_string(i);
                    break;
                }
        }
        auto expect = tabulation_solver(L).solve(queries[q].node, queries[q].fact).value();
        if (expect.path_edges != (*outs)[q].path_edges) ++mismatches;
        std::printf("query from %-12s %3llu path edges, exits with taint:%s\n", pb->nodes[queries[q].node[0]].name.c_str(),
                    static_cast<unsigned long long>((*outs)[q].stats.path_edges), tainted.c_str());
    }
    // Host backends solve each query in its result's own vector (adopted, then
    // given back: no download), so the one allocation a query makes is its result.
    const std::uint64_t allocations = after["allocations"] - before["allocations"];
    const std::uint64_t expected_allocations = resident_solver<device_t>::solves_in_place ? queries.size() : 0;
    std::printf("\n%zu queries: %llu resident allocations during the batch (%s), %llu bytes uploaded "
                "(counters and seeds only; the graph stayed resident)\n",
                queries.size(), static_cast<unsigned long long>(allocations),
                resident_solver<device_t>::solves_in_place ? "each query's result, solved in place" : "every buffer reused",
                static_cast<unsigned long long>(after["bytes_uploaded"] - before["bytes_uploaded"]));

    // A second solver for the same layout: the cache hands back the resident graph.
    auto again = cache.get(device, L);
    auto s = cache.stats();
    std::printf("graph cache: %llu hit(s), %llu miss(es), %llu eviction(s), %llu bytes resident\n",
                static_cast<unsigned long long>(s.hits), static_cast<unsigned long long>(s.misses),
                static_cast<unsigned long long>(s.evictions), static_cast<unsigned long long>(s.bytes));
    bool ok = again && *again == *graph && s.hits == 1 && s.misses == 1 && mismatches == 0 &&
              allocations == expected_allocations;
    return ok ? 0 : 1;
}
