#pragma once
/// \file vyre/backend/detail/host_memory.hpp
/// Parts shared by the host backends: the checked resident-handle table, the
/// compiled-program cache, the byte counters, and binding host inputs to a
/// program per the spec's dispatch ABI.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include <vyre/backend/capabilities.hpp>
#include <vyre/backend/config.hpp>
#include <vyre/backend/detail/interpreter.hpp>
#include <vyre/backend/detail/resource_checks.hpp>
#include <vyre/core/huge_pages.hpp>
#include <vyre/core/result.hpp>
#include <vyre/ir/hash.hpp>
#include <vyre/ir/validate.hpp>
#include <vyre/testing/fault_injector.hpp>

namespace vyre::detail {

/// A resident handle of a host backend: the owning instance, a slot and the
/// slot's generation (so a handle used after `free` is detected).
struct host_resource {
    std::uint64_t owner = 0;
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;
    bool operator==(const host_resource&) const = default;
};

/// The host's physical memory in bytes (read once; 1 TiB where the system
/// does not say). No single host allocation may exceed it: such a request is
/// `out_of_memory` before anything is tried (an allocator asked for 2^62
/// bytes may abort rather than throw, e.g. under AddressSanitizer).
inline std::uint64_t host_physical_bytes() {
    static const std::uint64_t bytes = [] {
        const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
        if (pages <= 0 || page <= 0) return std::uint64_t(1) << 40;
        return std::min<std::uint64_t>(std::uint64_t(pages) * std::uint64_t(page), std::uint64_t(1) << 40);
    }();
    return bytes;
}

/// The bytes of one resident allocation of a host backend: memory the
/// backend allocated (zeroed), or a host vector handed over by `adopt` and
/// kept as it is (no copy). Shared, so a concurrent `free` cannot pull the
/// bytes away from a dispatch or transfer that is using them.
class host_block {
public:
    /// `n` zeroed bytes (huge pages where they pay). Throws `std::bad_alloc`
    /// or `std::length_error` when the host cannot give them.
    static std::shared_ptr<host_block> zeroed(std::uint64_t n) {
        auto v = std::make_shared<std::vector<std::uint8_t>>();
        assign_huge(*v, n, std::uint8_t{0});  // zero-filled at once: huge pages fault far less
        std::uint8_t* p = v->data();
        return std::make_shared<host_block>(std::move(v), p, n);
    }
    /// The storage of `v`, taken over without a copy (`v` is left empty).
    template <class T>
        requires std::is_trivially_copyable_v<T>
    static std::shared_ptr<host_block> adopted(std::vector<T>&& v) {
        auto owner = std::make_shared<std::vector<T>>(std::move(v));
        auto* p = reinterpret_cast<std::uint8_t*>(owner->data());
        const std::size_t n = owner->size() * sizeof(T);
        auto blk = std::make_shared<host_block>(std::move(owner), p, n);
        blk->adopted_as_ = &typeid(std::vector<T>);
        return blk;
    }
    /// The caller's bytes `b`, not owned and read-only (`borrow`): the
    /// caller keeps them alive and unchanged until the resource is freed.
    static std::shared_ptr<host_block> borrowed(std::span<const std::uint8_t> b) {
        auto blk = std::make_shared<host_block>(nullptr, const_cast<std::uint8_t*>(b.data()), b.size());
        blk->read_only_ = true;
        return blk;
    }
    host_block(std::shared_ptr<void> owner, std::uint8_t* data, std::size_t size)
        : owner_(std::move(owner)), data_(data), size_(size) {}

    std::uint8_t* data() const { return data_; }
    std::size_t size() const { return size_; }
    std::uint8_t* begin() const { return data_; }
    std::uint8_t* end() const { return data_ + size_; }
    /// True for borrowed bytes: nothing may write them (uploads, maps and
    /// writable buffer bindings are refused).
    bool read_only() const { return read_only_; }
    /// True when `adopt` made this block from a `std::vector<T>` (so that
    /// `take_vector<T>` may give it back).
    template <class T>
    bool adopted_from() const {
        return adopted_as_ != nullptr && *adopted_as_ == typeid(std::vector<T>);
    }
    /// The vector `adopt` took over, moved out (only when `adopted_from<T>()`);
    /// the block is empty afterwards.
    template <class T>
    std::vector<T> take_vector() {
        std::vector<T> v = std::move(*static_cast<std::vector<T>*>(owner_.get()));
        owner_.reset(), data_ = nullptr, size_ = 0, adopted_as_ = nullptr;
        return v;
    }

private:
    std::shared_ptr<void> owner_;  // what keeps the bytes alive (none when borrowed)
    std::uint8_t* data_;
    std::size_t size_;
    bool read_only_ = false;
    const std::type_info* adopted_as_ = nullptr;  // the vector type `adopt` took over, if any
};

inline std::uint64_t next_instance_id() {
    static std::atomic<std::uint64_t> n{1};
    return n.fetch_add(1);
}

/// Byte and call counters, readable as a `metric_snapshot`.
struct host_metrics {
    std::atomic<std::uint64_t> dispatches{0}, resident_dispatches{0}, bytes_uploaded{0}, bytes_downloaded{0},
        upload_calls{0}, download_calls{0}, allocations{0}, frees{0}, live_bytes{0}, sequences{0}, bytes_adopted{0},
        maps{0}, bytes_borrowed{0}, live_borrowed_bytes{0}, bytes_reclaimed{0};
    metric_snapshot snapshot() const {
        return {{"dispatches", dispatches},       {"resident_dispatches", resident_dispatches},
                {"bytes_uploaded", bytes_uploaded}, {"bytes_downloaded", bytes_downloaded},
                {"upload_calls", upload_calls},   {"download_calls", download_calls},
                {"allocations", allocations},     {"frees", frees},
                {"live_bytes", live_bytes},       {"sequences", sequences},
                {"bytes_adopted", bytes_adopted}, {"maps", maps},
                {"bytes_borrowed", bytes_borrowed}, {"live_borrowed_bytes", live_borrowed_bytes},
                {"bytes_reclaimed", bytes_reclaimed}};
    }
};

/// The table of live allocations of one host backend instance. Thread-safe.
class host_memory {
public:
    host_memory() : owner_(next_instance_id()) {}

    /// Allocates exactly `n` zeroed bytes. Past the resident budget, or when
    /// the host has no memory, fails with `out_of_memory` and changes nothing.
    result<host_resource> allocate(std::uint64_t n) {
        return add(n, "allocate", [n] { return host_block::zeroed(n); });
    }

    /// Takes over the storage of `v` as a resident allocation of exactly its
    /// bytes, without copying it (`v` is left empty); budget, faults and
    /// counters as for `allocate`, and the bytes count as `bytes_adopted`.
    template <class T>
        requires std::is_trivially_copyable_v<T>
    result<host_resource> adopt(std::vector<T>&& v) {
        const std::uint64_t n = std::uint64_t(v.size()) * sizeof(T);
        auto r = add(n, "adopt", [&v] { return host_block::adopted(std::move(v)); });
        if (r) metrics.bytes_adopted += n;
        return r;
    }

    /// Makes the caller's bytes `b` a read-only resource without a copy (see
    /// `host_block::borrowed`); they count as `bytes_borrowed` and, while
    /// the resource lives, `live_borrowed_bytes`, not against the budget or
    /// in `live_bytes` (the backend holds no memory for them).
    result<host_resource> borrow(std::span<const std::uint8_t> b) {
        if (faults.strike(testing::fault_site::allocate))
            return make_unexpected(testing::fault_injector::error(testing::fault_site::allocate, "borrow"));
        std::lock_guard lk(mu_);
        const host_resource r = place(host_block::borrowed(b));
        metrics.allocations++;
        metrics.bytes_borrowed += b.size();
        metrics.live_borrowed_bytes += b.size();
        return r;
    }

    /// Sets the resident byte budget (0: unlimited). Live allocations are kept
    /// even when they already exceed a lowered budget; new ones must fit.
    void set_budget(std::uint64_t bytes) {
        std::lock_guard lk(mu_);
        budget_ = bytes;
    }
    /// The resident byte budget (0: unlimited).
    std::uint64_t budget() const {
        std::lock_guard lk(mu_);
        return budget_;
    }

    /// Frees `r`; a foreign or already freed handle is an error.
    result<void> free(const host_resource& r) {
        std::lock_guard lk(mu_);
        auto c = check_locked(r, "free");
        if (!c) return make_unexpected(c.error());
        release_locked(r.slot);
        return {};
    }

    /// Gives back the storage of a resource that `adopt` made from a
    /// `std::vector<T>`, as that vector and without a copy (with what
    /// dispatches wrote into it), and frees the resource. Fails, changing
    /// nothing, on a foreign or freed handle (`invalid_resource`), on memory
    /// that was allocated, borrowed or adopted from another vector type, or
    /// while a transfer or dispatch on another thread uses it
    /// (`invalid_argument`). The bytes count as `bytes_reclaimed`, never as
    /// `bytes_downloaded`.
    template <class T>
        requires std::is_trivially_copyable_v<T>
    result<std::vector<T>> reclaim(const host_resource& r) {
        std::lock_guard lk(mu_);
        auto c = check_locked(r, "reclaim");
        if (!c) return make_unexpected(c.error());
        auto& s = slots_[r.slot];
        if (!s.data->template adopted_from<T>())
            return fail(error_code::invalid_argument,
                        std::string("reclaim: the resource was ") +
                            (s.data->read_only() ? "borrowed" : "not adopted from a std::vector of this element type"),
                        "reclaim only what adopt() made from a std::vector<T> of the same T; download the others");
        if (s.data.use_count() > 2)  // the slot's and `c`'s: anything more is a transfer or dispatch under way
            return fail(error_code::invalid_argument, "reclaim: the resource is in use by a transfer or dispatch",
                        "reclaim a resource once the work that uses it has returned");
        const std::shared_ptr<host_block> blk = std::move(*c);
        metrics.bytes_reclaimed += blk->size();
        release_locked(r.slot);  // (counted as a free; the block is `blk`'s alone now)
        return blk->template take_vector<T>();
    }

    /// The bytes of a live resource (shared so a concurrent free cannot pull them away mid-use).
    result<std::shared_ptr<host_block>> get(const host_resource& r, const char* what) const {
        std::lock_guard lk(mu_);
        return check_locked(r, what);
    }

    /// Checks that [offset, offset+len) lies inside `r`.
    result<std::shared_ptr<host_block>> get_range(const host_resource& r, std::uint64_t offset,
                                                                 std::uint64_t len, const char* what) const {
        auto d = get(r, what);
        if (!d) return d;
        VYRE_TRY(check_range(offset, len, (*d)->size(), what));
        return d;
    }

    /// Counters of this instance.
    host_metrics metrics;
    /// Test-only fault injection (disarmed by default).
    testing::fault_injector faults;

private:
    /// Makes a live slot of the block that `make` returns, `n` bytes, after
    /// the fault, budget and size checks (`what` names the operation).
    template <class Make>
    result<host_resource> add(std::uint64_t n, const char* what, Make&& make) {
        if (faults.strike(testing::fault_site::allocate))
            return make_unexpected(testing::fault_injector::error(testing::fault_site::allocate, what));
        std::lock_guard lk(mu_);
        const std::uint64_t live = metrics.live_bytes.load();
        if (budget_ != 0 && (n > budget_ || live > budget_ - n))
            return fail(error_code::out_of_memory,
                        std::string(what) + ": " + std::to_string(n) + " bytes would bring this backend's resident memory to " +
                            std::to_string(live + n) + " bytes, past its budget of " + std::to_string(budget_),
                        "free resources, allocate less, or raise set_resident_budget()");
        if (n > host_physical_bytes())
            return fail(error_code::out_of_memory,
                        std::string(what) + ": " + std::to_string(n) + " bytes exceed this host's physical memory of " +
                            std::to_string(host_physical_bytes()) + " bytes",
                        "allocate less");
        std::shared_ptr<host_block> data;
        try {
            data = make();
        } catch (const std::bad_alloc&) {
            return fail(error_code::out_of_memory, std::string(what) + ": " + std::to_string(n) + " bytes of host memory not available",
                        "free resources or allocate less");
        } catch (const std::length_error&) {
            return fail(error_code::out_of_memory, std::string(what) + ": " + std::to_string(n) + " bytes exceed what one host allocation can hold",
                        "allocate less");
        }
        metrics.allocations++;
        metrics.live_bytes += n;
        return place(std::move(data));
    }

    /// A live slot holding `data` (the lock held).
    host_resource place(std::shared_ptr<host_block> data) {
        std::uint32_t slot;
        if (!free_slots_.empty()) {
            slot = free_slots_.back();
            free_slots_.pop_back();
        } else {
            slot = static_cast<std::uint32_t>(slots_.size());
            slots_.emplace_back();
        }
        auto& s = slots_[slot];
        s.data = std::move(data);
        s.live = true;
        return host_resource{owner_, slot, s.generation};
    }

    /// Frees live slot `slot` (the lock held).
    void release_locked(std::uint32_t slot) {
        auto& s = slots_[slot];
        (s.data->read_only() ? metrics.live_borrowed_bytes : metrics.live_bytes) -= s.data->size();
        s.data.reset();
        s.live = false;
        s.generation++;
        free_slots_.push_back(slot);
        metrics.frees++;
    }

    struct slot_t {
        std::shared_ptr<host_block> data;
        std::uint32_t generation = 0;
        bool live = false;
    };
    result<std::shared_ptr<host_block>> check_locked(const host_resource& r, const char* what) const {
        if (r.owner != owner_) return make_unexpected(foreign_resource_error(what));
        if (r.slot >= slots_.size() || slots_[r.slot].generation != r.generation || !slots_[r.slot].live)
            return make_unexpected(freed_resource_error(what));
        return slots_[r.slot].data;
    }

    std::uint64_t owner_;
    mutable std::mutex mu_;
    std::vector<slot_t> slots_;
    std::vector<std::uint32_t> free_slots_;
    std::uint64_t budget_ = 0;
};

/// Validated and compiled programs keyed by structural hash (equality checked).
class program_cache {
public:
    /// The compiled program, validating and compiling on a miss; `native`
    /// resolves the backend's native implementation of an op body.
    result<std::shared_ptr<const compiled_program>> get(const ir::program& p,
                                                        ops::erased_native_fn (*native)(const ops::op_info&) = nullptr) {
        std::uint64_t h = ir::structural_hash(p);
        {
            std::lock_guard lk(mu_);
            auto it = map_.find(h);
            if (it != map_.end() && it->second->source == p) {
                hits_++;
                return it->second;
            }
        }
        auto diags = ir::validate(p);
        if (!diags.empty())
            return fail(error_code::invalid_program,
                        "program '" + p.name + "' is invalid:\n" + ir::format_diagnostics(diags),
                        "fix the listed problems (see vyre::ir::validate)");
        auto cp = compile(p);
        if (cp->op && native) cp->native = native(*cp->op);
        std::lock_guard lk(mu_);
        misses_++;
        map_[h] = cp;
        return std::shared_ptr<const compiled_program>(std::move(cp));
    }
    /// Hit and miss counters.
    pipeline_cache_stats stats() const {
        std::lock_guard lk(mu_);
        return {hits_, misses_, map_.size()};
    }
    /// Drops every entry.
    void clear() {
        std::lock_guard lk(mu_);
        map_.clear();
    }

private:
    mutable std::mutex mu_;
    std::unordered_map<std::uint64_t, std::shared_ptr<const compiled_program>> map_;
    std::uint64_t hits_ = 0, misses_ = 0;
};

/// Checks every declared buffer against the limits: a fixed-size buffer
/// within `max_storage_buffer_bytes`, the workgroup buffers together within
/// `max_workgroup_bytes` (so no dispatch tries an allocation it cannot make).
inline result<void> check_declared_sizes(const ir::program& p, const device_limits& l) {
    std::uint64_t wg_bytes = 0;
    for (const auto& d : p.buffers) {
        const std::uint64_t es = ir::size_of(d.type);
        const bool local = d.acc == ir::access::workgroup;
        const std::uint64_t cap = local ? l.max_workgroup_bytes : l.max_storage_buffer_bytes;
        if (d.count > cap / es || (local && wg_bytes + d.count * es > cap))
            return fail(error_code::invalid_argument,
                        "program '" + p.name + "': buffer '" + d.name + "' of " + std::to_string(d.count) + " " +
                            std::string(ir::name_of(d.type)) + " elements exceeds the backend's " +
                            (local ? "workgroup memory of " : "storage buffer limit of ") + std::to_string(cap) + " bytes",
                        "declare a smaller COUNT (see the backend's limits())");
        if (local) wg_bytes += d.count * es;
    }
    return {};
}

/// Checks the workgroup size, and the grid against the backend's limits
/// `l` (`max_workgroups` per axis, as `cuda` must), and picks the grid.
inline result<std::pair<std::array<std::uint32_t, 3>, std::array<std::uint32_t, 3>>> launch_shape(
    const ir::program& p, std::span<const bound_buffer> bufs, const dispatch_config& c, const device_limits& l) {
    auto wg = c.workgroup ? *c.workgroup : p.workgroup_size;
    for (int a = 0; a < 3; ++a)
        if (wg[a] == 0)
            return fail(error_code::invalid_argument,
                        "program '" + p.name + "': workgroup size on axis " + std::to_string(a) + " is 0",
                        "use a workgroup size of at least 1 on every axis");
    if (std::uint64_t(wg[0]) * wg[1] * wg[2] > (1u << 20))
        return fail(error_code::invalid_argument, "program '" + p.name + "': workgroup of more than 2^20 invocations",
                    "use a smaller workgroup");
    auto grid = c.grid ? *c.grid : default_grid(p, bufs, wg[0]);
    for (int a = 0; a < 3; ++a)
        if (grid[a] > l.max_workgroups[a])
            return fail(error_code::invalid_argument,
                        "program '" + p.name + "': a grid of " + std::to_string(grid[a]) + " workgroups on axis " +
                            "xyz"[a] + " exceeds the backend's maximum of " + std::to_string(l.max_workgroups[a]),
                        "dispatch fewer workgroups on that axis (see the backend's limits())");
    return std::pair{wg, grid};
}

/// Binds host inputs and fresh outputs to a program per the spec's dispatch
/// ABI. `storage` receives one byte vector per declared buffer.
inline result<std::vector<bound_buffer>> bind_host_inputs(const ir::program& p, std::span<const bytes_view> inputs,
                                                          std::vector<bytes>& storage) {
    std::size_t n_in = 0;
    for (const auto& b : p.buffers)
        if (ir::is_input(b.acc)) ++n_in;
    if (inputs.size() != n_in)
        return fail(error_code::invalid_argument,
                    "program '" + p.name + "' takes " + std::to_string(n_in) + " inputs (its read, uniform and "
                    "read_write buffers) but " + std::to_string(inputs.size()) + " were given",
                    "pass one input per read/uniform/read_write buffer, in declaration order");
    storage.assign(p.buffers.size(), {});
    std::vector<bound_buffer> out(p.buffers.size());
    std::size_t k = 0;
    for (std::size_t i = 0; i < p.buffers.size(); ++i) {
        const auto& d = p.buffers[i];
        const std::size_t es = ir::size_of(d.type);
        if (ir::is_input(d.acc)) {
            bytes_view in = inputs[k++];
            if (in.size() % es != 0)
                return fail(error_code::invalid_argument,
                            "input for buffer '" + d.name + "' is " + std::to_string(in.size()) +
                                " bytes, not a multiple of its element size " + std::to_string(es),
                            "supply whole " + std::string(ir::name_of(d.type)) + " elements");
            if (d.count != 0 && in.size() != d.count * es)
                return fail(error_code::invalid_argument,
                            "input for buffer '" + d.name + "' is " + std::to_string(in.size()) + " bytes but the buffer holds " +
                                std::to_string(d.count) + " elements (" + std::to_string(d.count * es) + " bytes)",
                            "supply exactly COUNT elements, or declare COUNT 0");
            storage[i].assign(in.begin(), in.end());
            out[i] = {storage[i].data(), in.size() / es, d.type};
        } else if (d.acc == ir::access::output) {
            try {
                storage[i].assign(d.count * es, 0);
            } catch (const std::exception&) {  // bad_alloc, length_error
                return fail(error_code::out_of_memory,
                            "output buffer '" + d.name + "' of program '" + p.name + "' needs " +
                                std::to_string(std::uint64_t(d.count) * es) + " bytes of host memory, which are not available",
                            "declare a smaller COUNT");
            }
            out[i] = {storage[i].data(), d.count, d.type};
        } else {
            out[i] = {nullptr, d.count, d.type};
        }
    }
    return out;
}

} // namespace vyre::detail
