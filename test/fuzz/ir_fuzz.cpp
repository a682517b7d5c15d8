/// \file test/fuzz/ir_fuzz.cpp
/// Fuzz target `ir`: the IR text parser, the validator and the `cpu-ref`
/// interpreter. The input is program text. Laws checked:
/// - `parse` never crashes, and whatever it accepts prints to text that parses
///   back to an equal program, and printing that again gives the same text;
/// - `validate` never crashes; an invalid program is refused by `dispatch`
///   with `invalid_program`, never run;
/// - a valid program whose buffers fit in 1 MiB runs on `cpu_ref` under a
///   small step budget over inputs derived from the text's hash, and either
///   returns one output of the declared size per output buffer or an error
///   other than `invalid_program` (a spent budget, a divergent barrier).
/// Crashes, hangs, leaks and undefined behaviour are bugs.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <vyre/backend/cpu_ref.hpp>
#include <vyre/backend/provided.hpp>
#include <vyre/ir/hash.hpp>
#include <vyre/ir/text.hpp>
#include <vyre/ir/validate.hpp>

#include "fuzz/fuzz_targets.hpp"

namespace {

/// The most bytes all buffers of a dispatched program may take together.
constexpr std::uint64_t max_total_bytes = 1u << 20;
/// Statement executions allowed per dispatch.
constexpr std::uint64_t step_budget = 1u << 14;
/// Largest element count given to an input declared with COUNT 0.
constexpr std::uint64_t max_free_count = 8;

/// `count` elements of type `t` as little-endian bytes: a mix of small
/// values, indices, edge values and random bits, so that loads, indices and
/// loop bounds taken from inputs hit both in-range and out-of-range cases.
vyre::bytes make_input(vyre_fuzz::splitmix& rng, vyre::ir::scalar_type t, std::uint64_t count) {
    const std::size_t es = vyre::ir::size_of(t);
    vyre::bytes out(static_cast<std::size_t>(count * es));
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t r = rng.next();
        std::uint64_t v = 0;
        switch (r & 3) {
        case 0: v = (r >> 2) % 8; break;
        case 1: v = i; break;
        case 2: {
            constexpr std::uint64_t edges[] = {0, 1, ~0ull, 0x80000000ull, 0x7fffffffull, 0x8000000000000000ull,
                                               0x7fc00000ull, 0x3f800000ull};
            v = edges[(r >> 2) % 8];
            break;
        }
        default: v = rng.next(); break;
        }
        for (std::size_t k = 0; k < es; ++k) out[static_cast<std::size_t>(i * es + k)] = static_cast<std::uint8_t>(v >> (8 * k));
    }
    return out;
}

/// Checks the print/parse round trip of a parsed program.
void check_round_trip(const vyre::ir::program& p) {
    const std::string printed = vyre::ir::print(p);
    auto again = vyre::ir::parse(printed);
    if (!again) vyre_fuzz::fail("ir", "printed program does not parse: " + again.error().what(), printed);
    if (!(*again == p)) vyre_fuzz::fail("ir", "parse(print(p)) differs from p", printed);
    if (vyre::ir::print(*again) != printed) vyre_fuzz::fail("ir", "printing is not a fixed point", printed);
    if (vyre::ir::structural_hash(*again) != vyre::ir::structural_hash(p))
        vyre_fuzz::fail("ir", "equal programs hash differently", printed);
}

/// Runs a valid program on `cpu_ref` when its buffers are small enough.
void check_dispatch(const vyre::ir::program& p, std::uint64_t seed) {
    vyre_fuzz::splitmix rng{seed};
    std::uint64_t total = 0;
    std::vector<vyre::bytes> inputs;
    std::vector<std::uint64_t> output_bytes;
    for (const auto& b : p.buffers) {
        const std::uint64_t es = vyre::ir::size_of(b.type);
        std::uint64_t count = b.count;
        if (count == 0) count = rng.below(max_free_count + 1);
        if (count > (max_total_bytes - total) / es) return;  // too large to run in a fuzz iteration
        total += count * es;
        if (vyre::ir::is_input(b.acc)) inputs.push_back(make_input(rng, b.type, count));
        if (vyre::ir::is_output(b.acc)) output_bytes.push_back(count * es);
    }
    vyre::cpu_ref backend;
    vyre::dispatch_config c;
    c.step_budget = step_budget;
    auto r = vyre::dispatch(backend, p, inputs, c);
    if (!r) {
        if (r.error().code() == vyre::error_code::invalid_program)
            vyre_fuzz::fail("ir", "a valid program was refused as invalid", r.error().what());
        if (r.error().message().empty()) vyre_fuzz::fail("ir", "a dispatch error without a message");
        return;
    }
    if (r->size() != output_bytes.size()) vyre_fuzz::fail("ir", "dispatch returned the wrong number of outputs");
    for (std::size_t i = 0; i < r->size(); ++i)
        if ((*r)[i].size() != output_bytes[i])
            vyre_fuzz::fail("ir", "output " + std::to_string(i) + " has " + std::to_string((*r)[i].size()) +
                                      " bytes, not " + std::to_string(output_bytes[i]));
}

} // namespace

/// One input: program text.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto parsed = vyre::ir::parse(text);
    if (!parsed) {
        if (parsed.error().message.empty() || parsed.error().line == 0)
            vyre_fuzz::fail("ir", "a parse error without a message or a line");
        return 0;
    }
    const vyre::ir::program& p = *parsed;
    check_round_trip(p);
    const auto diags = vyre::ir::validate(p);
    if (!diags.empty()) {
        (void)vyre::ir::format_diagnostics(diags);
        vyre::cpu_ref backend;
        auto r = vyre::dispatch(backend, p, {});
        if (r || r.error().code() != vyre::error_code::invalid_program)
            vyre_fuzz::fail("ir", "an invalid program was not refused with invalid_program", vyre::ir::print(p));
        return 0;
    }
    check_dispatch(p, vyre_fuzz::hash_bytes(data, size));
    return 0;
}
