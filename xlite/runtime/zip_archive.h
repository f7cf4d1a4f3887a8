// The subset of the zip format that .npz archives use: reading stored or
// deflated members (zip64 or not, CRC-checked) and writing stored members,
// with zip64 records when sizes or offsets need them.
#ifndef XLITE_RUNTIME_ZIP_ARCHIVE_H_
#define XLITE_RUNTIME_ZIP_ARCHIVE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace xlite::runtime {

// One central-directory entry, zip64 sizes and offsets already applied.
struct ZipEntry {
  std::string name;
  uint16_t flags = 0;
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  uint64_t local_offset = 0;
};

// The entries of the archive in `bytes`, in directory order.
absl::StatusOr<std::vector<ZipEntry>> ReadZipDirectory(std::string_view bytes);
// The uncompressed, CRC-checked content of one entry of that archive.
absl::StatusOr<std::string> ReadZipMember(std::string_view bytes, const ZipEntry& entry);

struct ZipMemberToWrite {
  std::string name;
  std::string_view content;
};
// An archive of stored (uncompressed) members. `force_zip64` writes zip64
// records even where sizes fit in 32 bits (numpy does so for every member).
absl::StatusOr<std::string> WriteStoredZip(absl::Span<const ZipMemberToWrite> members,
                                           bool force_zip64);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_ZIP_ARCHIVE_H_
