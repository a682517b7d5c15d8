#pragma once
/// \file vyre/backend/detail/resource_checks.hpp
/// The checks every resident backend makes on handles, ranges and the
/// resources of a resident dispatch, with one wording for all of them (the
/// conformance suite matches on it).

#include <cstdint>
#include <string>

#include <vyre/core/result.hpp>
#include <vyre/ir/program.hpp>

namespace vyre::detail {

/// A handle of another backend instance was used.
inline backend_error foreign_resource_error(const char* what) {
    return backend_error(error_code::invalid_resource, std::string(what) + ": the resource belongs to another backend instance",
                         "use a resource only with the backend instance that allocated it");
}

/// A freed handle was used.
inline backend_error freed_resource_error(const char* what) {
    return backend_error(error_code::invalid_resource, std::string(what) + ": the resource was already freed",
                         "do not use a resource after free()");
}

/// Checks that [offset, offset + len) lies inside a resource of `size` bytes.
inline result<void> check_range(std::uint64_t offset, std::uint64_t len, std::uint64_t size, const char* what) {
    if (offset > size || len > size - offset)
        return fail(error_code::invalid_argument,
                    std::string(what) + ": range [" + std::to_string(offset) + ", " + std::to_string(offset + len) +
                        ") is past the end of a resource of " + std::to_string(size) + " bytes",
                    "keep offset + length within the resource's byte length");
    return {};
}

/// Checks that a whole-resource upload (`upload`, or upload `index` of
/// `upload_many` when `index` >= 0) brings exactly the resource's `size` bytes.
inline result<void> check_upload_size(std::uint64_t given, std::uint64_t size, long index = -1) {
    if (given == size) return {};
    if (index >= 0)
        return fail(error_code::invalid_argument,
                    "upload_many: upload " + std::to_string(index) + " has " + std::to_string(given) +
                        " bytes for a resource of " + std::to_string(size),
                    "upload exactly each resource's size");
    return fail(error_code::invalid_argument,
                "upload: " + std::to_string(given) + " bytes into a resource of " + std::to_string(size) + " bytes",
                "upload exactly the resource's size, or use upload_at for a range");
}

/// Checks that `download_into` storage of `given` bytes holds exactly a resource of `size` bytes.
inline result<void> check_download_size(std::uint64_t given, std::uint64_t size) {
    if (given == size) return {};
    return fail(error_code::invalid_argument,
                "download_into: a resource of " + std::to_string(size) + " bytes into " + std::to_string(given) +
                    " bytes of storage",
                "size the output to the resource, or use download_range_into");
}

/// Checks that a resident dispatch of `p` got one resource per non-workgroup buffer.
inline result<void> check_resource_count(const ir::program& p, std::size_t given, const char* what) {
    std::size_t need = 0;
    for (const auto& b : p.buffers)
        if (b.acc != ir::access::workgroup) ++need;
    if (given != need)
        return fail(error_code::invalid_argument,
                    std::string(what) + ": program '" + p.name + "' has " + std::to_string(need) +
                        " non-workgroup buffers but " + std::to_string(given) + " resources were given",
                    "pass one resource per non-workgroup buffer, in declaration order");
    return {};
}

/// The element count of buffer `d` of `p` bound to a resource of `size` bytes,
/// or the error when the size does not fit the declaration.
inline result<std::uint64_t> bound_elements(const ir::program& p, const ir::buffer_decl& d, std::uint64_t size,
                                            const char* what) {
    const std::uint64_t es = ir::size_of(d.type);
    if (size % es != 0 || (d.count != 0 && size != d.count * es))
        return fail(error_code::invalid_argument,
                    std::string(what) + ": buffer '" + d.name + "' of program '" + p.name + "' needs " +
                        (d.count ? std::to_string(d.count * es) + " bytes" : "a multiple of " + std::to_string(es) + " bytes") +
                        " but its resource has " + std::to_string(size),
                    "allocate the resource with the buffer's byte length");
    return size / es;
}

} // namespace vyre::detail
