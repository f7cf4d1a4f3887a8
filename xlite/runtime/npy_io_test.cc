#include "xlite/runtime/npy_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "xlite/base/file_io.h"
#include "xlite/text/parser.h"

namespace xlite::runtime {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using PT = PrimitiveType;

std::string Fixture(const std::string& name) {
  absl::StatusOr<std::string> bytes =
      ReadBinaryFile(XLITE_SOURCE_DIR "/xlite/runtime/testdata/" + name);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : "";
}

std::vector<double> Doubles(const Literal& l) {
  std::vector<double> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetDouble(i));
  return out;
}

Literal Read(const std::string& fixture) {
  absl::StatusOr<Literal> l = ParseNpy(Fixture(fixture), fixture);
  EXPECT_TRUE(l.ok()) << l.status();
  return l.ok() ? *std::move(l) : Literal();
}

// ------------------------------------------------------ numpy-written files

TEST(NpyIoTest, ReadsNumpyFiles) {
  Literal f32 = Read("f32_c.npy");
  EXPECT_EQ(f32.shape().ToString(false), "f32[2,3]");
  EXPECT_THAT(Doubles(f32), ElementsAre(0, 1, 2, 3, 4, 5));

  // Fortran order comes back row-major: the same logical array.
  Literal f64 = Read("f64_fortran.npy");
  EXPECT_EQ(f64.shape().ToString(false), "f64[2,3]");
  EXPECT_THAT(Doubles(f64), ElementsAre(0, 1, 2, 3, 4, 5));

  Literal i16 = Read("i16_big_endian.npy");
  EXPECT_EQ(i16.shape().ToString(false), "s16[3]");
  EXPECT_THAT(Doubles(i16), ElementsAre(1, -2, 300));

  EXPECT_THAT(Doubles(Read("bool.npy")), ElementsAre(1, 0, 1));
  EXPECT_EQ(Read("bool.npy").shape().ToString(false), "pred[3]");

  Literal c64 = Read("c64.npy");
  EXPECT_EQ(c64.shape().ToString(false), "c64[2]");
  EXPECT_EQ(c64.GetComplex(0), std::complex<double>(1, 2));
  EXPECT_EQ(c64.GetComplex(1), std::complex<double>(-3.5, 0));

  Literal u64 = Read("u64_scalar.npy");
  EXPECT_EQ(u64.shape().ToString(false), "u64[]");
  EXPECT_EQ(u64.Get<uint64_t>(0), (uint64_t{1} << 63) + 5);

  EXPECT_THAT(Doubles(Read("f16.npy")), ElementsAre(0.5, -2, 65504));
  EXPECT_EQ(Read("i8_empty.npy").shape().ToString(false), "s8[0,3]");
  EXPECT_THAT(Doubles(Read("i32_v2.npy")), ElementsAre(7, -7));
  EXPECT_THAT(Doubles(Read("i32_v3.npy")), ElementsAre(7, -7));
}

TEST(NpyIoTest, ReadsNumpyArchivesStoredAndCompressed) {
  for (const char* fixture : {"args.npz", "args_compressed.npz"}) {
    SCOPED_TRACE(fixture);
    absl::StatusOr<std::vector<NamedArray>> arrays = ParseNpz(Fixture(fixture), fixture);
    ASSERT_TRUE(arrays.ok()) << arrays.status();
    ASSERT_EQ(arrays->size(), 2u);
    EXPECT_EQ((*arrays)[0].name, "arg0");
    EXPECT_EQ((*arrays)[0].value.shape().ToString(false), "s32[2,2]");
    EXPECT_THAT(Doubles((*arrays)[0].value), ElementsAre(0, 1, 2, 3));
    EXPECT_EQ((*arrays)[1].name, "arg1");
    EXPECT_THAT(Doubles((*arrays)[1].value), ElementsAre(1.5, -1.5));
  }
}

// ---------------------------------------------------------------- round trips

// A literal of `type` whose every element has a distinct valid bit pattern.
Literal Patterned(PT type, std::vector<int64_t> dims) {
  Literal l(Shape(type, dims));
  absl::Span<uint8_t> raw = l.mutable_raw_data();
  int bits = BitWidth(type);
  for (size_t i = 0; i < raw.size(); ++i) {
    uint8_t v = static_cast<uint8_t>(i * 37 + 11);
    raw[i] = type == PT::PRED ? (i % 3 == 0) : bits < 8 ? v & ((1 << bits) - 1) : v;
  }
  return l;
}

TEST(NpyIoTest, EveryArrayTypeRoundTripsThroughNpyAndNpz) {
  std::vector<NamedArray> all;
  for (int t = 0; t < kNumPrimitiveTypes; ++t) {
    PT type = static_cast<PT>(t);
    if (!IsArrayType(type)) continue;
    SCOPED_TRACE(PrimitiveTypeName(type));
    Literal original = Patterned(type, {2, 3});
    absl::StatusOr<std::string> bytes = SerializeNpy(original);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(bytes->size() % 64, (6u * StorageBytes(type)) % 64) << "data is 64-byte aligned";
    absl::StatusOr<Literal> read = ParseNpy(*bytes, "x.npy");
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->shape().element_type(), NpyStorageType(type));
    absl::StatusOr<Literal> adapted = AdaptArray(*read, original.shape(), "input 0");
    ASSERT_TRUE(adapted.ok()) << adapted.status();
    EXPECT_TRUE(*adapted == original);
    all.push_back({std::string(PrimitiveTypeName(type)), original});
  }
  all.push_back({"scalar", Patterned(PT::F32, {})});
  all.push_back({"empty", Patterned(PT::S32, {0, 4})});
  for (bool zip64 : {false, true}) {
    SCOPED_TRACE(zip64 ? "zip64" : "plain");
    absl::StatusOr<std::string> npz = SerializeNpz(all, {.force_zip64 = zip64});
    ASSERT_TRUE(npz.ok()) << npz.status();
    absl::StatusOr<std::vector<NamedArray>> read = ParseNpz(*npz, "all.npz");
    ASSERT_TRUE(read.ok()) << read.status();
    ASSERT_EQ(read->size(), all.size());
    for (size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ((*read)[i].name, all[i].name);
      absl::StatusOr<Literal> adapted = AdaptArray((*read)[i].value, all[i].value.shape(), "");
      ASSERT_TRUE(adapted.ok()) << adapted.status();
      EXPECT_TRUE(*adapted == all[i].value) << all[i].name;
    }
  }
}

TEST(NpyIoTest, RawBitsTypesUseUnsignedStorage) {
  EXPECT_EQ(NpyStorageType(PT::BF16), PT::U16);
  EXPECT_EQ(NpyStorageType(PT::F8E4M3FN), PT::U8);
  EXPECT_EQ(NpyStorageType(PT::S4), PT::U8);
  EXPECT_EQ(NpyStorageType(PT::F4E2M1FN), PT::U8);
  EXPECT_EQ(NpyStorageType(PT::F16), PT::F16);
  EXPECT_EQ(NpyStorageType(PT::PRED), PT::PRED);
  // bf16 1.0 is 0x3f80; the file holds those bits as uint16.
  Literal one(Shape(PT::BF16, {1}));
  one.SetDouble(0, 1.0);
  absl::StatusOr<std::string> bytes = SerializeNpy(one);
  ASSERT_TRUE(bytes.ok());
  EXPECT_THAT(*bytes, HasSubstr("'descr': '<u2'"));
  EXPECT_EQ(bytes->substr(bytes->size() - 2), std::string("\x80\x3f", 2));
}

TEST(NpyIoTest, WiderFloatsConvertWithXlaRounding) {
  Literal f32(Shape(PT::F32, {2}));
  f32.SetDouble(0, 1.00390625);  // halfway between bf16 1.0 and 1.0078125: even is 1.0
  f32.SetDouble(1, 1.01171875);  // halfway between 1.0078125 and 1.015625: even is 1.015625
  absl::StatusOr<Literal> bf16 = AdaptArray(f32, Shape(PT::BF16, {2}), "input 0");
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_THAT(Doubles(*bf16), ElementsAre(1.0, 1.015625));
}

TEST(NpyIoTest, AdaptRejectsWrongTypesAndShapes) {
  Literal f64(Shape(PT::F64, {2, 3}));
  absl::Status dims = AdaptArray(f64, Shape(PT::F64, {3, 2}), "input 0 (a.npy)").status();
  EXPECT_THAT(dims.message(), HasSubstr("input 0 (a.npy): got float64[2,3], parameter expects "
                                        "f64[3,2] (dimensions differ)"));
  absl::Status type = AdaptArray(f64, Shape(PT::F32, {2, 3}), "input 1").status();
  EXPECT_THAT(type.message(), HasSubstr("element type differs"));
  absl::Status raw =
      AdaptArray(Literal(Shape(PT::S32, {2, 3})), Shape(PT::BF16, {2, 3}), "in").status();
  EXPECT_THAT(raw.message(), HasSubstr("bf16 travels as uint16 raw bits"));
  Literal wide(Shape(PT::U8, {1}));
  wide.Set<uint8_t>(0, 0x1f);
  absl::Status bits = AdaptArray(wide, Shape(PT::S4, {1}), "in").status();
  EXPECT_THAT(bits.message(), HasSubstr("does not fit the 4-bit raw form of s4"));
}

// ------------------------------------------------------------- malformed files

std::string ValidNpy() { return Fixture("f32_c.npy"); }

void ExpectNpyError(const std::string& bytes, const std::string& message) {
  absl::StatusOr<Literal> l = ParseNpy(bytes, "bad.npy");
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(l.status().message(), HasSubstr("bad.npy: "));
  EXPECT_THAT(l.status().message(), HasSubstr(message));
}

std::string WithHeader(const std::string& dict) {
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(dict.size()));
  out.push_back(0);
  return out + dict;
}

TEST(NpyIoTest, MalformedNpyFilesAreClearErrors) {
  std::string valid = ValidNpy();
  ExpectNpyError("", "bad magic");
  ExpectNpyError("PK\x03\x04 not npy at all", "bad magic");
  ExpectNpyError(valid.substr(0, 40), "truncated .npy header");
  ExpectNpyError(valid.substr(0, valid.size() - 1), "truncated .npy data");
  ExpectNpyError(valid + "x", "wrong .npy data size");
  std::string v9 = valid;
  v9[6] = 9;
  ExpectNpyError(v9, ".npy format version 9");
  ExpectNpyError(WithHeader("{'descr': '<f4', 'shape': (1,), }"), "needs the keys");
  ExpectNpyError(WithHeader("{'descr': '<f4', 'fortran_order': Nope, 'shape': (), }"),
                 "expected True or False");
  ExpectNpyError(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }"),
                 "expected a dimension");
  ExpectNpyError(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}"),
                 "unexpected key 'x'");
  ExpectNpyError(WithHeader("{'descr': '<U4', 'fortran_order': False, 'shape': (), }"),
                 "numpy dtype '<U4'");
  ExpectNpyError(WithHeader("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}"),
                 "structured dtypes");
  ExpectNpyError(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (), } junk"),
                 "trailing text");
  ExpectNpyError(WithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': "
                            "(99999999999, 99999999999), }"),
                 "array too large");
}

void ExpectNpzError(const std::string& bytes, const std::string& message) {
  absl::StatusOr<std::vector<NamedArray>> arrays = ParseNpz(bytes, "bad.npz");
  ASSERT_FALSE(arrays.ok());
  EXPECT_THAT(arrays.status().message(), HasSubstr("bad.npz"));
  EXPECT_THAT(arrays.status().message(), HasSubstr(message));
}

TEST(NpyIoTest, MalformedNpzFilesAreClearErrors) {
  std::string stored = Fixture("args.npz");
  std::string compressed = Fixture("args_compressed.npz");
  ExpectNpzError("", "too short for a zip archive");
  ExpectNpzError(ValidNpy(), "not a zip archive");
  // Cut inside the end record: the end record is gone.
  ExpectNpzError(stored.substr(0, stored.size() - 10), "not a zip archive");
  // Cut before the central directory: it lies outside the file.
  size_t dir = stored.find("PK\x01\x02");
  ASSERT_NE(dir, std::string::npos);
  std::string cut = stored.substr(0, dir - 5) + stored.substr(stored.size() - 22);
  ExpectNpzError(cut, "central directory lies outside the file");
  // A flipped byte in stored data fails the CRC.
  std::string flipped = stored;
  flipped[stored.find("NUMPY") + 100] ^= 1;
  ExpectNpzError(flipped, "member arg0.npy: CRC mismatch");
  // Corrupt deflate data.
  std::string bad_deflate = compressed;
  for (size_t i = 60; i < 80; ++i) bad_deflate[i] = '\xff';
  ExpectNpzError(bad_deflate, "member arg0.npy: corrupt deflate data");
  // A broken local header signature.
  std::string bad_local = stored;
  bad_local[0] = 'X';
  ExpectNpzError(bad_local, "bad local header");
  // An unknown compression method (bzip2 = 12) in the central directory.
  std::string bzip = stored;
  bzip[dir + 10] = 12;
  ExpectNpzError(bzip, "zip compression method 12");
  // A member that is not an array.
  std::string renamed = stored;
  size_t name = renamed.find("arg1.npy", dir);
  renamed.replace(name, 8, "arg1.txt");
  ExpectNpzError(renamed, "member arg1.txt: not a .npy array");
}

TEST(NpyIoTest, MissingFileIsAnError) {
  absl::StatusOr<Literal> l = ReadNpyFile("/nonexistent/x.npy");
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(l.status().message(), HasSubstr("/nonexistent/x.npy: cannot open file"));
}

}  // namespace
}  // namespace xlite::runtime
