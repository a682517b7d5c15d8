#pragma once
// How the CLIs end: what they wrote on stdout must have reached it. A
// full disk (`> /dev/full`) or a closed stdout (`>&-`) makes the writes
// fail quietly inside the stream; without this check the command would
// exit 0 with its output lost.

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string_view>

namespace cli_detail {

/// Flushes stdout and returns `status`, or, when a write to stdout failed,
/// prints `TOOL: cannot write the output: REASON` on stderr and returns 2
/// (unless `status` already reports a failure, which it keeps).
inline int stdout_status(std::string_view tool, int status) {
    errno = 0;
    std::cout.flush();
    if (std::cout) return status;
    const int err = errno;
    std::cerr << tool << ": cannot write the output" << (err ? ": " : "") << (err ? std::strerror(err) : "") << "\n";
    return status != 0 ? status : 2;
}

} // namespace cli_detail
