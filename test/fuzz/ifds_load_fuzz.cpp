/// \file test/fuzz/ifds_load_fuzz.cpp
/// Fuzz target `ifds_load`: the `.ifds` loader and printer. The input is a
/// `.ifds` file. Laws checked:
/// - `load_problem` never crashes or hangs; an error names a line of the
///   input (1 .. the last line) and says what is wrong;
/// - reading the statements on two threads (in runs of a line or two) gives
///   the same problem, or the same first error, as reading on one;
/// - a problem that loads prints to text that loads back to an equal problem,
///   and printing that again gives the same text;
/// - an `.ide` problem that loads solves to the same solution on the host
///   IDE solver and on the resident one (`cpu_ref`, stage 2 as the op and as
///   the IR kernels).

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include <weir/ide/format.hpp>
#include <weir/ide/linear.hpp>
#include <weir/ide/layout.hpp>
#include <weir/ide/resident_solver.hpp>
#include <weir/ide/tabulation_solver.hpp>
#include <weir/core/vyre_resident_ifds.hpp>
#include <weir/ifds/format.hpp>
#include <vyre/backend/cpu_ref.hpp>

#include "fuzz/fuzz_targets.hpp"

namespace {

/// The number of the last line of `text` (1 for an empty text), as the
/// loader's end-of-file errors use it.
std::uint32_t last_line_of(std::string_view text) {
    auto n = static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n'));
    if (!text.empty() && text.back() != '\n') ++n;
    return n == 0 ? 1 : n;
}

} // namespace

/// One input: `.ifds` text.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (weir::ide::header_of(text).ide) {  // the `.ide` loader, and the host IDE solver on what loads
        auto p = weir::ide::load_problem<weir::ide::linear>(text, "fuzz.ide");
        if (!p) {
            const auto& e = p.error();
            if (e.line < 1 || e.line > last_line_of(text) || e.message.empty())
                vyre_fuzz::fail("ifds_load", "an .ide load error without a sane line or message", e.what());
        } else if (p->graph.nodes.size() <= 256 && p->graph.facts.size() <= 16) {
            const auto host = weir::ide::tabulation_solver<weir::ide::linear>(*p).solve().value();
            vyre::cpu_ref backend;
            weir::vyre_resident_ifds<vyre::cpu_ref> d(backend);
            const auto L = weir::ide::make_layout(*p);
            // stage 2 as weir's op and as the portable IR kernels
            for (const auto mode : {weir::ide::stage2_mode::op, weir::ide::stage2_mode::ir_kernels}) {
                auto solver = weir::ide::resident_solver<weir::ide::linear, decltype(d)>::create(d, L, {}, mode);
                if (!solver)
                    vyre_fuzz::fail("ifds_load", "the resident IDE solver refused a loaded problem", solver.error().what());
                auto got = solver->solve();
                if (!got) vyre_fuzz::fail("ifds_load", "the resident IDE solve failed", got.error().what());
                if (!(got->result == host) || !(got->result.stats == host.stats))
                    vyre_fuzz::fail("ifds_load",
                                    mode == weir::ide::stage2_mode::op
                                        ? "the resident IDE solver (op) differs from the host one"
                                        : "the resident IDE solver (IR kernels) differs from the host one",
                                    std::string(text));
            }
        }
        return 0;
    }
    auto loaded = weir::ifds::load_problem(text, "fuzz.ifds", weir::ifds::load_options{1});
    const auto threaded = weir::ifds::load_problem(text, "fuzz.ifds", weir::ifds::load_options{2, 0, 48});
    if (bool(loaded) != bool(threaded) ||
        (loaded ? !(*loaded == *threaded)
                : loaded.error().line != threaded.error().line || loaded.error().token != threaded.error().token ||
                      loaded.error().message != threaded.error().message))
        vyre_fuzz::fail("ifds_load", "reading on two threads gives another outcome than on one", std::string(text));
    if (!loaded) {
        const auto& e = loaded.error();
        if (e.line < 1 || e.line > last_line_of(text) || e.message.empty())
            vyre_fuzz::fail("ifds_load", "a load error without a sane line or message", e.what());
        return 0;
    }
    const std::string printed = weir::ifds::print_problem(*loaded);
    auto again = weir::ifds::load_problem(printed, "printed.ifds");
    if (!again) vyre_fuzz::fail("ifds_load", "the printed problem does not load: " + again.error().what(), printed);
    if (!(*again == *loaded)) vyre_fuzz::fail("ifds_load", "load(print(p)) differs from p", printed);
    if (weir::ifds::print_problem(*again) != printed) vyre_fuzz::fail("ifds_load", "printing is not a fixed point", printed);
    return 0;
}
