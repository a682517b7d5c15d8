#pragma once
// The enabled backends as a std::tuple for TEMPLATE_LIST_TEST_CASE, and
// helpers that run text programs on a backend.

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include <boost/hana/unpack.hpp>
#include <catch2/catch.hpp>

#include <vyre/vyre.hpp>
#ifdef VYRE_TEST_BACKEND_HEADER
#include VYRE_TEST_BACKEND_HEADER
#endif

namespace vyre::test {

#if defined(VYRE_TEST_BACKEND)
/// The one backend this build of the conformance suite checks (the cuda and
/// lowering test programs compile the conformance sources with
/// `-DVYRE_TEST_BACKEND=...` and `-DVYRE_TEST_BACKEND_HEADER=...`).
using backend_list = std::tuple<VYRE_TEST_BACKEND>;
#else
/// `std::tuple<cpu_ref, ...>`: the enabled host backends, from `vyre::enabled_backends`.
using backend_list = decltype(boost::hana::unpack(vyre::enabled_backends, [](auto... t) {
    return std::tuple<typename decltype(t)::type...>{};
}));
#endif

/// A resident-contract workhorse: adds 1 to every element of `x` (any length).
inline constexpr const char* add_one =
    "(program add_one (workgroup 64 1 1)\n"
    "  (buffer x 0 read_write u32 0)\n"
    "  (let i (gid x))\n"
    "  (if (lt i (len x)) ((store x i (add (load x i) 1)))))\n";

/// Parses a program, checks that it round-trips through the printer, and
/// that it validates.
inline ir::program parse_checked(const std::string& text) {
    auto p = ir::parse(text);
    if (!p) FAIL("parse error: " << p.error().what() << "\n" << text);
    auto again = ir::parse(ir::print(*p));
    REQUIRE(again.has_value());
    CHECK(*again == *p);
    auto d = ir::validate(*p);
    INFO(ir::format_diagnostics(d));
    REQUIRE(d.empty());
    return *p;
}

/// Little-endian bytes of a vector of trivially copyable values.
template <class T>
bytes to_bytes(const std::vector<T>& v) {
    bytes b(v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
    return b;
}

/// Values of type T read back from bytes.
template <class T>
std::vector<T> from_bytes(const bytes& b) {
    std::vector<T> v(b.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
    return v;
}

/// How a backend's outputs are checked against the reference's.
enum class against_reference {
    bytes,  ///< byte for byte (every result the spec defines exactly)
    none    ///< not here: the caller checks (transcendentals, which may differ by the ULP budget)
};

/// Runs a text program on backend B and returns its outputs (REQUIREs success).
template <class B>
std::vector<bytes> run(B& b, const std::string& text, const std::vector<bytes>& inputs = {},
                       const dispatch_config& c = {}, against_reference check = against_reference::bytes) {
    auto p = parse_checked(text);
    auto r = vyre::dispatch(b, p, inputs, c);
    if (!r) FAIL("dispatch failed: " << r.error().what());
    // Every backend must agree byte for byte with the reference.
    if (check == against_reference::bytes && !std::is_same_v<B, cpu_ref>) {
        cpu_ref ref;
        auto expect = vyre::dispatch(ref, p, inputs, c);
        REQUIRE(expect.has_value());
        CHECK(*r == *expect);
    }
    return *r;
}

/// Runs a one-invocation program whose body stores into `out` (an output
/// buffer of `n` elements of type `ty`), returns the values.
template <class T, class B>
std::vector<T> run_body(B& b, const std::string& ty, std::size_t n, const std::string& body,
                        against_reference check = against_reference::bytes) {
    std::string text = "(program t (workgroup 1 1 1)\n  (buffer out 0 output " + ty + " " + std::to_string(n) +
                       ")\n" + body + ")\n";
    dispatch_config c;
    c.grid = std::array<std::uint32_t, 3>{1, 1, 1};
    auto out = run(b, text, {}, c, check);
    REQUIRE(out.size() == 1);
    return from_bytes<T>(out[0]);
}

} // namespace vyre::test
