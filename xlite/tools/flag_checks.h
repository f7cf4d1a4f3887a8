// Validators for the numeric flags of every subcommand, with plain messages
// ("must be an integer from 0 to 1024"): CLI11's own print the range of a
// double (300 digits) and accept NaN, and an unsigned option takes "-5" as
// 2^64 - 5. A failed check is a usage error (exit 2) naming the flag.
#ifndef XLITE_TOOLS_FLAG_CHECKS_H_
#define XLITE_TOOLS_FLAG_CHECKS_H_

#include <CLI/CLI.hpp>
#include <cstdint>

namespace xlite::tools {

// A decimal integer in [lo, hi].
CLI::Validator IntegerIn(int64_t lo, int64_t hi);
// A decimal integer >= 0 that fits 64 unsigned bits (seeds).
CLI::Validator UnsignedInteger();
// A finite number in (0, max_seconds] (timeouts).
CLI::Validator SecondsUpTo(double max_seconds);

// The most worker threads a backend takes (--threads).
inline constexpr int64_t kMaxThreads = 1024;
// The longest timeout a flag takes: a week.
inline constexpr double kMaxTimeoutSeconds = 7 * 24 * 3600.0;

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_FLAG_CHECKS_H_
