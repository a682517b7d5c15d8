#pragma once
/// \file weir/ifds/stats.hpp
/// What a solve did: rounds, path edges, summaries, contexts, bytes moved and
/// time per phase. Every solver fills the fields it has a meaning for.

#include <cstdint>
#include <string>

namespace weir::ifds {

/// Statistics of one solve.
struct solve_stats {
    std::uint64_t rounds = 0;            ///< bulk-synchronous rounds (resident) or 0 (tabulation)
    std::uint64_t path_edges = 0;        ///< distinct path edges discovered
    std::uint64_t summary_edges = 0;     ///< distinct (call edge, d_in, d_out) summaries applied
    std::uint64_t contexts = 0;          ///< distinct (procedure, entry fact) contexts
    std::uint64_t max_frontier = 0;      ///< largest round frontier (resident, in rounds)
    std::uint64_t expanded = 0;          ///< row chunks expanded by an in-op worklist (resident, row_solve; derived nodes are never expanded, see row_tables.hpp)
    std::uint64_t bytes_uploaded = 0;    ///< host → resident bytes (resident)
    std::uint64_t bytes_downloaded = 0;  ///< resident → host bytes (resident)
    double seconds_layout = 0;           ///< building the layout
    double seconds_upload = 0;           ///< moving the graph to resident memory
    double seconds_solve = 0;            ///< the fixed point itself
    double seconds_extract = 0;          ///< reading results back

    /// One line, `key=value` pairs, for `--stats` and logs.
    std::string to_string() const {
        return "rounds=" + std::to_string(rounds) + " path_edges=" + std::to_string(path_edges) +
               " summary_edges=" + std::to_string(summary_edges) + " contexts=" + std::to_string(contexts) +
               " max_frontier=" + std::to_string(max_frontier) + " expanded=" + std::to_string(expanded) +
               " bytes_uploaded=" + std::to_string(bytes_uploaded) +
               " bytes_downloaded=" + std::to_string(bytes_downloaded) + " t_layout=" + std::to_string(seconds_layout) +
               " t_upload=" + std::to_string(seconds_upload) + " t_solve=" + std::to_string(seconds_solve) +
               " t_extract=" + std::to_string(seconds_extract);
    }
};

} // namespace weir::ifds
