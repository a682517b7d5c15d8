#pragma once
/// \file vyre/backend/config.hpp
/// Plain data shared by every backend: byte buffers, dispatch configuration,
/// timings, ranged reads and resident sequence steps.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <vyre/ir/program.hpp>

namespace vyre {

/// An owned byte buffer (a dispatch input or output).
using bytes = std::vector<std::uint8_t>;
/// A borrowed read-only byte range.
using bytes_view = std::span<const std::uint8_t>;
/// A borrowed writable byte range.
using mutable_bytes_view = std::span<std::uint8_t>;

/// Options of one dispatch. Every field has a sane default.
struct dispatch_config {
    /// Number of workgroups per axis; default: derived from the buffers (spec "Invocations").
    std::optional<std::array<std::uint32_t, 3>> grid;
    /// Replaces the program's workgroup size when set.
    std::optional<std::array<std::uint32_t, 3>> workgroup;
    /// ULP budget for the f32 transcendentals (exp log sin cos tanh).
    std::uint32_t ulp_budget = 4;
    /// Worker threads for host backends (0: the backend's default).
    std::uint32_t threads = 0;
    /// Steps allowed per dispatch in interpreters (0: unlimited): each
    /// statement execution is one, and so is each invocation's start.
    std::uint64_t step_budget = 0;
};

/// Where the time of a timed call went, in nanoseconds.
struct timings {
    std::uint64_t wall_ns = 0;     ///< the whole call, host clock
    std::uint64_t device_ns = 0;   ///< execution on the device (host backends: same as wall)
    std::uint64_t enqueue_ns = 0;  ///< submitting the work
    std::uint64_t wait_ns = 0;     ///< waiting for completion
};

/// A value with the timings of the call that produced it.
template <class T>
struct timed {
    T value;
    timings time;
};

/// Cache hit/miss counters of a backend's compiled-program cache.
struct pipeline_cache_stats {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t entries = 0;
};

/// Named counters of a backend (`dispatches`, `bytes_uploaded`, ...).
using metric_snapshot = std::map<std::string, std::uint64_t>;

/// A ranged read of a resident resource: `length` bytes from `offset`.
template <class Resource>
struct read_range {
    Resource resource;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
};

/// A ranged write into a resident resource: `data` at byte `offset`.
template <class Resource>
struct write_range {
    Resource resource;
    std::uint64_t offset = 0;
    bytes_view data;
};

/// One upload of a batch: the whole resource's bytes.
template <class Resource>
struct upload_op {
    Resource resource;
    bytes_view data;
};

/// One step of a resident sequence: a program over resources (one per
/// non-workgroup buffer, in declaration order) with its configuration.
template <class Resource>
struct resident_step {
    const ir::program* program = nullptr;
    std::vector<Resource> resources;
    dispatch_config config{};
};

} // namespace vyre
