// Whole-file reads and writes with errors that name the path and the cause:
// the project's one way to touch a file's bytes (inputs, outputs, reports).
// Reads of pipes, devices and other streams stop at kMaxStreamedBytes (a
// regular file is read at its size); writes are atomic: the bytes go to a
// temporary file beside the target, renamed over it only once complete, so a
// failed write leaves the old file as it was.
#ifndef XLITE_BASE_FILE_IO_H_
#define XLITE_BASE_FILE_IO_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace xlite {

inline constexpr int64_t kMaxStreamedBytes = int64_t{1} << 30;

absl::StatusOr<std::string> ReadBinaryFile(const std::string& path);
// Reads an open descriptor that is not a regular file (stdin, a FIFO, a
// device) to its end, refusing more than `limit` bytes; its errors do not
// name the stream (the caller prefixes the name).
absl::StatusOr<std::string> ReadStream(int fd, int64_t limit = kMaxStreamedBytes);
// Creates or replaces `path`. A target that is not a regular file (a FIFO,
// /dev/stdout, /dev/null) is written in place; a symbolic link's target is
// replaced, not the link.
absl::Status WriteBinaryFile(const std::string& path, std::string_view bytes);

}  // namespace xlite

#endif  // XLITE_BASE_FILE_IO_H_
