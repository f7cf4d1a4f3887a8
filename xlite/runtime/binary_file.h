// Whole-file reads and writes with errors that name the path and the cause:
// the project's one way to touch a file's bytes (inputs, outputs, reports).
#ifndef XLITE_RUNTIME_BINARY_FILE_H_
#define XLITE_RUNTIME_BINARY_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace xlite::runtime {

absl::StatusOr<std::string> ReadBinaryFile(const std::string& path);
// Creates or truncates `path`.
absl::Status WriteBinaryFile(const std::string& path, std::string_view bytes);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_BINARY_FILE_H_
