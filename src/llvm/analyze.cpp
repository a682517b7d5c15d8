// One analysis of one module, IR to findings (analyze.hpp).

#include <weir/llvm/analyze.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <variant>

#include <weir/ifds/make_layout.hpp>
#include <weir/ifds/for_each_witness.hpp>
#include <weir/llvm/compile.hpp>
#include <weir/llvm/program.hpp>
#include <weir/llvm/result.hpp>
#include <weir/llvm/taint.hpp>
#include <weir/llvm/uninit.hpp>

namespace weir::llvm {

namespace {
double since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
/// The most steps of a witness path that `--witness` makes a trace of.
constexpr std::uint64_t max_trace_path = std::uint64_t{1} << 20;

/// A witness budget for a note: MiB, or bytes below one.
std::string budget_words(std::uint64_t b) {
    return b >= (1u << 20) ? std::to_string(b >> 20) + " MiB" : std::to_string(b) + " bytes";
}
} // namespace

struct analysis_session::impl {
    const ::llvm::Module* m;
    analyze_options opt;
    std::optional<program> prog;
    std::variant<std::monostate, taint_analysis, uninit_analysis> analysis;
    compiled_problem compiled;
    weir::ifds::layout L;
    phase_times times;
    analysis_stats stats;
    std::vector<std::string> notes;

    /// Sources and traces for `out` from witnesses of their path edges in
    /// `r`, recorded for them alone (not the whole solve's), within the
    /// witness budget (`weir::ifds::for_each_witness`); a note says how many
    /// come without.
    void witnesses(const ifds_result& r, std::vector<finding>& out);

    /// Sources (taint) and, with `--witness`, the trace of finding `f` from
    /// its witness path (`whole`: all of it; else its beginning, which names
    /// the source but makes no trace). A trace that would take more than
    /// `trace_room` bytes is not kept. The bytes of the trace kept, if any.
    std::optional<std::uint64_t> explain(const weir::ifds::witness_path& path, bool whole, std::uint64_t trace_room,
                                         finding& f) const {
        const auto& nodes = prog->nodes();
        if (f.rule == "taint") {
            std::size_t k = 0;
            while (k < path.size() && path[k].second == zero_fact) ++k;
            if (k == 0 && !path.empty()) {
                const auto* fn = prog->procedures()[nodes[path[0].first].proc];
                if (fn) f.sources.push_back(location_of(*fn));
            } else if (k > 0 && k < path.size()) {
                const icfg_node& g = nodes[path[k - 1].first];
                if (g.inst) f.sources.push_back(location_of(*g.inst));
            }
        }
        if (!opt.witness || !whole) return std::nullopt;
        std::uint64_t bytes = 0;  // the entries and their strings' heap parts
        for (const auto& [n, fact] : path) {
            const icfg_node& node = nodes[n];
            if (!node.inst || node.role != node_role::instruction) continue;
            source_location l = location_of(*node.inst);
            if (l.line == 0) continue;  // compiler-made instructions (frame set-up) say nothing
            if (!f.trace.empty() && f.trace.back() == l) continue;
            bytes += location_bytes(l);
            if (bytes > trace_room) break;
            f.trace.push_back(std::move(l));
        }
        bytes += (f.trace.capacity() - f.trace.size()) * sizeof(source_location);  // the vector's slack
        if (bytes <= trace_room) return bytes;
        f.trace = {};
        return std::nullopt;
    }
    /// The memory an entry of a trace holds: itself and its strings' heap parts.
    static std::uint64_t location_bytes(const source_location& l) {
        std::uint64_t b = sizeof(source_location);
        for (const std::string* s : {&l.function, &l.file})
            if (s->capacity() > 15) b += s->capacity() + 1;  // past the short-string buffer
        return b;
    }
};

void analysis_session::impl::witnesses(const ifds_result& r, std::vector<finding>& out) {
    std::vector<std::pair<weir::ifds::node_id, weir::ifds::fact_id>> targets;
    for (const finding& f : out) targets.emplace_back(f.node, f.fact);
    weir::ifds::witness_search_options wo;
    wo.memory_budget = opt.witness_budget ? opt.witness_budget
                                          : std::max<std::uint64_t>(std::uint64_t{L.pe_words} * 4, 256ull << 20);
    // A trace of more than a million steps helps nobody, and its path (expanded
    // summaries nest: exponential in the worst case) takes time and memory.
    wo.max_path_vertices = max_trace_path;
    // The traces kept, with what the search that found them holds, stay
    // within the budget too: past it, a finding keeps its sources without its trace.
    std::uint64_t traced_bytes = 0;
    std::size_t untraced = 0;
    auto st = weir::ifds::for_each_witness(
        L, r.bits(), targets, wo,
        [&](std::size_t i, const weir::ifds::witness_path& path, std::uint64_t held, bool whole) {
            // what is left for this trace beside the search, the traces kept and the path
            const std::uint64_t used = held + traced_bytes + path.capacity() * sizeof(path[0]);
            const std::uint64_t room = wo.memory_budget > used ? wo.memory_budget - used : 0;
            if (const auto bytes = explain(path, whole, room, out[i])) traced_bytes += *bytes;
            else if (opt.witness) ++untraced;
        });
    if (st) {
        stats.witness_edges = st->joint.closure_edges + st->retry_edges;
        stats.witness_passes = st->joint.passes + st->retry_passes;
        if (st->found < out.size())
            notes.push_back(std::to_string(out.size() - st->found) + " of " + std::to_string(out.size()) +
                            " findings come without sources and traces: their witnesses need more than " +
                            budget_words(wo.memory_budget));
        if (untraced)
            notes.push_back(std::to_string(untraced) + " of " + std::to_string(out.size()) +
                            " findings come without traces: their paths are over " + std::to_string(max_trace_path) +
                            " steps, or the traces and the witness search would need more than " +
                            budget_words(wo.memory_budget));
    } else if (st.error().code() == vyre::error_code::out_of_memory) {
        const std::string why = wo.memory_budget == no_witness_limit
                                    ? "the host ran out of memory for their witnesses"
                                    : "their witnesses need more than " + budget_words(wo.memory_budget);
        notes.push_back("the findings come without sources and traces: " + why + " (" + st.error().message() + ")");
    } else {
        throw st.error();
    }
}

std::vector<std::string> analysis_names() { return {"taint", "uninit"}; }

analysis_session::analysis_session(const ::llvm::Module& m, const analyze_options& opt) : d_(std::make_unique<impl>()) {
    d_->m = &m;
    d_->opt = opt;
    if (opt.analysis != "taint" && opt.analysis != "uninit")
        throw std::invalid_argument("unknown analysis '" + opt.analysis + "' (taint, uninit)");
    // Configuration first: a malformed file is reported before any work.
    taint_config config = opt.config.empty() ? default_taint_config() : load_taint_config(opt.config);
    auto t = std::chrono::steady_clock::now();
    d_->prog.emplace(m, opt.entries, opt.points_to);
    d_->times.points_to = since(t);
    t = std::chrono::steady_clock::now();
    if (opt.analysis == "taint") {
        auto& a = d_->analysis.emplace<taint_analysis>(*d_->prog, std::move(config));
        d_->compiled = compile_problem(*d_->prog, a);
    } else {
        auto& a = d_->analysis.emplace<uninit_analysis>(*d_->prog);
        d_->compiled = compile_problem(*d_->prog, a);
    }
    d_->times.construction = since(t);
    t = std::chrono::steady_clock::now();
    d_->L = weir::ifds::make_layout(d_->compiled.problem, opt.layout_form);
    d_->times.layout = since(t);
    for (const ::llvm::Function& f : m) {
        if (f.isDeclaration()) continue;
        ++d_->stats.functions;
        d_->stats.instructions += f.getInstructionCount();
    }
    d_->stats.facts = d_->compiled.facts.size();
}

analysis_session::~analysis_session() = default;
analysis_session::analysis_session(analysis_session&&) noexcept = default;
analysis_session& analysis_session::operator=(analysis_session&&) noexcept = default;

const weir::ifds::layout& analysis_session::layout() const { return d_->L; }
const weir::ifds::problem& analysis_session::problem() const { return d_->compiled.problem; }
analysis_stats analysis_session::stats() const { return d_->stats; }
const phase_times& analysis_session::times() const { return d_->times; }
const std::vector<std::string>& analysis_session::notes() const { return d_->notes; }
const std::string& analysis_session::analysis() const { return d_->opt.analysis; }
const char* analysis_session::points_to_engine() const { return d_->prog->pointers().engine_name(); }

std::vector<finding> analysis_session::findings(std::vector<std::uint32_t> bits,
                                               std::optional<std::uint64_t> path_edges) {
    if (bits.size() < d_->L.pe_words)
        throw std::invalid_argument("weir::llvm::analysis_session::findings: path-edge bits shorter than the layout's");
    auto t = std::chrono::steady_clock::now();
    ifds_result r(d_->L, std::move(bits));
    d_->stats.path_edges = path_edges ? *path_edges : r.path_edges();
    analysis_context cx(*d_->prog, d_->compiled.facts);
    std::vector<finding> out = std::visit(
        [&](auto& a) -> std::vector<finding> {
            if constexpr (std::is_same_v<std::decay_t<decltype(a)>, std::monostate>) return {};
            else return a.findings(cx, r);
        },
        d_->analysis);
    if (!out.empty() && (d_->opt.analysis == "taint" || d_->opt.witness)) d_->witnesses(r, out);
    sort_findings(out);
    d_->times.report = since(t);
    return out;
}

} // namespace weir::llvm
