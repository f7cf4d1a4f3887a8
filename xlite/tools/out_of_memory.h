// The last resort against std::bad_alloc / std::length_error escaping `main`:
// commands name what they are doing (SetActivity), and main turns an escaped
// allocation failure into `error: out of memory while <activity>`, exit 1.
#ifndef XLITE_TOOLS_OUT_OF_MEMORY_H_
#define XLITE_TOOLS_OUT_OF_MEMORY_H_

#include <string_view>

namespace xlite::tools {

// Records what the process is doing, e.g. "parsing model.hlo" (truncated to
// a fixed buffer, so that reporting needs no allocation).
void SetActivity(std::string_view what);

// Prints `xlite: error: out of memory while <activity>` to stderr without
// allocating; returns the exit code to end with (1, invalid input).
int ReportOutOfMemory();

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_OUT_OF_MEMORY_H_
