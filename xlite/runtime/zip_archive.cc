#include "xlite/runtime/zip_archive.h"

#include <zlib.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xlite/base/status.h"
#include "xlite/runtime/little_endian.h"

namespace xlite::runtime {
namespace {

constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kEndSize = 22;
constexpr size_t kZip64EndSize = 56;
constexpr size_t kZip64LocatorSize = 20;
constexpr uint32_t k32Max = 0xffffffffu;
constexpr uint16_t kZip64ExtraId = 0x0001;

// Replaces the 32-bit fields that say "see zip64" with the values of the
// zip64 extra field, which holds only those, in this order.
absl::Status ApplyZip64Extra(std::string_view extra, ZipEntry* entry, bool offset_in_extra) {
  std::vector<uint64_t*> wanted;
  if (entry->size == k32Max) wanted.push_back(&entry->size);
  if (entry->compressed_size == k32Max) wanted.push_back(&entry->compressed_size);
  if (offset_in_extra && entry->local_offset == k32Max) wanted.push_back(&entry->local_offset);
  if (wanted.empty()) return absl::OkStatus();
  size_t pos = 0;
  while (pos + 4 <= extra.size()) {
    uint16_t id = LoadLE<uint16_t>(extra, pos);
    uint16_t size = LoadLE<uint16_t>(extra, pos + 2);
    if (!Fits(extra, pos + 4, size)) break;
    if (id == kZip64ExtraId) {
      if (size < 8 * wanted.size()) return InvalidArgument("zip64 extra field too short");
      for (size_t i = 0; i < wanted.size(); ++i) {
        *wanted[i] = LoadLE<uint64_t>(extra, pos + 4 + 8 * i);
      }
      return absl::OkStatus();
    }
    pos += 4 + size;
  }
  return InvalidArgument("member ", entry->name, " needs a zip64 extra field and has none");
}

absl::StatusOr<std::string> Inflate(std::string_view in, uint64_t size) {
  // Deflate cannot expand data more than about 1032 times; a bigger claim is
  // a corrupt header, refused before allocating for it.
  if (size > in.size() * 1032 + 1024) return InvalidArgument("implausible uncompressed size");
  std::string out(size, '\0');
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return InvalidArgument("zlib init failed");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  stream.avail_in = static_cast<uInt>(in.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&stream, Z_FINISH);
  uint64_t produced = stream.total_out;
  inflateEnd(&stream);
  if (rc != Z_STREAM_END || produced != size) {
    return InvalidArgument("corrupt deflate data (",
                           rc == Z_STREAM_END ? "wrong size" : "zlib error ",
                           rc == Z_STREAM_END ? "" : absl::StrCat(rc), ")");
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<ZipEntry>> ReadZipDirectory(std::string_view bytes) {
  if (bytes.size() < kEndSize) return InvalidArgument("too short for a zip archive");
  // The end record sits at the end, before a comment of at most 64 KiB.
  size_t end = std::string_view::npos;
  size_t lowest = bytes.size() > kEndSize + 0xffff ? bytes.size() - kEndSize - 0xffff : 0;
  for (size_t pos = bytes.size() - kEndSize + 1; pos-- > lowest;) {
    if (LoadLE<uint32_t>(bytes, pos) == kEndSig) {
      end = pos;
      break;
    }
  }
  if (end == std::string_view::npos) {
    return InvalidArgument("not a zip archive (no end of central directory record)");
  }
  if (LoadLE<uint16_t>(bytes, end + 4) != 0 || LoadLE<uint16_t>(bytes, end + 6) != 0) {
    return Unimplemented("multi-disk zip archives");
  }
  uint64_t count = LoadLE<uint16_t>(bytes, end + 10);
  uint64_t dir_size = LoadLE<uint32_t>(bytes, end + 12);
  uint64_t dir_offset = LoadLE<uint32_t>(bytes, end + 16);
  if (end >= kZip64LocatorSize &&
      LoadLE<uint32_t>(bytes, end - kZip64LocatorSize) == kZip64LocatorSig) {
    uint64_t record = LoadLE<uint64_t>(bytes, end - kZip64LocatorSize + 8);
    if (!Fits(bytes, record, kZip64EndSize) || LoadLE<uint32_t>(bytes, record) != kZip64EndSig) {
      return InvalidArgument("bad zip64 end of central directory record");
    }
    count = LoadLE<uint64_t>(bytes, record + 32);
    dir_size = LoadLE<uint64_t>(bytes, record + 40);
    dir_offset = LoadLE<uint64_t>(bytes, record + 48);
  }
  if (!Fits(bytes, dir_offset, dir_size)) {
    return InvalidArgument("the zip central directory lies outside the file");
  }
  if (count > dir_size / kCentralHeaderSize) {
    return InvalidArgument("the zip central directory is too small for ", count, " entries");
  }
  std::vector<ZipEntry> entries;
  uint64_t pos = dir_offset;
  for (uint64_t i = 0; i < count; ++i) {
    if (!Fits(bytes, pos, kCentralHeaderSize) ||
        LoadLE<uint32_t>(bytes, pos) != kCentralHeaderSig) {
      return InvalidArgument("bad zip central directory entry ", i);
    }
    ZipEntry entry;
    entry.flags = LoadLE<uint16_t>(bytes, pos + 8);
    entry.method = LoadLE<uint16_t>(bytes, pos + 10);
    entry.crc = LoadLE<uint32_t>(bytes, pos + 16);
    entry.compressed_size = LoadLE<uint32_t>(bytes, pos + 20);
    entry.size = LoadLE<uint32_t>(bytes, pos + 24);
    uint16_t name_len = LoadLE<uint16_t>(bytes, pos + 28);
    uint16_t extra_len = LoadLE<uint16_t>(bytes, pos + 30);
    uint16_t comment_len = LoadLE<uint16_t>(bytes, pos + 32);
    entry.local_offset = LoadLE<uint32_t>(bytes, pos + 42);
    uint64_t variable = uint64_t{name_len} + extra_len + comment_len;
    if (!Fits(bytes, pos + kCentralHeaderSize, variable)) {
      return InvalidArgument("zip central directory entry ", i, " runs past the file");
    }
    entry.name.assign(bytes.substr(pos + kCentralHeaderSize, name_len));
    XLITE_RETURN_IF_ERROR(ApplyZip64Extra(
        bytes.substr(pos + kCentralHeaderSize + name_len, extra_len), &entry, true));
    entries.push_back(std::move(entry));
    pos += kCentralHeaderSize + variable;
  }
  return entries;
}

absl::StatusOr<std::string> ReadZipMember(std::string_view bytes, const ZipEntry& entry) {
  if (entry.flags & 1) return Unimplemented("encrypted zip members");
  uint64_t pos = entry.local_offset;
  if (!Fits(bytes, pos, kLocalHeaderSize) || LoadLE<uint32_t>(bytes, pos) != kLocalHeaderSig) {
    return InvalidArgument("bad local header");
  }
  uint64_t data = pos + kLocalHeaderSize + LoadLE<uint16_t>(bytes, pos + 26) +
                  LoadLE<uint16_t>(bytes, pos + 28);
  if (!Fits(bytes, data, entry.compressed_size)) return InvalidArgument("data runs past the file");
  std::string_view raw = bytes.substr(data, entry.compressed_size);
  std::string content;
  if (entry.method == 0) {
    if (entry.compressed_size != entry.size) {
      return InvalidArgument("stored member with different sizes");
    }
    content.assign(raw);
  } else if (entry.method == 8) {
    XLITE_ASSIGN_OR_RETURN(content, Inflate(raw, entry.size));
  } else {
    return Unimplemented("zip compression method ", entry.method,
                         " (numpy writes stored or deflated members)");
  }
  uLong crc =
      crc32(0L, reinterpret_cast<const Bytef*>(content.data()), static_cast<uInt>(content.size()));
  if (static_cast<uint32_t>(crc) != entry.crc) return InvalidArgument("CRC mismatch");
  return content;
}

absl::StatusOr<std::string> WriteStoredZip(absl::Span<const ZipMemberToWrite> members,
                                           bool force_zip64) {
  std::string out, directory;
  for (const ZipMemberToWrite& member : members) {
    const std::string& name = member.name;
    std::string_view content = member.content;
    if (name.size() > 0xffff) return InvalidArgument("member name too long");
    uint64_t offset = out.size();
    uint64_t size = content.size();
    bool zip64 = force_zip64 || size >= k32Max || offset >= k32Max;
    uint32_t crc = static_cast<uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(content.data()), static_cast<uInt>(0)));
    // crc32 takes at most 4 GiB a call.
    for (uint64_t done = 0; done < size;) {
      uint64_t chunk = std::min<uint64_t>(size - done, 1u << 30);
      crc = static_cast<uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(content.data() + done),
                                        static_cast<uInt>(chunk)));
      done += chunk;
    }
    uint16_t version = zip64 ? 45 : 20;
    uint32_t size32 = zip64 ? k32Max : static_cast<uint32_t>(size);
    // Local header: sizes in a zip64 extra field when zip64.
    AppendLE<uint32_t>(&out, kLocalHeaderSig);
    AppendLE<uint16_t>(&out, version);
    AppendLE<uint16_t>(&out, 0);     // flags
    AppendLE<uint16_t>(&out, 0);     // method: stored
    AppendLE<uint16_t>(&out, 0);     // time
    AppendLE<uint16_t>(&out, 0x21);  // date: 1980-01-01
    AppendLE<uint32_t>(&out, crc);
    AppendLE<uint32_t>(&out, size32);  // compressed
    AppendLE<uint32_t>(&out, size32);
    AppendLE<uint16_t>(&out, static_cast<uint16_t>(name.size()));
    AppendLE<uint16_t>(&out, zip64 ? 20 : 0);
    out += name;
    if (zip64) {
      AppendLE<uint16_t>(&out, kZip64ExtraId);
      AppendLE<uint16_t>(&out, 16);
      AppendLE<uint64_t>(&out, size);
      AppendLE<uint64_t>(&out, size);
    }
    out += content;
    // Central directory entry.
    AppendLE<uint32_t>(&directory, kCentralHeaderSig);
    AppendLE<uint16_t>(&directory, version);  // made by
    AppendLE<uint16_t>(&directory, version);  // needed
    AppendLE<uint16_t>(&directory, 0);
    AppendLE<uint16_t>(&directory, 0);
    AppendLE<uint16_t>(&directory, 0);
    AppendLE<uint16_t>(&directory, 0x21);
    AppendLE<uint32_t>(&directory, crc);
    AppendLE<uint32_t>(&directory, size32);
    AppendLE<uint32_t>(&directory, size32);
    AppendLE<uint16_t>(&directory, static_cast<uint16_t>(name.size()));
    AppendLE<uint16_t>(&directory, zip64 ? 28 : 0);
    AppendLE<uint16_t>(&directory, 0);  // comment
    AppendLE<uint16_t>(&directory, 0);  // disk
    AppendLE<uint16_t>(&directory, 0);  // internal attributes
    AppendLE<uint32_t>(&directory, 0);  // external attributes
    AppendLE<uint32_t>(&directory, zip64 ? k32Max : static_cast<uint32_t>(offset));
    directory += name;
    if (zip64) {
      AppendLE<uint16_t>(&directory, kZip64ExtraId);
      AppendLE<uint16_t>(&directory, 24);
      AppendLE<uint64_t>(&directory, size);
      AppendLE<uint64_t>(&directory, size);
      AppendLE<uint64_t>(&directory, offset);
    }
  }
  uint64_t dir_offset = out.size();
  uint64_t count = members.size();
  out += directory;
  bool zip64_end =
      force_zip64 || count >= 0xffff || dir_offset >= k32Max || directory.size() >= k32Max;
  if (zip64_end) {
    uint64_t record = out.size();
    AppendLE<uint32_t>(&out, kZip64EndSig);
    AppendLE<uint64_t>(&out, kZip64EndSize - 12);
    AppendLE<uint16_t>(&out, 45);
    AppendLE<uint16_t>(&out, 45);
    AppendLE<uint32_t>(&out, 0);
    AppendLE<uint32_t>(&out, 0);
    AppendLE<uint64_t>(&out, count);
    AppendLE<uint64_t>(&out, count);
    AppendLE<uint64_t>(&out, directory.size());
    AppendLE<uint64_t>(&out, dir_offset);
    AppendLE<uint32_t>(&out, kZip64LocatorSig);
    AppendLE<uint32_t>(&out, 0);
    AppendLE<uint64_t>(&out, record);
    AppendLE<uint32_t>(&out, 1);
  }
  AppendLE<uint32_t>(&out, kEndSig);
  AppendLE<uint16_t>(&out, 0);
  AppendLE<uint16_t>(&out, 0);
  AppendLE<uint16_t>(&out, zip64_end ? 0xffff : static_cast<uint16_t>(count));
  AppendLE<uint16_t>(&out, zip64_end ? 0xffff : static_cast<uint16_t>(count));
  AppendLE<uint32_t>(&out, zip64_end ? k32Max : static_cast<uint32_t>(directory.size()));
  AppendLE<uint32_t>(&out, zip64_end ? k32Max : static_cast<uint32_t>(dir_offset));
  AppendLE<uint16_t>(&out, 0);  // comment
  return out;
}

}  // namespace xlite::runtime
