#pragma once
/// \file weir/core/ir_namer.hpp
/// `weir::ir_namer`: fresh variable names for the IR that weir's kernels
/// generate (the IR forbids shadowing a visible name).

#include <string>

namespace weir {

/// Makes fresh IR variable names: `base` followed by a number not used before.
struct ir_namer {
    int n = 0;
    /// A name not returned before.
    std::string operator()(const char* base) { return std::string(base) + "_" + std::to_string(n++); }
};

} // namespace weir
