#include "xlite/runtime/binary_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "xlite/base/status.h"

namespace xlite::runtime {

absl::StatusOr<std::string> ReadBinaryFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return InvalidArgument(path, ": cannot open file: ", std::strerror(errno));
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) return InvalidArgument(path, ": cannot read file: ", std::strerror(errno));
  return std::move(text).str();
}

absl::Status WriteBinaryFile(const std::string& path, std::string_view bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return InvalidArgument(path, ": cannot create file: ", std::strerror(errno));
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  file.close();
  if (!file) return InvalidArgument(path, ": cannot write file: ", std::strerror(errno));
  return absl::OkStatus();
}

}  // namespace xlite::runtime
