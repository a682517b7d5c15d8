// The main of the tests of behaviour without a GPU: on a machine that has a
// CUDA device they do not apply, and exit 77 (skipped) saying so.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include <vyre/backend/cuda.hpp>

int main(int argc, char** argv) {
    if (vyre::cuda::device_count() != 0) {
        std::printf("SKIP: a CUDA device is present; these tests check the behaviour without one\n");
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
