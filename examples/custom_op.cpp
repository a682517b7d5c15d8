// A user-defined op (vyre/ops/extension.hpp): `mylib_saxpy`, y[i] = a * x[i] + y[i]
// on u32 (wrapping). Its reference implementation defines it (cpu-ref runs
// it); a native implementation makes `cpu` run it on all its threads. Once
// registered, programs name it like any catalogue op, in the builder or in
// text, and it runs over resident buffers. The example checks cpu against
// cpu-ref and exits non-zero if they differ.

#include <cstdio>
#include <cstring>
#include <span>
#include <vector>

#include <vyre/vyre.hpp>

namespace mylib {

/// The op: its name, signature, summary and reference implementation.
struct saxpy {
    static constexpr std::string_view name = "mylib_saxpy";
    static constexpr std::string_view summary = "y[i] = a * x[i] + y[i] for i < min(len x, len y), wrapping u32";
    static std::vector<vyre::ops::param> signature() {
        using vyre::ops::param_kind;
        return {{param_kind::buffer, "x", false, vyre::ir::scalar_type::u32},
                {param_kind::buffer, "y", true, vyre::ir::scalar_type::u32},
                {param_kind::u32_literal, "a", false, vyre::ir::scalar_type::u32}};
    }
    /// Element `i` of the op on raw arguments (shared by both implementations).
    static void step(std::span<vyre::ops::op_arg> args, std::size_t i) {
        std::uint32_t x, y;
        std::memcpy(&x, args[0].bytes.data() + 4 * i, 4);
        std::memcpy(&y, args[1].bytes.data() + 4 * i, 4);
        y = args[2].literal * x + y;
        std::memcpy(args[1].bytes.data() + 4 * i, &y, 4);
    }
    static std::size_t count(std::span<vyre::ops::op_arg> args) {
        return std::min(args[0].bytes.size(), args[1].bytes.size()) / 4;
    }
    /// The reference: one element after the other.
    static vyre::result<void> reference(std::span<vyre::ops::op_arg> args) {
        for (std::size_t i = 0; i < count(args); ++i) step(args, i);
        return {};
    }
};

} // namespace mylib

/// The native implementation on `vyre::cpu`: blocks of elements over the threads.
template <>
struct vyre::ops::native_op<vyre::cpu, mylib::saxpy> {
    static vyre::result<void> run(std::span<vyre::ops::op_arg> args, unsigned threads) {
        vyre::parallel_blocks(mylib::saxpy::count(args), threads, 1 << 14, [&](std::uint64_t b, std::uint64_t e) {
            for (std::uint64_t i = b; i < e; ++i) mylib::saxpy::step(args, i);
        });
        return {};
    }
};

namespace {

/// y after `mylib_saxpy` with a = 3, run resident on backend `b`.
template <vyre::resident_backend B>
vyre::result<std::vector<std::uint32_t>> run_resident(B& b, const std::vector<std::uint32_t>& x,
                                                      const std::vector<std::uint32_t>& y) {
    using namespace vyre::ir;
    auto p = program("saxpy")
                 .workgroup(1)
                 .buffer("x", 0, access::read, scalar_type::u32)
                 .buffer("y", 1, access::read_write, scalar_type::u32)
                 .add(dsl::op("mylib_saxpy", {dsl::var("x"), dsl::var("y"), dsl::lit(3u)}));
    auto as_bytes = [](const std::vector<std::uint32_t>& v) {
        return vyre::bytes_view(reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * 4);
    };
    auto rx = vyre::allocate_device_buffer(b, x.size() * 4);
    auto ry = vyre::allocate_device_buffer(b, y.size() * 4);
    if (!rx) return vyre::make_unexpected(rx.error());
    if (!ry) return vyre::make_unexpected(ry.error());
    VYRE_TRY(b.upload(rx->get(), as_bytes(x)));
    VYRE_TRY(b.upload(ry->get(), as_bytes(y)));
    std::vector<typename B::resource> rs{rx->get(), ry->get()};
    VYRE_TRY(b.dispatch_resident(p, rs, {}));
    std::vector<std::uint32_t> out(y.size());
    VYRE_TRY(b.download_into(ry->get(), vyre::mutable_bytes_view(reinterpret_cast<std::uint8_t*>(out.data()), out.size() * 4)));
    return out;
}

} // namespace

int main() {
    // Register once, before programs name the op: with the reference, and cpu's native implementation.
    if (auto r = vyre::ops::register_op<mylib::saxpy, vyre::cpu>(); !r) {
        std::fprintf(stderr, "custom_op: %s\n", r.error().what());
        return 1;
    }
    // The text form knows it now too.
    auto text = vyre::ir::parse("(program t (workgroup 1 1 1)\n  (buffer x 0 read u32 0)\n  (buffer y 1 read_write u32 0)\n"
                                "  (op mylib_saxpy x y 3))\n");
    if (!text || !vyre::ir::validate(*text).empty()) {
        std::fprintf(stderr, "custom_op: the text form did not take the registered op\n");
        return 1;
    }

    std::vector<std::uint32_t> x(1 << 20), y(1 << 20);
    for (std::uint32_t i = 0; i < x.size(); ++i) x[i] = i * 2654435761u, y[i] = i;
    vyre::cpu fast;
    vyre::cpu_ref oracle;
    auto a = run_resident(fast, x, y);
    auto e = run_resident(oracle, x, y);
    if (!a || !e) {
        std::fprintf(stderr, "custom_op: %s\n", (!a ? a.error() : e.error()).what());
        return 1;
    }
    const bool same = *a == *e;
    std::printf("mylib_saxpy over %zu elements, resident: cpu (native, %u threads) %s cpu-ref (reference); y[5] = %u\n",
                x.size(), fast.threads({}), same ? "equals" : "DIFFERS FROM", (*a)[5]);
    return same ? 0 : 1;
}
