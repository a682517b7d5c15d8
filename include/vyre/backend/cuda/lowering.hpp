#pragma once
/// \file vyre/backend/cuda/lowering.hpp
/// Generic IR → CUDA C++ source, exactly the semantics of spec/vyre-ir.md
/// (the `cuda` backend compiles the result with NVRTC). Pure C++: it needs
/// no CUDA toolkit, so the generated code can be inspected and tested on any
/// machine.
///
/// How each rule of the spec becomes device code:
/// - every expression is one `const` temporary, in the reference's evaluation
///   order (operands left to right, both sides of `and`/`or`/`select`);
/// - loads, stores and atomics compare the index with the buffer's element
///   count (out of range: zero / nothing / nothing and 0), never clamp;
/// - integer arithmetic runs on unsigned types (wrapping), `div`/`mod` by 0
///   give 0 and signed `MIN div -1` gives MIN, shift amounts are taken modulo
///   the width;
/// - float NaN results follow the reference's host (x86): the first NaN
///   operand, quieted, else the default NaN `0xffc00000`; `min`/`max` are
///   IEEE minNum/maxNum with -0 < +0; stores write the canonical NaN;
///   NVRTC runs with `--fmad=false --ftz=false --prec-div=true --prec-sqrt=true`;
/// - f16/bf16 storage converts through `cuda_fp16.h`/`cuda_bf16.h`
///   (round to nearest even; NaN stored as 0x7e00 / 0x7fc0 like the reference);
/// - atomics are fenced on both sides (`__threadfence`) for sequential consistency;
/// - barriers: a workgroup is one thread block; each barrier is a phase in
///   which every invocation that has not returned names the barrier it
///   waits at, and returned invocations keep answering phases until all
///   have returned. An invocation that reaches the end of the program
///   without `(return)` answers one last phase at `end_site`. Invocations
///   waiting at different barriers, or at one while another reached the
///   end, end the workgroup and report "divergent barrier" (the
///   reference's error), instead of hanging the device.

#include <cstdint>
#include <string>
#include <vector>

#include <vyre/core/result.hpp>
#include <vyre/ir/program.hpp>
#include <vyre/ir/types.hpp>

namespace vyre::cuda_lowering {

/// Bumped whenever the generated code changes (part of the module cache key).
inline constexpr std::uint32_t version = 2;

/// Name of the generated kernel.
inline constexpr const char* kernel_name = "vyre_main";

/// Words of the status buffer a launch writes: [0] error code (0: none,
/// 1: divergent barrier, 2: step budget spent), [1..3] workgroup id, [4..5]
/// the two barrier ordinals, [6..7] the u64 step counter (budgeted launches).
inline constexpr std::uint32_t status_words = 8;

/// The barrier ordinal that stands for the end of the program in a
/// divergent-barrier status (an invocation that got there without `(return)`).
inline constexpr std::uint32_t end_site = 0xfffffffeu;

/// Status code of a divergent barrier.
inline constexpr std::uint32_t status_divergent_barrier = 1;
/// Status code of a spent step budget.
inline constexpr std::uint32_t status_step_budget = 2;

/// How to lower.
struct options {
    /// Count steps as the reference does (each statement executed, each
    /// invocation start; an empty loop body counts its iterations) and stop
    /// the launch with status 2 once they exceed the kernel's `vy_budget`
    /// parameter. Costs an atomic per loop iteration: used only when a
    /// dispatch sets `dispatch_config::step_budget`.
    bool count_steps = false;
};

/// NVRTC options that the generated code relies on (besides the architecture and include path).
inline const std::vector<std::string>& nvrtc_options() {
    static const std::vector<std::string> o = {"--fmad=false", "--ftz=false", "--prec-div=true", "--prec-sqrt=true",
                                               "--std=c++17", "-default-device"};
    return o;
}

/// A program lowered to CUDA C++.
struct lowered_program {
    std::string source;                 ///< the whole translation unit
    std::uint64_t shared_bytes = 0;     ///< dynamic shared memory of the workgroup buffers and barrier state
    std::uint32_t barriers = 0;         ///< barrier statements in the program
    /// Kernel parameters: for each non-workgroup buffer (declaration order)
    /// a device pointer and a u64 element count, then a `u32*` status buffer
    /// (`status_words` words) and a u64 step budget (read when counting steps).
    std::vector<std::size_t> param_buffers;
};

namespace detail {

inline const char* c_type(ir::scalar_type t) {
    using ir::scalar_type;
    switch (t) {
    case scalar_type::bool_: return "bool";
    case scalar_type::u32: return "u32";
    case scalar_type::i32: return "i32";
    case scalar_type::u64: return "u64";
    case scalar_type::i64: return "i64";
    case scalar_type::f32: return "float";
    case scalar_type::f64: return "double";
    default: return "u32";
    }
}

/// C type of one stored element (bool is a 32-bit word; f16/bf16 are raw 16-bit).
inline const char* storage_type(ir::scalar_type t) {
    using ir::scalar_type;
    switch (t) {
    case scalar_type::bool_: return "u32";
    case scalar_type::u8: return "unsigned char";
    case scalar_type::i8: return "signed char";
    case scalar_type::u16: case scalar_type::f16: case scalar_type::bf16: return "unsigned short";
    case scalar_type::i16: return "short";
    default: return c_type(t);
    }
}

/// Device helpers every generated program starts with. (With
/// `VYRE_CUDA_EMULATION` defined, the CUDA headers and the shared-memory
/// declaration come from elsewhere: the emulation test runs the generated
/// code on the host.)
inline constexpr const char* prelude = R"(#ifndef VYRE_CUDA_EMULATION
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define VY_SMEM_DECL extern __shared__ __align__(16) unsigned char vy_smem[]
#endif
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;
// NaN results as the reference's host (x86) gives them: the first NaN operand, quieted, else the default NaN.
__device__ __forceinline__ float vy_q(float a) { return __uint_as_float(__float_as_uint(a) | 0x400000u); }
__device__ __forceinline__ double vy_q(double a) { return __longlong_as_double(__double_as_longlong(a) | 0x8000000000000ll); }
__device__ __forceinline__ float vy_dnan(float) { return __uint_as_float(0xffc00000u); }
__device__ __forceinline__ double vy_dnan(double) { return __longlong_as_double((i64)0xfff8000000000000ull); }
template <class F> __device__ __forceinline__ F vy_n1(F r, F a) { return !isnan(r) ? r : isnan(a) ? vy_q(a) : vy_dnan(r); }
template <class F> __device__ __forceinline__ F vy_n2(F r, F a, F b) { return !isnan(r) ? r : isnan(a) ? vy_q(a) : isnan(b) ? vy_q(b) : vy_dnan(r); }
template <class F> __device__ __forceinline__ F vy_n3(F r, F a, F b, F c) { return !isnan(r) ? r : isnan(a) ? vy_q(a) : isnan(b) ? vy_q(b) : isnan(c) ? vy_q(c) : vy_dnan(r); }
// IEEE minNum / maxNum: a NaN operand loses; min(-0, +0) = -0, max(-0, +0) = +0.
template <class F> __device__ __forceinline__ F vy_fminmax(F a, F b, bool is_max) {
  if (isnan(a)) return b;
  if (isnan(b)) return a;
  if (a == b) { if (a == F(0)) return (signbit(a) != is_max) ? a : b; return a; }
  return ((a < b) != is_max) ? a : b;
}
// Integer division and remainder: by zero gives 0, signed MIN / -1 gives MIN, MIN % -1 gives 0.
__device__ __forceinline__ u32 vy_div(u32 a, u32 b) { return b ? a / b : 0u; }
__device__ __forceinline__ u64 vy_div(u64 a, u64 b) { return b ? a / b : 0ull; }
__device__ __forceinline__ u32 vy_mod(u32 a, u32 b) { return b ? a % b : 0u; }
__device__ __forceinline__ u64 vy_mod(u64 a, u64 b) { return b ? a % b : 0ull; }
__device__ __forceinline__ i32 vy_div(i32 a, i32 b) { return b == 0 ? 0 : (b == -1 ? (i32)(0u - (u32)a) : a / b); }
__device__ __forceinline__ i64 vy_div(i64 a, i64 b) { return b == 0 ? 0 : (b == -1 ? (i64)(0ull - (u64)a) : a / b); }
__device__ __forceinline__ i32 vy_mod(i32 a, i32 b) { return (b == 0 || b == -1) ? 0 : a % b; }
__device__ __forceinline__ i64 vy_mod(i64 a, i64 b) { return (b == 0 || b == -1) ? 0 : a % b; }
// Float -> integer: truncate toward zero, saturate, NaN -> 0.
template <class F> __device__ __forceinline__ u32 vy_to_u32(F x) { if (isnan(x)) return 0u; F t = trunc(x); if (t <= F(0)) return 0u; if (t >= F(4294967296.0)) return 0xffffffffu; return (u32)t; }
template <class F> __device__ __forceinline__ i32 vy_to_i32(F x) { if (isnan(x)) return 0; F t = trunc(x); if (t >= F(2147483648.0)) return 0x7fffffff; if (t <= F(-2147483648.0)) return (i32)0x80000000u; return (i32)t; }
template <class F> __device__ __forceinline__ u64 vy_to_u64(F x) { if (isnan(x)) return 0ull; F t = trunc(x); if (t <= F(0)) return 0ull; if (t >= F(18446744073709551616.0)) return ~0ull; return (u64)t; }
template <class F> __device__ __forceinline__ i64 vy_to_i64(F x) { if (isnan(x)) return 0ll; F t = trunc(x); if (t >= F(9223372036854775808.0)) return 0x7fffffffffffffffll; if (t <= F(-9223372036854775808.0)) return (i64)0x8000000000000000ull; return (i64)t; }
// f64 <-> f32 keep a NaN's payload like the host's conversion instructions.
__device__ __forceinline__ float vy_d2f(double d) {
  if (isnan(d)) { u64 b = (u64)__double_as_longlong(d); return __uint_as_float(((u32)(b >> 32) & 0x80000000u) | 0x7fc00000u | (u32)((b >> 29) & 0x3fffffu)); }
  return __double2float_rn(d);
}
__device__ __forceinline__ double vy_f2d(float f) {
  if (isnan(f)) { u32 b = __float_as_uint(f); return __longlong_as_double((i64)(((u64)(b & 0x80000000u) << 32) | 0x7ff8000000000000ull | ((u64)(b & 0x3fffffu) << 29))); }
  return (double)f;
}
// Canonical NaN on store.
__device__ __forceinline__ float vy_canon(float v) { return isnan(v) ? __uint_as_float(0x7fc00000u) : v; }
__device__ __forceinline__ double vy_canon(double v) { return isnan(v) ? __longlong_as_double(0x7ff8000000000000ll) : v; }
// f16 / bf16 storage (round to nearest even; NaN as the reference stores it).
__device__ __forceinline__ float vy_ld_f16(unsigned short h) { return __half2float(__ushort_as_half(h)); }
__device__ __forceinline__ unsigned short vy_st_f16(float v) { return isnan(v) ? (unsigned short)0x7e00 : __half_as_ushort(__float2half_rn(v)); }
__device__ __forceinline__ float vy_ld_bf16(unsigned short h) { return __bfloat162float(__ushort_as_bfloat16(h)); }
__device__ __forceinline__ unsigned short vy_st_bf16(float v) { return isnan(v) ? (unsigned short)0x7fc0 : __bfloat16_as_ushort(__float2bfloat16_rn(v)); }
__device__ __forceinline__ u32 vy_ctz(u32 x) { return x ? (u32)(__ffs((int)x) - 1) : 32u; }
__device__ __forceinline__ u64 vy_ctz(u64 x) { return x ? (u64)(__ffsll((i64)x) - 1) : 64ull; }
// One barrier phase (see vyre/backend/cuda/lowering.hpp). Returns true when the workgroup must end.
__device__ __noinline__ bool vy_phase(u32* bs, u32& phase, bool alive, u32 site, u32* status) {
  u32* s = bs + 3u * (phase % 3u);
  if (alive) { atomicMin(&s[0], site); atomicMax(&s[1], site); atomicAdd(&s[2], 1u); }
  __syncthreads();
  const u32 mn = s[0], mx = s[1], live = s[2];
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) { u32* r = bs + 3u * ((phase + 2u) % 3u); r[0] = 0xffffffffu; r[1] = 0u; r[2] = 0u; }
  ++phase;
  if (live == 0u || mn == 0xfffffffeu) return true;  // all returned, or every one left is at the end
  if (mn != mx) {
    if (alive && site == mn && atomicCAS(&status[0], 0u, 1u) == 0u) {
      status[1] = blockIdx.x; status[2] = blockIdx.y; status[3] = blockIdx.z; status[4] = mn; status[5] = mx;
      __threadfence();
    }
    return true;
  }
  return false;
}
// Adds an invocation's steps to the launch's counter; true when the launch must stop.
__device__ __noinline__ bool vy_flush(u32* status, u64 budget, u64& steps) {
  const u64 total = atomicAdd((u64*)(status + 6), steps) + steps;
  steps = 0ull;
  if (total > budget) { atomicCAS(&status[0], 0u, 2u); return true; }
  return *(volatile u32*)&status[0] != 0u;
}
)";

/// The code generator for one program.
class emitter {
public:
    emitter(const ir::program& p, options o) : p_(p), o_(o) {}

    lowered_program run() {
        lowered_program out;
        count_barriers(p_.body);
        out.barriers = barriers_;
        // Workgroup buffers and the barrier state live in dynamic shared memory.
        std::uint64_t off = 0;
        std::string smem;
        for (std::size_t i = 0; i < p_.buffers.size(); ++i) {
            const auto& b = p_.buffers[i];
            if (b.acc != ir::access::workgroup) continue;
            off = (off + 15) & ~std::uint64_t(15);
            smem += "  " + std::string(storage_type(b.type)) + "* const b" + std::to_string(i) + " = (" +
                    storage_type(b.type) + "*)(vy_smem + " + std::to_string(off) + ");\n";
            smem += "  const u64 n" + std::to_string(i) + " = " + std::to_string(b.count) + "ull;\n";
            off += b.count * ir::size_of(b.type);
        }
        off = (off + 15) & ~std::uint64_t(15);
        const std::uint64_t zero_bytes = off;
        if (barriers_) off += 16 * 4;  // vy_bs: 3 slots of (min, max, live)
        out.shared_bytes = off;

        std::string params;
        for (std::size_t i = 0; i < p_.buffers.size(); ++i) {
            const auto& b = p_.buffers[i];
            if (b.acc == ir::access::workgroup) continue;
            out.param_buffers.push_back(i);
            // (no __restrict__: one resource may be bound to two buffers of a resident dispatch)
            params += std::string(storage_type(b.type)) + "* b" + std::to_string(i) + ", const u64 n" +
                      std::to_string(i) + ", ";
        }

        indent_ = 2;
        for (const auto& s : p_.body) stmt(s);

        std::string& src = out.source;
        src = "// generated by vyre::cuda_lowering version " + std::to_string(version) + " from program '" + p_.name +
              "'\n";
        src += prelude;
        src += "extern \"C\" __global__ void " + std::string(kernel_name) + "(" + params +
               "u32* vy_status, const u64 vy_budget) {\n";
        src += "  VY_SMEM_DECL;\n";
        src += smem;
        if (zero_bytes || barriers_) {
            src += "  {\n    const u32 t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
                   "    const u32 nt = blockDim.x * blockDim.y * blockDim.z;\n";
            if (zero_bytes)
                src += "    for (u32 k = t; k < " + std::to_string(zero_bytes / 4) + "u; k += nt) ((u32*)vy_smem)[k] = 0u;\n";
            if (barriers_)
                src += "    if (t < 3u) { u32* s = (u32*)(vy_smem + " + std::to_string(zero_bytes) +
                       ") + 3u * t; s[0] = 0xffffffffu; s[1] = 0u; s[2] = 0u; }\n";
            src += "    __syncthreads();\n  }\n";
        }
        if (barriers_) {
            src += "  u32* const vy_bs = (u32*)(vy_smem + " + std::to_string(zero_bytes) + ");\n";
            src += "  u32 vy_ph = 0u;\n";
            src += "  bool vy_at_end = false;  // reached the end of the program, not by (return)\n";
        }
        if (o_.count_steps) src += "  u64 vy_steps = 1ull;  // the invocation's start\n";
        src += "  {\n" + body_ + "  }\n";
        if (barriers_) src += "  vy_at_end = true;\n";
        if (exits_to_end()) {
            src += "vy_end:\n";
            if (o_.count_steps) src += "  vy_flush(vy_status, vy_budget, vy_steps);\n";
            // one that reached the end answers one phase there (divergent if others wait at a
            // barrier); returned invocations keep answering barrier phases until all have returned
            if (barriers_)
                src += "  if (vy_at_end) (void)vy_phase(vy_bs, vy_ph, true, " + std::to_string(end_site) +
                       "u, vy_status);\n  else while (!vy_phase(vy_bs, vy_ph, false, 0u, vy_status)) {}\n";
        } else {
            src += "  (void)vy_budget;\n";
        }
        src += "}\n";
        return out;
    }

private:
    using T = ir::scalar_type;

    void count_barriers(const std::vector<ir::stmt>& body) {
        for (const auto& s : body) {
            if (s.kind == ir::stmt_kind::barrier) ++barriers_;
            count_barriers(s.body);
            count_barriers(s.else_body);
        }
    }

    void line(const std::string& s) { body_ += std::string(indent_, ' ') + s + "\n"; }

    /// True when `return` jumps to the common end (barrier phases or a step flush follow it).
    bool exits_to_end() const { return barriers_ || o_.count_steps; }

    std::string fresh() { return "t" + std::to_string(next_++); }

    /// Declares a temporary of type `t` holding `value`; returns its name.
    std::string temp(T t, const std::string& value) {
        std::string n = fresh();
        line("const " + std::string(c_type(t)) + " " + n + " = " + value + ";");
        return n;
    }

    T var_type(const std::string& n) const {
        for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
            if (it->name == n) return it->type;
        return T::u32;
    }
    std::string var_name(const std::string& n) const {
        for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
            if (it->name == n) return it->c_name;
        return "0u";
    }
    std::size_t buffer_index(const std::string& n) const {
        for (std::size_t i = 0; i < p_.buffers.size(); ++i)
            if (p_.buffers[i].name == n) return i;
        return 0;
    }

    static std::string hex(std::uint64_t v) {
        static const char* d = "0123456789abcdef";
        std::string s;
        do {
            s.insert(s.begin(), d[v & 15]);
            v >>= 4;
        } while (v);
        return "0x" + s;
    }

    static std::string literal(T t, std::uint64_t bits) {
        switch (t) {
        case T::bool_: return bits ? "true" : "false";
        case T::u32: return hex(bits & 0xffffffffu) + "u";
        case T::i32: return "(i32)" + hex(bits & 0xffffffffu) + "u";
        case T::u64: return hex(bits) + "ull";
        case T::i64: return "(i64)" + hex(bits) + "ull";
        case T::f32: return "__uint_as_float(" + hex(bits & 0xffffffffu) + "u)";
        case T::f64: return "__longlong_as_double((i64)" + hex(bits) + "ull)";
        default: return "0u";
        }
    }

    /// Unsigned type of the same width (for wrapping integer arithmetic).
    static const char* unsigned_of(T t) { return (t == T::u64 || t == T::i64) ? "u64" : "u32"; }
    static unsigned width(T t) { return (t == T::u64 || t == T::i64 || t == T::f64) ? 64 : 32; }

    struct typed {
        std::string v;
        T t;
    };

    typed expr(const ir::expr& e) {
        using ir::expr_kind;
        switch (e.kind) {
        case expr_kind::literal: return {literal(e.type, e.bits), e.type};
        case expr_kind::var: return {var_name(e.name), var_type(e.name)};
        case expr_kind::builtin: {
            const char* ax = e.ax == ir::axis::x ? "x" : e.ax == ir::axis::y ? "y" : "z";
            std::string a(ax);
            switch (e.bi) {
            case ir::builtin::gid: return {temp(T::u32, "(u32)(blockIdx." + a + " * blockDim." + a + " + threadIdx." + a + ")"), T::u32};
            case ir::builtin::lid: return {"(u32)threadIdx." + a, T::u32};
            case ir::builtin::wgid: return {"(u32)blockIdx." + a, T::u32};
            case ir::builtin::wgsize: return {"(u32)blockDim." + a, T::u32};
            case ir::builtin::ngroups: return {"(u32)gridDim." + a, T::u32};
            }
            return {"0u", T::u32};
        }
        case expr_kind::len: return {"(u32)n" + std::to_string(buffer_index(e.name)), T::u32};
        case expr_kind::load: {
            auto idx = expr(e.args[0]);
            std::size_t b = buffer_index(e.name);
            const T st = p_.buffers[b].type;
            const T ct = ir::widened(st);
            const std::string B = "b" + std::to_string(b), N = "n" + std::to_string(b);
            const std::string el = B + "[" + idx.v + "]";
            std::string v;
            switch (st) {
            case T::bool_: v = "(" + el + " != 0u)"; break;
            case T::u8: case T::u16: v = "(u32)" + el; break;
            case T::i8: case T::i16: v = "(i32)" + el; break;
            case T::f16: v = "vy_ld_f16(" + el + ")"; break;
            case T::bf16: v = "vy_ld_bf16(" + el + ")"; break;
            default: v = el; break;
            }
            std::string zero = ct == T::bool_ ? "false" : "(" + std::string(c_type(ct)) + ")0";
            return {temp(ct, "((u64)" + idx.v + " < " + N + ") ? " + v + " : " + zero), ct};
        }
        case expr_kind::unary: {
            auto a = expr(e.args[0]);
            return {unary(e.op, a), a.t};
        }
        case expr_kind::binary: {
            auto a = expr(e.args[0]);
            auto b = expr(e.args[1]);
            T rt = ir::is_comparison(e.op) ? T::bool_ : a.t;
            return {temp(rt, binary(e.op, a, b)), rt};
        }
        case expr_kind::select: {
            auto c = expr(e.args[0]);
            auto a = expr(e.args[1]);
            auto b = expr(e.args[2]);
            return {temp(a.t, c.v + " ? " + a.v + " : " + b.v), a.t};
        }
        case expr_kind::cast: {
            auto a = expr(e.args[0]);
            return {temp(e.type, cast(e.type, a)), e.type};
        }
        case expr_kind::bitcast: {
            auto a = expr(e.args[0]);
            return {temp(e.type, bitcast(e.type, a)), e.type};
        }
        case expr_kind::fma: {
            auto a = expr(e.args[0]);
            auto b = expr(e.args[1]);
            auto c = expr(e.args[2]);
            const char* f = a.t == T::f32 ? "fmaf" : "fma";
            return {temp(a.t, "vy_n3(" + std::string(f) + "(" + a.v + ", " + b.v + ", " + c.v + "), " + a.v + ", " + b.v +
                                  ", " + c.v + ")"),
                    a.t};
        }
        case expr_kind::atomic: return atomic(e);
        }
        return {"0u", T::u32};
    }

    std::string unary(ir::op_code o, const typed& a) {
        using ir::op_code;
        const T t = a.t;
        const std::string& x = a.v;
        if (t == T::bool_) return temp(t, "!" + x);
        if (t == T::f32 || t == T::f64) {
            const bool f = t == T::f32;
            const std::string bits = f ? "__float_as_uint(" + x + ")" : "(u64)__double_as_longlong(" + x + ")";
            auto from_bits = [&](const std::string& b) {
                return f ? "__uint_as_float(" + b + ")" : "__longlong_as_double((i64)(" + b + "))";
            };
            const std::string sign = f ? "0x80000000u" : "0x8000000000000000ull";
            switch (o) {
            case op_code::neg: return temp(t, from_bits(bits + " ^ " + sign));
            case op_code::abs: return temp(t, from_bits(bits + " & ~" + sign));
            case op_code::sqrt: return temp(t, "vy_n1(" + std::string(f ? "sqrtf" : "sqrt") + "(" + x + "), " + x + ")");
            case op_code::exp: return temp(t, "vy_n1(expf(" + x + "), " + x + ")");
            case op_code::log: return temp(t, "vy_n1(logf(" + x + "), " + x + ")");
            case op_code::sin: return temp(t, "vy_n1(sinf(" + x + "), " + x + ")");
            case op_code::cos: return temp(t, "vy_n1(cosf(" + x + "), " + x + ")");
            case op_code::tanh: return temp(t, "vy_n1(tanhf(" + x + "), " + x + ")");
            default: return temp(t, x);
            }
        }
        const std::string U = unsigned_of(t);
        const std::string C = c_type(t);
        const bool w64 = width(t) == 64;
        switch (o) {
        case op_code::neg: return temp(t, "(" + C + ")((" + U + ")0 - (" + U + ")" + x + ")");
        case op_code::abs:
            if (ir::is_signed(t)) return temp(t, "(" + C + ")(" + x + " < 0 ? (" + U + ")0 - (" + U + ")" + x + " : (" + U + ")" + x + ")");
            return temp(t, x);
        case op_code::bitnot: return temp(t, "(" + C + ")~(" + U + ")" + x);
        case op_code::popcount:
            return temp(t, "(" + C + ")" + (w64 ? "__popcll((u64)" : "__popc((u32)") + x + ")");
        case op_code::clz: return temp(t, "(" + C + ")" + (w64 ? "__clzll((i64)" : "__clz((i32)") + x + ")");
        case op_code::ctz: return temp(t, "(" + C + ")vy_ctz((" + U + ")" + x + ")");
        default: return temp(t, x);
        }
    }

    std::string binary(ir::op_code o, const typed& a, const typed& b) {
        using ir::op_code;
        const T t = a.t;
        const std::string& x = a.v;
        const std::string& y = b.v;
        auto infix = [&](const char* op) { return x + " " + op + " " + y; };
        if (t == T::bool_) {
            switch (o) {
            case op_code::and_: return "(" + x + " & " + y + ")";
            case op_code::or_: return "(" + x + " | " + y + ")";
            case op_code::eq: return infix("==");
            case op_code::ne: return infix("!=");
            default: return "false";
            }
        }
        switch (o) {
        case op_code::eq: return infix("==");
        case op_code::ne: return infix("!=");
        case op_code::lt: return infix("<");
        case op_code::le: return infix("<=");
        case op_code::gt: return infix(">");
        case op_code::ge: return infix(">=");
        default: break;
        }
        if (t == T::f32 || t == T::f64) {
            const bool f = t == T::f32;
            auto nan2 = [&](const std::string& r) { return "vy_n2(" + r + ", " + x + ", " + y + ")"; };
            switch (o) {
            case op_code::add: return nan2(infix("+"));
            case op_code::sub: return nan2(infix("-"));
            case op_code::mul: return nan2(infix("*"));
            case op_code::div: return nan2(infix("/"));
            case op_code::mod: return nan2(std::string(f ? "fmodf(" : "fmod(") + x + ", " + y + ")");
            case op_code::min: return "vy_fminmax(" + x + ", " + y + ", false)";
            case op_code::max: return "vy_fminmax(" + x + ", " + y + ", true)";
            default: return x;
            }
        }
        const std::string U = unsigned_of(t);
        const std::string C = c_type(t);
        const std::string ux = "(" + U + ")" + x, uy = "(" + U + ")" + y;
        const std::string amount = "(" + uy + " & " + std::to_string(width(t) - 1) + "u)";
        switch (o) {
        case op_code::add: return "(" + C + ")(" + ux + " + " + uy + ")";
        case op_code::sub: return "(" + C + ")(" + ux + " - " + uy + ")";
        case op_code::mul: return "(" + C + ")(" + ux + " * " + uy + ")";
        case op_code::div: return "vy_div(" + x + ", " + y + ")";
        case op_code::mod: return "vy_mod(" + x + ", " + y + ")";
        case op_code::min: return x + " < " + y + " ? " + x + " : " + y;
        case op_code::max: return x + " > " + y + " ? " + x + " : " + y;
        case op_code::bitand_: return "(" + C + ")(" + ux + " & " + uy + ")";
        case op_code::bitor_: return "(" + C + ")(" + ux + " | " + uy + ")";
        case op_code::bitxor_: return "(" + C + ")(" + ux + " ^ " + uy + ")";
        case op_code::shl: return "(" + C + ")(" + ux + " << " + amount + ")";
        case op_code::shr: return "(" + C + ")(" + x + " >> " + amount + ")";
        default: return x;
        }
    }

    std::string cast(T to, const typed& a) {
        const T from = a.t;
        const std::string& x = a.v;
        if (to == from) return x;
        if (to == T::bool_) return x + " != (" + std::string(c_type(from)) + ")0";
        if (from == T::f32 || from == T::f64) {
            if (to == T::f32) return "vy_d2f(" + x + ")";
            if (to == T::f64) return "vy_f2d(" + x + ")";
            return "vy_to_" + std::string(c_type(to)) + "(" + x + ")";
        }
        // from bool or an integer: extend by the source's signedness, then convert
        const std::string wide = from == T::bool_ ? "(" + x + " ? 1ll : 0ll)"
                                 : ir::is_signed(from) ? "(i64)" + x : "(u64)" + x;
        if (to == T::f32) return "(float)" + wide;
        if (to == T::f64) return "(double)" + wide;
        return "(" + std::string(c_type(to)) + ")(" + unsigned_of(to) + ")(u64)" + wide;
    }

    std::string bitcast(T to, const typed& a) {
        const T from = a.t;
        const std::string& x = a.v;
        if (to == from) return x;
        // to the unsigned bits, then to the target
        std::string bits;
        if (from == T::f32) bits = "__float_as_uint(" + x + ")";
        else if (from == T::f64) bits = "(u64)__double_as_longlong(" + x + ")";
        else bits = "(" + std::string(unsigned_of(from)) + ")" + x;
        if (to == T::f32) return "__uint_as_float(" + bits + ")";
        if (to == T::f64) return "__longlong_as_double((i64)" + bits + ")";
        return "(" + std::string(c_type(to)) + ")" + bits;
    }

    typed atomic(const ir::expr& e) {
        using ir::op_code;
        auto idx = expr(e.args[0]);
        auto v = expr(e.args[1]);
        typed v2{"", T::u32};
        if (e.op == op_code::atomic_cas) v2 = expr(e.args[2]);
        std::size_t b = buffer_index(e.name);
        const T t = p_.buffers[b].type;
        const std::string C = c_type(t);
        const std::string ptr = "&b" + std::to_string(b) + "[" + idx.v + "]";
        const bool w64 = t == T::u64;
        std::string call;
        switch (e.op) {
        case op_code::atomic_add: call = "atomicAdd(" + ptr + ", " + v.v + ")"; break;
        case op_code::atomic_sub:
            call = w64 ? "atomicAdd(" + ptr + ", 0ull - " + v.v + ")" : "atomicSub(" + ptr + ", " + v.v + ")";
            break;
        case op_code::atomic_and: call = "atomicAnd(" + ptr + ", " + v.v + ")"; break;
        case op_code::atomic_or: call = "atomicOr(" + ptr + ", " + v.v + ")"; break;
        case op_code::atomic_xor: call = "atomicXor(" + ptr + ", " + v.v + ")"; break;
        case op_code::atomic_min: call = "atomicMin(" + ptr + ", " + v.v + ")"; break;
        case op_code::atomic_max: call = "atomicMax(" + ptr + ", " + v.v + ")"; break;
        case op_code::atomic_exchange: call = "atomicExch(" + ptr + ", " + v.v + ")"; break;
        case op_code::atomic_cas: call = "atomicCAS(" + ptr + ", " + v.v + ", " + v2.v + ")"; break;
        default: call = "0";
        }
        std::string n = fresh();
        line(C + " " + n + " = (" + C + ")0;");
        line("if ((u64)" + idx.v + " < n" + std::to_string(b) + ") { __threadfence(); " + n + " = " + call +
             "; __threadfence(); }");
        return {n, t};
    }

    void open_scope() { marks_.push_back(scope_.size()); }
    void close_scope() {
        scope_.resize(marks_.back());
        marks_.pop_back();
    }

    void block(const std::vector<ir::stmt>& body) {
        open_scope();
        indent_ += 2;
        for (const auto& s : body) stmt(s);
        indent_ -= 2;
        close_scope();
    }

    void stmt(const ir::stmt& s) {
        using ir::stmt_kind;
        if (o_.count_steps) line("++vy_steps;");
        switch (s.kind) {
        case stmt_kind::let_: {
            auto v = expr(s.args[0]);
            std::string n = "v" + std::to_string(next_++);
            line(std::string(c_type(v.t)) + " " + n + " = " + v.v + ";");
            scope_.push_back({s.name, n, v.t});
            break;
        }
        case stmt_kind::set: {
            auto v = expr(s.args[0]);
            line(var_name(s.name) + " = " + v.v + ";");
            break;
        }
        case stmt_kind::store: {
            auto idx = expr(s.args[0]);
            auto v = expr(s.args[1]);
            std::size_t b = buffer_index(s.name);
            const T st = p_.buffers[b].type;
            std::string val;
            switch (st) {
            case T::bool_: val = "(" + v.v + " ? 1u : 0u)"; break;
            case T::f32: case T::f64: val = "vy_canon(" + v.v + ")"; break;
            case T::f16: val = "vy_st_f16(" + v.v + ")"; break;
            case T::bf16: val = "vy_st_bf16(" + v.v + ")"; break;
            case T::u8: case T::i8: case T::u16: case T::i16:
                val = "(" + std::string(storage_type(st)) + ")" + v.v;
                break;
            default: val = v.v;
            }
            line("if ((u64)" + idx.v + " < n" + std::to_string(b) + ") b" + std::to_string(b) + "[" + idx.v + "] = " + val + ";");
            break;
        }
        case stmt_kind::if_: {
            auto c = expr(s.args[0]);
            line("if (" + c.v + ") {");
            block(s.body);
            if (!s.else_body.empty()) {
                line("} else {");
                block(s.else_body);
            }
            line("}");
            break;
        }
        case stmt_kind::loop: {
            auto from = expr(s.args[0]);
            auto to = expr(s.args[1]);
            if (s.body.empty()) {  // nothing runs; the reference still counts the iterations
                if (o_.count_steps)
                    line("if (" + from.v + " < " + to.v + ") vy_steps += (u64)(" + to.v + " - " + from.v + ");");
                break;
            }
            std::string n = "v" + std::to_string(next_++);
            line("for (u32 " + n + " = " + from.v + ", " + n + "_end = " + to.v + "; " + n + " < " + n + "_end; ++" + n + ") {");
            open_scope();
            scope_.push_back({s.name, n, T::u32});
            block(s.body);
            close_scope();
            if (o_.count_steps) line("  if (vy_flush(vy_status, vy_budget, vy_steps)) goto vy_end;");
            line("}");
            break;
        }
        case stmt_kind::block:
            line("{");
            block(s.body);
            line("}");
            break;
        case stmt_kind::barrier:
            line("if (vy_phase(vy_bs, vy_ph, true, " + std::to_string(barrier_no_++) + "u, vy_status)) return;");
            break;
        case stmt_kind::return_: line(exits_to_end() ? "goto vy_end;" : "return;"); break;
        case stmt_kind::op: break;
        }
    }

    struct binding {
        std::string name, c_name;
        T type;
    };

    const ir::program& p_;
    options o_;
    std::string body_;
    int indent_ = 2;
    std::uint32_t next_ = 0, barriers_ = 0, barrier_no_ = 0;
    std::vector<binding> scope_;
    std::vector<std::size_t> marks_;
};

} // namespace detail

/// Lowers a *valid* program (see `ir::validate`) whose body is not a catalogue op.
inline result<lowered_program> lower(const ir::program& p, options o = {}) {
    if (p.body.size() == 1 && p.body[0].kind == ir::stmt_kind::op)
        return fail(error_code::invalid_argument,
                    "cuda lowering: program '" + p.name + "' is the catalogue op '" + p.body[0].name +
                        "', which runs as a precompiled kernel",
                    "dispatch it through the cuda backend, which picks the op's kernel");
    return detail::emitter(p, o).run();
}

} // namespace vyre::cuda_lowering
