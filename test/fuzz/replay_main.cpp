/// \file test/fuzz/replay_main.cpp
/// A `main` for a fuzz target built without libFuzzer: runs the target's
/// `LLVMFuzzerTestOneInput` once on every file named on the command line and
/// on every file under every directory named there (recursively, in sorted
/// order; files called `README*` are documentation and are skipped). Prints
/// `replay: N inputs` and exits 0; a broken law aborts inside the target. A
/// path that does not exist is an error (exit 2), so a misspelt corpus
/// directory cannot pass silently.
///
/// Usage: `replay_TARGET PATH...`

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_targets.hpp"

namespace {

/// The regular files at `path` (itself, or everything below it), sorted; false
/// when `path` does not exist.
bool collect(const std::filesystem::path& path, std::vector<std::filesystem::path>& out) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) {
        out.push_back(path);
        return true;
    }
    if (!fs::is_directory(path, ec)) return false;
    std::vector<fs::path> found;
    for (const auto& e : fs::recursive_directory_iterator(path)) {
        if (!e.is_regular_file()) continue;
        if (e.path().filename().string().rfind("README", 0) == 0) continue;
        found.push_back(e.path());
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
    return true;
}

/// The bytes of file `path`.
std::vector<std::uint8_t> read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

/// Runs the target on every input named by the arguments.
int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
        return 2;
    }
    std::vector<std::filesystem::path> files;
    for (int i = 1; i < argc; ++i)
        if (!collect(argv[i], files)) {
            std::fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            return 2;
        }
    for (const auto& f : files) {
        const auto bytes = read_file(f);
        std::fprintf(stderr, "replay: %s (%zu bytes)\n", f.string().c_str(), bytes.size());
        LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    }
    std::printf("replay: %zu inputs\n", files.size());
    return 0;
}
