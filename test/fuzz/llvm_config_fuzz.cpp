/// \file test/fuzz/llvm_config_fuzz.cpp
/// Fuzz target `llvm_config`: the taint-configuration loader (PhASAR's JSON
/// format, weir/llvm/taint_config.hpp). The input is a configuration file.
/// Laws checked:
/// - `parse_taint_config` never crashes or hangs; an error names the file
///   and a line of the input (1 .. the last line) and says what is wrong;
/// - a configuration that loads answers `find` for each of its names.

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include <weir/llvm/taint_config.hpp>

#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    try {
        const weir::llvm::taint_config c = weir::llvm::parse_taint_config(text, "fuzz.json");
        for (const auto& [name, tags] : c.functions)
            if (c.find(name) == nullptr) vyre_fuzz::fail("llvm_config", "a configured function is not found by name", name);
    } catch (const weir::llvm::input_error& e) {
        if (e.file() != "fuzz.json" || e.line() < 1 || e.line() > lines || e.message().empty())
            vyre_fuzz::fail("llvm_config", "an error without the file, a sane line or a message", e.what());
    }
    return 0;
}
