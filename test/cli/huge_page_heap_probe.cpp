// A program for test/cli/huge_page_heap_test.sh: calls
// `vyre::use_huge_page_heap(argv)` first, as a program's main should, then
// fills 16 MiB of small heap allocations and prints what it runs with:
//   tunables=<GLIBC_TUNABLES, empty when unset>
//   args=<its arguments after argv[0], each followed by '|'>
//   heap_advised=<1 when the [heap] mapping is advised for huge pages, 0 if not, none without one>
//   heap_padded=<1 when the [heap] mapping is 48 MiB or more (the 16 MiB filled and a top pad), else 0>
//   big_in_heap=<1 when a 1 MiB block lies in the [heap] mapping (not mapped on its own), else 0>
//   sanitized=<1 when built with a sanitizer that replaces malloc, else 0>
//   restarted=<1 when it runs as /proc/self/exe (the restart's path), else 0>
//   marker=<VYRE_HEAP_RESTARTED as the program sees it after the call: empty>
//   comm=<the process name, /proc/self/comm>
//   hints=<the huge-page hints' choice after the call: 1 given, 0 not, -1 not made yet>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <vyre/core/huge_page_heap.hpp>

#if defined(__linux__)
#include <sys/auxv.h>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PROBE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(hwaddress_sanitizer)
#define PROBE_SANITIZED 1
#endif
#endif
#ifndef PROBE_SANITIZED
#define PROBE_SANITIZED 0
#endif

namespace {
/// The process's [heap] mappings, from /proc/self/smaps.
struct heap_info {
    bool any = false;      ///< there is a [heap] mapping
    bool advised = false;  ///< one carries the `hg` flag (the C library asked for huge pages with MADV_HUGEPAGE)
    std::uintptr_t begin = 0, end = 0;  ///< from the first one's start to the last one's end (the advice can split the heap)
};

heap_info read_heap() {
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    heap_info h;
    bool in_heap = false;
    while (std::getline(smaps, line)) {
        const std::size_t sp = line.find(' ');
        const std::size_t dash = line.find('-');
        const bool header = sp != std::string::npos && dash < sp && line.find(':') > sp;
        if (header) {
            in_heap = line.size() >= 6 && line.compare(line.size() - 6, 6, "[heap]") == 0;
            if (!in_heap) continue;
            if (!h.any) h.begin = std::stoull(line.substr(0, dash), nullptr, 16);
            h.end = std::stoull(line.substr(dash + 1, sp - dash - 1), nullptr, 16);
            h.any = true;
        } else if (in_heap && line.rfind("VmFlags:", 0) == 0) {
            h.advised |= (line + " ").find(" hg ") != std::string::npos;
        }
    }
    return h;
}
} // namespace

int main(int argc, char** argv) {
    vyre::use_huge_page_heap(argv);
    std::vector<void*> blocks;
    blocks.reserve((16 << 20) / 64);  // at once: a freed block would move glibc's mmap threshold
    for (int i = 0; i < (16 << 20) / 64; ++i) {
        void* p = std::malloc(48);
        if (p) std::memset(p, 1, 48);
        blocks.push_back(p);
    }
    void* big = std::malloc(1 << 20);  // above glibc's first mmap threshold (128 KiB)
    if (big) std::memset(big, 1, 1 << 20);
    const heap_info heap = read_heap();
    const auto big_at = reinterpret_cast<std::uintptr_t>(big);
    const char* t = std::getenv("GLIBC_TUNABLES");
    std::printf("tunables=%s\n", t ? t : "");
    std::string args;
    for (int i = 1; i < argc; ++i) args += std::string(argv[i]) + "|";
    std::printf("args=%s\n", args.c_str());
    std::printf("heap_advised=%s\n", !heap.any ? "none" : heap.advised ? "1" : "0");
    std::printf("heap_padded=%d\n", heap.end - heap.begin >= (std::uintptr_t{48} << 20) ? 1 : 0);
    std::printf("big_in_heap=%d\n", big_at >= heap.begin && big_at < heap.end ? 1 : 0);
    std::printf("sanitized=%d\n", PROBE_SANITIZED);
    const char* marker = std::getenv("VYRE_HEAP_RESTARTED");
    std::printf("marker=%s\n", marker ? marker : "");
#if defined(__linux__)
    const char* execfn = reinterpret_cast<const char*>(getauxval(AT_EXECFN));
    std::printf("restarted=%d\n", execfn != nullptr && std::strcmp(execfn, "/proc/self/exe") == 0 ? 1 : 0);
    std::string comm;
    std::getline(std::ifstream("/proc/self/comm"), comm);
    std::printf("comm=%s\n", comm.c_str());
#else
    std::printf("restarted=0\ncomm=\n");
#endif
    std::printf("hints=%d\n", vyre::detail::huge_pages_choice().load());
    for (void* p : blocks) std::free(p);
    std::free(big);
    return 0;
}
