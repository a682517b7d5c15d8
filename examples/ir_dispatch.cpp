// Build a program with the C++ builder, validate it, print its text form,
// dispatch it on the reference backend, and read the result back; then do the
// same over resident memory with a ranged readback.

#include <cstdio>
#include <cstring>
#include <vector>

#include <vyre/vyre.hpp>

int main() {
    using namespace vyre;
    using namespace vyre::ir;
    using namespace vyre::ir::dsl;

    // out[i] = a[i] ^ b[i]
    auto p = program("xor")
                 .workgroup(64)
                 .buffer("a", 0, access::read, scalar_type::u32)
                 .buffer("b", 1, access::read, scalar_type::u32)
                 .buffer("out", 2, access::output, scalar_type::u32, 4)
                 .add(let("i", gid()),
                      if_(lt(var("i"), len("out")),
                          {store("out", var("i"), bitxor_(load("a", var("i")), load("b", var("i"))))}));

    if (auto problems = validate(p); !problems.empty()) {
        std::fprintf(stderr, "%s", format_diagnostics(problems).c_str());
        return 1;
    }
    std::printf("%s", print(p).c_str());

    cpu_ref backend;
    std::vector<std::uint32_t> a{1, 2, 3, 4}, b{0xff, 0xff, 0, 4};
    auto as_bytes = [](const std::vector<std::uint32_t>& v) {
        bytes out(v.size() * 4);
        std::memcpy(out.data(), v.data(), out.size());
        return out;
    };
    auto out = vyre::dispatch(backend, p, {as_bytes(a), as_bytes(b)});
    if (!out) {
        std::fprintf(stderr, "dispatch failed: %s\n", out.error().what());
        return 1;
    }
    std::uint32_t r[4];
    std::memcpy(r, (*out)[0].data(), sizeof r);
    std::printf("out: %u %u %u %u\n", r[0], r[1], r[2], r[3]);
    if (r[0] != 254 || r[1] != 253 || r[2] != 3 || r[3] != 0) return 1;

    // The same over resident memory: upload once, dispatch, read two elements back.
    auto ra = backend.allocate(16).value();
    auto rb = backend.allocate(16).value();
    auto ro = backend.allocate(16).value();
    auto da = as_bytes(a), db = as_bytes(b);
    std::vector<upload_op<cpu_ref::resource>> ups{{ra, da}, {rb, db}};
    backend.upload_many(ups).value();
    std::vector<cpu_ref::resource> rs{ra, rb, ro};
    backend.dispatch_resident(p, rs).value();
    auto tail = backend.download_range(ro, 8, 8).value();
    std::uint32_t t[2];
    std::memcpy(t, tail.data(), sizeof t);
    std::printf("resident out[2..4): %u %u\n", t[0], t[1]);
    for (auto& x : rs) backend.free(x).value();
    return (t[0] == 3 && t[1] == 0) ? 0 : 1;
}
