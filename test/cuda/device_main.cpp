// The main of the test programs that need a GPU: without a CUDA device they
// print why and exit 77, which meson counts as skipped (never as passed).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include <vyre/backend/cuda.hpp>

int main(int argc, char** argv) {
    if (vyre::cuda::device_count() == 0) {
        std::printf("SKIP: no CUDA device here (%s); these tests run on a GPU (test/gpu/check)\n",
                    vyre::cuda::no_device_reason().c_str());
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
