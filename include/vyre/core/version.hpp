#pragma once
/// \file vyre/core/version.hpp
/// The version of this release (the project's libraries and tools share
/// it). The build checks that it equals the meson project's version.

/// The version as a string literal, for preprocessor use.
#define VYRE_VERSION_STRING "0.1.0"

namespace vyre {
/// The version of this release.
inline constexpr const char* version = VYRE_VERSION_STRING;
} // namespace vyre
