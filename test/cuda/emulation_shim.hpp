#pragma once
// Host stand-ins for the CUDA built-ins that the lowered code uses, so that
// the generated kernels can be compiled by the host compiler and run on
// threads (one std::thread per invocation of a workgroup, __syncthreads as a
// std::barrier). This checks the *lowering* — evaluation order, types, guards,
// the barrier protocol, step counting — against the reference; it says
// nothing about the device's own arithmetic, which only a GPU run checks.
#define VYRE_CUDA_EMULATION 1

#include <atomic>
#include <barrier>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <vyre/backend/detail/scalar.hpp>

#include "emulation_state.hpp"

#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__
#define __align__(n) alignas(n)

namespace vyre_emu {
/// The calling thread's state (one instance per thread, in the kernels' library).
inline thread_local thread_state self;
} // namespace vyre_emu
/// The harness's way to the state of the calling thread.
extern "C" vyre_emu::thread_state* vyre_emu_self() { return &vyre_emu::self; }

#define threadIdx (vyre_emu::self.thread)
#define blockIdx (vyre_emu::self.block)
#define blockDim (vyre_emu::self.block_dim)
#define gridDim (vyre_emu::self.grid_dim)
#define VY_SMEM_DECL unsigned char* const vy_smem = vyre_emu::self.smem

inline void __syncthreads() {
    if (vyre_emu::self.bar) vyre_emu::self.bar->arrive_and_wait();
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }

using std::isnan;
using std::signbit;
using std::trunc;
using std::fma;
using std::fmod;
using std::sqrt;
inline float fmaf(float a, float b, float c) { return std::fma(a, b, c); }
inline float fmodf(float a, float b) { return std::fmod(a, b); }
inline float sqrtf(float a) { return std::sqrt(a); }
inline float expf(float a) { return std::exp(a); }
inline float logf(float a) { return std::log(a); }
inline float sinf(float a) { return std::sin(a); }
inline float cosf(float a) { return std::cos(a); }
inline float tanhf(float a) { return std::tanh(a); }

inline unsigned __float_as_uint(float f) { return std::bit_cast<unsigned>(f); }
inline float __uint_as_float(unsigned u) { return std::bit_cast<float>(u); }
inline long long __double_as_longlong(double d) { return std::bit_cast<long long>(d); }
inline double __longlong_as_double(long long v) { return std::bit_cast<double>(v); }
inline float __double2float_rn(double d) { return static_cast<float>(d); }
inline int __popc(unsigned x) { return std::popcount(x); }
inline int __popcll(unsigned long long x) { return std::popcount(x); }
inline int __clz(int x) { return std::countl_zero(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return std::countl_zero(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return x ? std::countr_zero(static_cast<unsigned>(x)) + 1 : 0; }
inline int __ffsll(long long x) { return x ? std::countr_zero(static_cast<unsigned long long>(x)) + 1 : 0; }

// f16 / bf16 storage through the reference's own conversions.
struct __half { unsigned short bits; };
struct __nv_bfloat16 { unsigned short bits; };
inline __half __ushort_as_half(unsigned short b) { return {b}; }
inline unsigned short __half_as_ushort(__half h) { return h.bits; }
inline float __half2float(__half h) { return std::bit_cast<float>(vyre::detail::f16_to_f32(h.bits)); }
inline __half __float2half_rn(float f) { return {vyre::detail::f32_to_f16(std::bit_cast<std::uint32_t>(f))}; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short b) { return {b}; }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.bits; }
inline float __bfloat162float(__nv_bfloat16 h) { return std::bit_cast<float>(vyre::detail::bf16_to_f32(h.bits)); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return {vyre::detail::f32_to_bf16(std::bit_cast<std::uint32_t>(f))}; }

// Atomics: sequentially consistent read-modify-writes, returning the old value.
template <class T, class U> T atomicAdd(T* p, U v) { return std::atomic_ref<T>(*p).fetch_add(static_cast<T>(v)); }
template <class T, class U> T atomicSub(T* p, U v) { return std::atomic_ref<T>(*p).fetch_sub(static_cast<T>(v)); }
template <class T, class U> T atomicAnd(T* p, U v) { return std::atomic_ref<T>(*p).fetch_and(static_cast<T>(v)); }
template <class T, class U> T atomicOr(T* p, U v) { return std::atomic_ref<T>(*p).fetch_or(static_cast<T>(v)); }
template <class T, class U> T atomicXor(T* p, U v) { return std::atomic_ref<T>(*p).fetch_xor(static_cast<T>(v)); }
template <class T, class U> T atomicExch(T* p, U v) { return std::atomic_ref<T>(*p).exchange(static_cast<T>(v)); }
template <class T, class U> T atomicMin(T* p, U v) {
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (!a.compare_exchange_weak(old, old < static_cast<T>(v) ? old : static_cast<T>(v))) {
    }
    return old;
}
template <class T, class U> T atomicMax(T* p, U v) {
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (!a.compare_exchange_weak(old, old > static_cast<T>(v) ? old : static_cast<T>(v))) {
    }
    return old;
}
template <class T, class U, class W> T atomicCAS(T* p, U expected, W desired) {
    T e = static_cast<T>(expected);
    std::atomic_ref<T>(*p).compare_exchange_strong(e, static_cast<T>(desired));
    return e;
}
