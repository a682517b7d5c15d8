#pragma once
/// \file vyre/core/huge_pages.hpp
/// Large fresh allocations that are filled at once (a file read into memory,
/// the arrays a loader or a solver fills) pay one page fault per 4 KiB page
/// they touch; on virtual machines a fault costs microseconds, which can
/// dominate a loader. On Linux, these helpers ask the kernel for transparent
/// huge pages (2 MiB: one fault instead of 512) where it allows them
/// (`/sys/kernel/mm/transparent_hugepage/enabled` is `always` or `madvise`).
/// They are hints: elsewhere, or when the kernel declines, nothing changes.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace vyre::detail {

/// The huge-page size the hints align to.
inline constexpr std::size_t huge_page_bytes = std::size_t{1} << 21;

/// Hints that the 2 MiB-aligned part of [p, p + bytes) will be filled soon
/// and may be backed by huge pages. Regions under 4 MiB are left alone (at
/// most one whole huge page would fit). Never fails.
inline void advise_huge_pages(const void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p == nullptr || bytes < 2 * huge_page_bytes) return;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t b = (a + huge_page_bytes - 1) & ~std::uintptr_t(huge_page_bytes - 1);
    const std::uintptr_t e = (a + bytes) & ~std::uintptr_t(huge_page_bytes - 1);
    if (e > b) (void)::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/// `v.reserve(n)`, then the huge-page hint on the reserved storage when it
/// is fresh (the reservation grew). Elements keep their values.
template <class T, class A>
void reserve_huge(std::vector<T, A>& v, std::size_t n) {
    if (n <= v.capacity()) return;
    v.reserve(n);
    advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

/// `v.assign(n, value)` into storage hinted before it is filled.
template <class T, class A>
void assign_huge(std::vector<T, A>& v, std::size_t n, const T& value) {
    if (n > v.capacity()) {
        std::vector<T, A>().swap(v);
        reserve_huge(v, n);
    }
    v.assign(n, value);
}

/// A byte buffer for a whole file, uninitialised, growable, move-only. From
/// 1 MiB up (on Linux) it is anonymous memory in whole, aligned huge pages,
/// hinted as such, so its capacity is rounded up to 2 MiB.
class byte_buffer {
public:
    byte_buffer() = default;
    /// A buffer of `capacity` bytes; throws `std::bad_alloc` when none can be had.
    explicit byte_buffer(std::size_t capacity) { allocate(capacity); }
    byte_buffer(byte_buffer&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), cap_(std::exchange(o.cap_, 0)), mapped_(o.mapped_) {}
    byte_buffer& operator=(byte_buffer&& o) noexcept {
        if (this != &o) {
            release();
            data_ = std::exchange(o.data_, nullptr);
            cap_ = std::exchange(o.cap_, 0);
            mapped_ = o.mapped_;
        }
        return *this;
    }
    byte_buffer(const byte_buffer&) = delete;
    byte_buffer& operator=(const byte_buffer&) = delete;
    ~byte_buffer() { release(); }

    /// The bytes.
    char* data() noexcept { return data_; }
    /// Bytes available.
    std::size_t capacity() const noexcept { return cap_; }
    /// Grows to at least `capacity` bytes, keeping the first `keep` bytes.
    void grow(std::size_t capacity, std::size_t keep) {
        byte_buffer bigger(capacity);
        if (keep) std::memcpy(bigger.data_, data_, keep);
        *this = std::move(bigger);
    }

private:
    void allocate(std::size_t capacity) {
        if (capacity == 0) capacity = 1;
        if (capacity > (std::size_t(-1) >> 1)) throw std::bad_alloc();  // no rounding overflow below
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (capacity >= huge_page_bytes / 2) {
            // whole huge pages: map one more, keep the aligned part, hint all of it
            const std::size_t rounded = (capacity + huge_page_bytes - 1) & ~(huge_page_bytes - 1);
            void* m = ::mmap(nullptr, rounded + huge_page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED) throw std::bad_alloc();
            const auto a = reinterpret_cast<std::uintptr_t>(m);
            const std::uintptr_t b = (a + huge_page_bytes - 1) & ~std::uintptr_t(huge_page_bytes - 1);
            if (b > a) ::munmap(m, b - a);
            if (const std::uintptr_t tail = a + rounded + huge_page_bytes - (b + rounded); tail > 0)
                ::munmap(reinterpret_cast<void*>(b + rounded), tail);
            data_ = reinterpret_cast<char*>(b);
            cap_ = rounded;
            mapped_ = true;
            (void)::madvise(data_, cap_, MADV_HUGEPAGE);
            return;
        }
#endif
        data_ = new char[capacity];
        cap_ = capacity;
        mapped_ = false;
    }
    void release() noexcept {
        if (data_ == nullptr) return;
#if defined(__linux__)
        if (mapped_) {
            ::munmap(data_, cap_);
            data_ = nullptr;
            return;
        }
#endif
        delete[] data_;
        data_ = nullptr;
    }
    char* data_ = nullptr;
    std::size_t cap_ = 0;
    bool mapped_ = false;
};

} // namespace vyre::detail
