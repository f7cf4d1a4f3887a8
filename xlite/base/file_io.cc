#include "xlite/base/file_io.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "xlite/base/status.h"

namespace xlite {
namespace {

absl::Status Errno(std::string_view what, std::string_view path, int error) {
  return InvalidArgument(path, ": ", what, ": ", std::strerror(error));
}

// Writes all of `bytes` to `fd`; the errno of the failure, or 0.
int WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return 0;
}

absl::Status WriteInPlace(const std::string& path, std::string_view bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open file", path, errno);
  int error = WriteAll(fd, bytes);
  if (close(fd) != 0 && error == 0) error = errno;
  if (error != 0) return Errno("cannot write file", path, error);
  return absl::OkStatus();
}

// The permissions a newly created file gets: 0666 less the umask.
mode_t CreationMode() {
  mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

}  // namespace

absl::StatusOr<std::string> ReadStream(int fd, int64_t limit) {
  std::string text;
  char buffer[1 << 16];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return InvalidArgument("cannot read: ", std::strerror(errno));
    if (n == 0) return text;
    if (static_cast<int64_t>(text.size()) + n > limit) {
      return InvalidArgument("more than ", limit >> 20,
                             " MiB from a stream (not a regular file); write it to a file first");
    }
    text.append(buffer, static_cast<size_t>(n));
  }
}

absl::StatusOr<std::string> ReadBinaryFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open file", path, errno);
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    absl::StatusOr<std::string> text = ReadStream(fd);
    close(fd);
    if (!text.ok()) return InvalidArgument(path, ": ", text.status().message());
    return text;
  }
  std::string text;
  text.resize(static_cast<size_t>(info.st_size));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      close(fd);
      return Errno("cannot read file", path, error);
    }
    if (n == 0) break;  // the file shrank while read
    done += static_cast<size_t>(n);
  }
  close(fd);
  text.resize(done);
  return text;
}

absl::Status WriteBinaryFile(const std::string& path, std::string_view bytes) {
  std::string target = path;
  struct stat info;
  if (lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
    char resolved[PATH_MAX];
    if (realpath(path.c_str(), resolved) != nullptr) target = resolved;
  }
  bool exists = stat(target.c_str(), &info) == 0;
  if (exists && !S_ISREG(info.st_mode)) return WriteInPlace(target, bytes);
  // mkstemp in the target's folder, so that rename(2) replaces it atomically.
  std::string temporary = target + ".tmp.XXXXXX";
  int fd = mkstemp(temporary.data());
  if (fd < 0) return Errno("cannot create file", path, errno);
  fchmod(fd, exists ? (info.st_mode & 07777) : CreationMode());
  int error = WriteAll(fd, bytes);
  if (close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && rename(temporary.c_str(), target.c_str()) != 0) error = errno;
  if (error != 0) {
    unlink(temporary.c_str());
    return Errno("cannot write file", path, error);
  }
  return absl::OkStatus();
}

}  // namespace xlite
