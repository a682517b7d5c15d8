#pragma once
// What one emulated CUDA thread sees (shared by emulation_shim.hpp, compiled
// into the kernels' library, and emulation.hpp, the harness that sets it).
#include <barrier>

namespace vyre_emu {
struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct thread_state {
    dim3 thread, block, block_dim, grid_dim;
    unsigned char* smem = nullptr;
    std::barrier<>* bar = nullptr;
};
} // namespace vyre_emu
