#include "xlite/runtime/npy_io.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/file_io.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/runtime/little_endian.h"
#include "xlite/runtime/zip_archive.h"

namespace xlite::runtime {
namespace {

using PT = PrimitiveType;

constexpr std::string_view kNpyMagic = "\x93NUMPY";

// The numpy form of every array type: its dtype code (without the byte-order
// mark) when numpy has the type, and its name, ml_dtypes' for the types
// numpy lacks. np.dtype() knows ml_dtypes' names once ml_dtypes is imported.
struct NumpyForm {
  PT type;
  std::string_view code;
  std::string_view name;
};
constexpr NumpyForm kNumpyForms[] = {
    {PT::PRED, "b1", "bool"},
    {PT::S8, "i1", "int8"},
    {PT::S16, "i2", "int16"},
    {PT::S32, "i4", "int32"},
    {PT::S64, "i8", "int64"},
    {PT::U8, "u1", "uint8"},
    {PT::U16, "u2", "uint16"},
    {PT::U32, "u4", "uint32"},
    {PT::U64, "u8", "uint64"},
    {PT::F16, "f2", "float16"},
    {PT::F32, "f4", "float32"},
    {PT::F64, "f8", "float64"},
    {PT::C64, "c8", "complex64"},
    {PT::C128, "c16", "complex128"},
    {PT::BF16, "", "bfloat16"},
    {PT::F8E5M2, "", "float8_e5m2"},
    {PT::F8E4M3, "", "float8_e4m3"},
    {PT::F8E4M3FN, "", "float8_e4m3fn"},
    {PT::F8E4M3B11FNUZ, "", "float8_e4m3b11fnuz"},
    {PT::F8E3M4, "", "float8_e3m4"},
    {PT::F8E5M2FNUZ, "", "float8_e5m2fnuz"},
    {PT::F8E4M3FNUZ, "", "float8_e4m3fnuz"},
    {PT::F8E8M0FNU, "", "float8_e8m0fnu"},
    {PT::F4E2M1FN, "", "float4_e2m1fn"},
    {PT::S1, "", "int1"},
    {PT::S2, "", "int2"},
    {PT::S4, "", "int4"},
    {PT::U1, "", "uint1"},
    {PT::U2, "", "uint2"},
    {PT::U4, "", "uint4"},
};

const NumpyForm* FormOf(PT t) {
  for (const NumpyForm& form : kNumpyForms) {
    if (form.type == t) return &form;
  }
  return nullptr;
}

std::string_view DescrCode(PT t) {
  const NumpyForm* form = FormOf(t);
  return form == nullptr ? "" : form->code;
}

bool HasNumpyType(PT t) { return !DescrCode(t).empty(); }

// The type a descr without its byte-order mark names: a numpy code, '?' for
// bool, an ml_dtypes name, or 'f1', the code ml_dtypes gives float8_e5m2.
std::optional<PT> TypeFromDescr(std::string_view descr) {
  if (descr == "?") return PT::PRED;
  if (descr == "f1") return PT::F8E5M2;
  for (const NumpyForm& form : kNumpyForms) {
    if ((!form.code.empty() && descr == form.code) || descr == form.name) return form.type;
  }
  return std::nullopt;
}

// The element bytes of numpy's void descr 'V<n>' without its byte-order mark.
std::optional<int64_t> VoidBytes(std::string_view descr) {
  int64_t bytes = 0;
  if (descr.size() < 2 || descr[0] != 'V' || !absl::SimpleAtoi(AsAbsl(descr.substr(1)), &bytes)) {
    return std::nullopt;
  }
  return bytes;
}

// The unsigned integer `bytes` wide, which holds untyped elements.
std::optional<PT> UnsignedOfBytes(int64_t bytes) {
  for (PT t : {PT::U8, PT::U16, PT::U32, PT::U64}) {
    if (StorageBytes(t) == bytes) return t;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- .npy header
//
// The header is a Python dict literal with exactly the keys descr,
// fortran_order and shape; this reads that subset of Python syntax.

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  absl::Status Parse(NpyHeader* header) {
    bool seen_descr = false, seen_order = false, seen_shape = false;
    SkipSpace();
    if (!Consume('{')) return Error("expected '{'");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      std::string key;
      XLITE_RETURN_IF_ERROR(ParseString(&key));
      SkipSpace();
      if (!Consume(':')) return Error("expected ':' after a key");
      SkipSpace();
      if (key == "descr") {
        if (Peek() == '[') return Unimplemented("structured dtypes in .npy files");
        XLITE_RETURN_IF_ERROR(ParseString(&header->descr));
        seen_descr = true;
      } else if (key == "fortran_order") {
        XLITE_RETURN_IF_ERROR(ParseBool(&header->fortran_order));
        seen_order = true;
      } else if (key == "shape") {
        XLITE_RETURN_IF_ERROR(ParseShape(&header->shape));
        seen_shape = true;
      } else {
        return Error(absl::StrCat("unexpected key '", key, "'"));
      }
      SkipSpace();
      if (Consume(',')) continue;
      SkipSpace();
      if (Consume('}')) break;
      return Error("expected ',' or '}'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("trailing text after the dict");
    if (!seen_descr || !seen_order || !seen_shape) {
      return Error("the dict needs the keys 'descr', 'fortran_order' and 'shape'");
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Error(std::string_view what) const {
    return InvalidArgument("bad .npy header: ", AsAbsl(what), " at offset ", pos_);
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool Consume(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  absl::Status ParseString(std::string* out) {
    char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a string");
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return Error("unterminated string");
    out->assign(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return absl::OkStatus();
  }
  absl::Status ParseBool(bool* out) {
    for (auto [word, value] :
         {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        *out = value;
        return absl::OkStatus();
      }
    }
    return Error("expected True or False");
  }
  absl::Status ParseShape(std::vector<int64_t>* dims) {
    if (!Consume('(')) return Error("expected a shape tuple");
    while (true) {
      SkipSpace();
      if (Consume(')')) return absl::OkStatus();
      int64_t value = 0;
      size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (value > (std::numeric_limits<int64_t>::max() - 9) / 10) {
          return Error("dimension too large");
        }
        value = value * 10 + (text_[pos_++] - '0');
      }
      if (pos_ == start) return Error("expected a dimension");
      // A trailing `L` is what Python 2 wrote for long integers.
      Consume('L');
      dims->push_back(value);
      SkipSpace();
      if (Consume(',')) continue;
      if (Consume(')')) return absl::OkStatus();
      return Error("expected ',' or ')' in the shape");
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Element count of `dims`, or an error when it overflows what memory holds.
absl::StatusOr<int64_t> CheckedCount(absl::Span<const int64_t> dims, int64_t element_bytes) {
  int64_t count = 1;
  constexpr int64_t kLimit = int64_t{1} << 48;
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("negative dimension ", d);
    if (d != 0 && count > kLimit / d) return InvalidArgument("array too large");
    count *= d;
  }
  if (count > kLimit / element_bytes) return InvalidArgument("array too large");
  return count;
}

void ReverseEachElement(std::string* data, size_t element_bytes, size_t part_bytes) {
  // Complex numbers swap each component on its own.
  for (size_t i = 0; i + element_bytes <= data->size(); i += element_bytes) {
    for (size_t p = 0; p < element_bytes; p += part_bytes) {
      std::reverse(data->begin() + i + p, data->begin() + i + p + part_bytes);
    }
  }
}

// Reorders column-major element data into row-major order.
std::string FortranToRowMajor(std::string_view data, absl::Span<const int64_t> dims,
                              size_t element_bytes) {
  std::string out(data.size(), '\0');
  size_t rank = dims.size();
  std::vector<int64_t> index(rank, 0), col_strides(rank, 1);
  for (size_t i = 1; i < rank; ++i) col_strides[i] = col_strides[i - 1] * dims[i - 1];
  size_t count = data.size() / element_bytes;
  for (size_t r = 0; r < count; ++r) {
    int64_t col = 0;
    for (size_t i = 0; i < rank; ++i) col += index[i] * col_strides[i];
    std::memcpy(&out[r * element_bytes], &data[col * element_bytes], element_bytes);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < dims[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace

PrimitiveType NpyStorageType(PrimitiveType type) {
  if (HasNumpyType(type)) return type;
  return UnsignedOfBytes(StorageBytes(type)).value_or(PT::U64);
}

std::string_view NumpyTypeName(PrimitiveType type) {
  const NumpyForm* form = FormOf(type);
  return form == nullptr ? PrimitiveTypeName(type) : form->name;
}

namespace {

std::string DescribeDims(std::string_view dtype, const Shape& shape) {
  return absl::StrCat(AsAbsl(dtype), "[", absl::StrJoin(shape.dimensions(), ","), "]");
}

}  // namespace

std::string DescribeArray(const Literal& array) {
  return DescribeDims(NumpyTypeName(array.shape().element_type()), array.shape());
}

std::string DescribeArray(const NpyArray& array) {
  if (!array.untyped) return DescribeArray(array.value);
  const Shape& shape = array.value.shape();
  return DescribeDims(absl::StrCat("void", BitWidth(shape.element_type())), shape);
}

namespace {

absl::Status Prefixed(std::string_view prefix, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(AsAbsl(prefix), ": ", status.message()));
}

// ParseNpy without the file name in its errors.
absl::StatusOr<NpyArray> ParseNpyBytes(std::string_view bytes) {
  auto fail = [](const absl::Status& status) { return status; };
  if (bytes.size() < 10 || bytes.substr(0, kNpyMagic.size()) != kNpyMagic) {
    return fail(InvalidArgument("not a .npy file (bad magic)"));
  }
  uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len, header_start;
  if (major == 1) {
    header_len = LoadLE<uint16_t>(bytes, 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return fail(InvalidArgument("truncated .npy header"));
    header_len = LoadLE<uint32_t>(bytes, 8);
    header_start = 12;
  } else {
    return fail(Unimplemented(".npy format version ", major));
  }
  if (!Fits(bytes, header_start, header_len)) {
    return fail(InvalidArgument("truncated .npy header (", header_len, " bytes announced, ",
                                bytes.size() - header_start, " present)"));
  }
  NpyHeader header;
  absl::Status parsed = HeaderParser(bytes.substr(header_start, header_len)).Parse(&header);
  if (!parsed.ok()) return fail(parsed);
  std::string_view descr = header.descr;
  char order = descr.empty() ? '\0' : descr[0];
  if (order == '<' || order == '>' || order == '|' || order == '=') descr.remove_prefix(1);
  std::optional<PT> type = TypeFromDescr(descr);
  std::optional<int64_t> void_bytes = VoidBytes(descr);
  if (void_bytes) type = UnsignedOfBytes(*void_bytes);
  if (!type && void_bytes) {
    return fail(Unimplemented("numpy dtype '", header.descr, "' (untyped elements of ", *void_bytes,
                              " bytes; HLO types have 1, 2, 4 or 8)"));
  }
  if (!type) return fail(Unimplemented("numpy dtype '", header.descr, "'"));
  int64_t element_bytes = StorageBytes(*type);
  absl::StatusOr<int64_t> count = CheckedCount(header.shape, element_bytes);
  if (!count.ok()) return fail(count.status());
  std::string_view data = bytes.substr(header_start + header_len);
  uint64_t expected = static_cast<uint64_t>(*count * element_bytes);
  if (data.size() != expected) {
    return fail(
        InvalidArgument(data.size() < expected ? "truncated .npy data" : "wrong .npy data size",
                        ": shape needs ", expected, " bytes, file has ", data.size()));
  }
  std::string owned;
  if (header.fortran_order && header.shape.size() > 1) {
    owned = FortranToRowMajor(data, header.shape, element_bytes);
    data = owned;
  }
  if (order == '>' && element_bytes > 1) {
    if (owned.empty()) owned.assign(data);
    ReverseEachElement(&owned, element_bytes, IsComplex(*type) ? element_bytes / 2 : element_bytes);
    data = owned;
  }
  Literal literal(Shape(*type, header.shape));
  uint8_t* out = literal.mutable_raw_data().data();
  if (!data.empty()) std::memcpy(out, data.data(), data.size());
  if (*type == PT::PRED) {
    for (int64_t i = 0; i < *count; ++i) out[i] = out[i] != 0 ? 1 : 0;
  }
  return NpyArray{std::move(literal), void_bytes.has_value()};
}

}  // namespace

absl::StatusOr<NpyArray> ParseNpy(std::string_view bytes, std::string_view name) {
  absl::StatusOr<NpyArray> array = ParseNpyBytes(bytes);
  if (!array.ok()) return Prefixed(name, array.status());
  return array;
}

absl::StatusOr<std::string> SerializeNpy(const Literal& array) {
  const Shape& shape = array.shape();
  if (!shape.IsArray()) {
    return InvalidArgument("only arrays can be written to .npy, got ", shape.ToString());
  }
  PT type = shape.element_type();
  std::string dims;
  for (int64_t d : shape.dimensions()) absl::StrAppend(&dims, d, ", ");
  if (shape.rank() > 1) dims.resize(dims.size() - 2);
  if (shape.rank() == 1) dims.resize(dims.size() - 1);
  // numpy's own types with their byte order; ml_dtypes' by name, so that
  // np.load gives back e.g. a bfloat16 array where ml_dtypes is imported
  // (numpy would save those as untyped '<V2', which load as void).
  std::string descr = HasNumpyType(type) ? absl::StrCat(StorageBytes(type) == 1 ? "|" : "<",
                                                        AsAbsl(DescrCode(type)))
                                         : std::string(NumpyTypeName(type));
  std::string dict =
      absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (", dims, "), }");
  // Pad with spaces and a newline so the data starts 64-byte aligned.
  size_t prefix = 10;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  int major = 1;
  if (total - prefix > 0xffff) {
    prefix = 12;
    total = (prefix + dict.size() + 1 + 63) / 64 * 64;
    major = 2;
  }
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict.push_back('\n');
  std::string out(kNpyMagic);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  if (major == 1) {
    AppendLE<uint16_t>(&out, static_cast<uint16_t>(dict.size()));
  } else {
    AppendLE<uint32_t>(&out, static_cast<uint32_t>(dict.size()));
  }
  out += dict;
  absl::Span<const uint8_t> raw = array.raw_data();
  out.append(reinterpret_cast<const char*>(raw.data()), raw.size());
  return out;
}

absl::StatusOr<std::vector<NamedArray>> ParseNpz(std::string_view bytes, std::string_view name) {
  auto fail = [&](const absl::Status& status, std::string_view member = "") {
    return Prefixed(member.empty() ? std::string(name)
                                   : absl::StrCat(AsAbsl(name), ": member ", AsAbsl(member)),
                    status);
  };
  absl::StatusOr<std::vector<ZipEntry>> entries = ReadZipDirectory(bytes);
  if (!entries.ok()) return fail(entries.status());
  std::vector<NamedArray> arrays;
  for (const ZipEntry& entry : *entries) {
    std::string_view member = entry.name;
    if (member.size() < 4 || member.substr(member.size() - 4) != ".npy") {
      return fail(InvalidArgument("not a .npy array (an .npz holds only .npy members)"), member);
    }
    absl::StatusOr<std::string> content = ReadZipMember(bytes, entry);
    if (!content.ok()) return fail(content.status(), member);
    absl::StatusOr<NpyArray> array = ParseNpyBytes(*content);
    if (!array.ok()) return fail(array.status(), member);
    arrays.push_back({std::string(member.substr(0, member.size() - 4)), *std::move(array)});
  }
  return arrays;
}

absl::StatusOr<std::string> SerializeNpz(absl::Span<const NamedArray> arrays,
                                         const NpzWriteOptions& options) {
  std::vector<std::string> contents;
  for (const NamedArray& array : arrays) {
    XLITE_ASSIGN_OR_RETURN(std::string content, SerializeNpy(array.array.value));
    contents.push_back(std::move(content));
  }
  std::vector<ZipMemberToWrite> members;
  for (size_t i = 0; i < arrays.size(); ++i) {
    members.push_back({absl::StrCat(arrays[i].name, ".npy"), contents[i]});
  }
  return WriteStoredZip(members, options.force_zip64);
}

absl::StatusOr<NpyArray> ReadNpyFile(const std::string& path) {
  XLITE_ASSIGN_OR_RETURN(std::string bytes, ReadBinaryFile(path));
  return ParseNpy(bytes, path);
}

absl::StatusOr<std::vector<NamedArray>> ReadNpzFile(const std::string& path) {
  XLITE_ASSIGN_OR_RETURN(std::string bytes, ReadBinaryFile(path));
  return ParseNpz(bytes, path);
}

namespace {

// `bits` (an unsigned array of `want`'s storage width) as an array of `want`;
// sub-byte and pred elements must fit their width.
absl::StatusOr<Literal> Reinterpret(const Literal& bits, PT want, std::string_view what) {
  Literal out(Shape(want, bits.shape().dimensions()));
  absl::Span<const uint8_t> in = bits.raw_data();
  int width = want == PT::PRED ? 1 : BitWidth(want);
  for (size_t i = 0; width < 8 && i < in.size(); ++i) {
    if (in[i] >> width) {
      return InvalidArgument(AsAbsl(what), ": element ", i, " is ", int{in[i]},
                             ", which does not fit the ", width, "-bit raw form of ",
                             AsAbsl(PrimitiveTypeName(want)));
    }
  }
  if (!in.empty()) std::memcpy(out.mutable_raw_data().data(), in.data(), in.size());
  return out;
}

// What the parameter expects, in HLO and numpy terms: "bf16[4] (bfloat16)".
std::string DescribeExpected(const Shape& expected) {
  return absl::StrCat(expected.ToString(false), " (",
                      AsAbsl(NumpyTypeName(expected.element_type())), ")");
}

}  // namespace

absl::StatusOr<Literal> AdaptArray(const NpyArray& file, const Shape& expected,
                                   std::string_view what) {
  if (!expected.IsArray()) {
    return Unimplemented(AsAbsl(what), ": parameters of shape ", expected.ToString(),
                         " from files (use --random)");
  }
  const Literal& array = file.value;
  PT want = expected.element_type();
  PT got = array.shape().element_type();
  if (array.shape().dimensions() != expected.dimensions()) {
    return InvalidArgument(AsAbsl(what), ": got ", DescribeArray(file), ", parameter expects ",
                           DescribeExpected(expected), " (dimensions differ)");
  }
  if (file.untyped) {
    if (StorageBytes(got) == StorageBytes(want)) return Reinterpret(array, want, what);
    return InvalidArgument(AsAbsl(what), ": got ", DescribeArray(file), ", parameter expects ",
                           DescribeExpected(expected), " (the file's untyped ", StorageBytes(got),
                           "-byte elements cannot be ", AsAbsl(PrimitiveTypeName(want)),
                           ", which has ", StorageBytes(want), ")");
  }
  if (got == want) return array;
  if (!HasNumpyType(want) && got == NpyStorageType(want)) return Reinterpret(array, want, what);
  if (!HasNumpyType(want) && IsFloat(want) && IsFloat(got) && BitWidth(got) > BitWidth(want)) {
    return array.Convert(want);
  }
  std::string hint;
  if (!HasNumpyType(want)) {
    hint = absl::StrCat(" (", AsAbsl(PrimitiveTypeName(want)), " is read as ml_dtypes' ",
                        AsAbsl(NumpyTypeName(want)), ", numpy's untyped void of its width, ",
                        AsAbsl(NumpyTypeName(NpyStorageType(want))), " raw bits",
                        IsFloat(want) ? " or a wider float array" : "", ")");
  }
  return InvalidArgument(AsAbsl(what), ": got ", DescribeArray(file), ", parameter expects ",
                         DescribeExpected(expected), " (element type differs)", hint);
}

}  // namespace xlite::runtime
