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
  absl::StatusOr<NpyArray> l = ParseNpy(Fixture(fixture), fixture);
  EXPECT_TRUE(l.ok()) << l.status();
  return l.ok() ? std::move(l->value) : Literal();
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
    EXPECT_EQ((*arrays)[0].array.value.shape().ToString(false), "s32[2,2]");
    EXPECT_THAT(Doubles((*arrays)[0].array.value), ElementsAre(0, 1, 2, 3));
    EXPECT_EQ((*arrays)[1].name, "arg1");
    EXPECT_THAT(Doubles((*arrays)[1].array.value), ElementsAre(1.5, -1.5));
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
    absl::StatusOr<NpyArray> read = ParseNpy(*bytes, "x.npy");
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_FALSE(read->untyped);
    EXPECT_TRUE(read->value == original) << "every type has a named dtype";
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
      absl::StatusOr<Literal> adapted =
          AdaptArray((*read)[i].array, all[i].array.value.shape(), "");
      ASSERT_TRUE(adapted.ok()) << adapted.status();
      EXPECT_TRUE(*adapted == all[i].array.value) << all[i].name;
    }
  }
}

TEST(NpyIoTest, TypesNumpyLacksAreWrittenUnderTheirMlDtypesNames) {
  EXPECT_EQ(NumpyTypeName(PT::BF16), "bfloat16");
  EXPECT_EQ(NumpyTypeName(PT::F8E4M3B11FNUZ), "float8_e4m3b11fnuz");
  EXPECT_EQ(NumpyTypeName(PT::F4E2M1FN), "float4_e2m1fn");
  EXPECT_EQ(NumpyTypeName(PT::S4), "int4");
  EXPECT_EQ(NumpyTypeName(PT::U2), "uint2");
  // bf16 1.0 is 0x3f80: np.load gives a bfloat16 array once ml_dtypes is
  // imported, as np.dtype('bfloat16') then exists.
  Literal one(Shape(PT::BF16, {1}));
  one.SetDouble(0, 1.0);
  absl::StatusOr<std::string> bytes = SerializeNpy(one);
  ASSERT_TRUE(bytes.ok());
  EXPECT_THAT(*bytes, HasSubstr("'descr': 'bfloat16'"));
  EXPECT_EQ(bytes->substr(bytes->size() - 2), std::string("\x80\x3f", 2));
  Literal int4(Shape(PT::S4, {1}));
  int4.SetDouble(0, -1);
  bytes = SerializeNpy(int4);
  ASSERT_TRUE(bytes.ok());
  EXPECT_THAT(*bytes, HasSubstr("'descr': 'int4'"));
  EXPECT_EQ(bytes->back(), '\x0f') << "one element a byte, in its low bits, as ml_dtypes";
}

TEST(NpyIoTest, RawBitsInTheUnsignedStorageTypeStillRead) {
  EXPECT_EQ(NpyStorageType(PT::BF16), PT::U16);
  EXPECT_EQ(NpyStorageType(PT::F8E4M3FN), PT::U8);
  EXPECT_EQ(NpyStorageType(PT::S4), PT::U8);
  EXPECT_EQ(NpyStorageType(PT::F16), PT::F16);
  Literal bits(Shape(PT::U16, {1}));
  bits.Set<uint16_t>(0, 0x3f80);
  absl::StatusOr<Literal> bf16 = AdaptArray({bits}, Shape(PT::BF16, {1}), "in");
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_THAT(Doubles(*bf16), ElementsAre(1.0));
}

TEST(NpyIoTest, WiderFloatsConvertWithXlaRounding) {
  Literal f32(Shape(PT::F32, {2}));
  f32.SetDouble(0, 1.00390625);  // halfway between bf16 1.0 and 1.0078125: even is 1.0
  f32.SetDouble(1, 1.01171875);  // halfway between 1.0078125 and 1.015625: even is 1.015625
  absl::StatusOr<Literal> bf16 = AdaptArray({f32}, Shape(PT::BF16, {2}), "input 0");
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_THAT(Doubles(*bf16), ElementsAre(1.0, 1.015625));
}

TEST(NpyIoTest, AdaptRejectsWrongTypesAndShapes) {
  Literal f64(Shape(PT::F64, {2, 3}));
  absl::Status dims = AdaptArray({f64}, Shape(PT::F64, {3, 2}), "input 0 (a.npy)").status();
  EXPECT_THAT(dims.message(), HasSubstr("input 0 (a.npy): got float64[2,3], parameter expects "
                                        "f64[3,2] (float64) (dimensions differ)"));
  absl::Status type = AdaptArray({f64}, Shape(PT::F32, {2, 3}), "input 1").status();
  EXPECT_THAT(type.message(), HasSubstr("element type differs"));
  absl::Status raw =
      AdaptArray({Literal(Shape(PT::S32, {2, 3}))}, Shape(PT::BF16, {2, 3}), "in").status();
  EXPECT_THAT(raw.message(), HasSubstr("got int32[2,3], parameter expects bf16[2,3] (bfloat16)"));
  EXPECT_THAT(raw.message(), HasSubstr("uint16 raw bits or a wider float array"));
  Literal wide(Shape(PT::U8, {1}));
  wide.Set<uint8_t>(0, 0x1f);
  absl::Status bits = AdaptArray({wide}, Shape(PT::S4, {1}), "in").status();
  EXPECT_THAT(bits.message(), HasSubstr("does not fit the 4-bit raw form of s4"));
}

// ------------------------------------------------------------- malformed files

std::string ValidNpy() { return Fixture("f32_c.npy"); }

void ExpectNpyError(const std::string& bytes, const std::string& message) {
  absl::StatusOr<NpyArray> l = ParseNpy(bytes, "bad.npy");
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

// ------------------------------------------------ arrays numpy saved for ml_dtypes

// A .npy as np.save writes it for an ml_dtypes array: `descr` is what
// ml_dtypes' dtype reports ('<V2' for bfloat16, '<V1' for most 1-byte kinds,
// '<f1' for float8_e5m2); `data` the element bytes.
std::string SavedByNumpy(const std::string& descr, const std::string& shape,
                         const std::string& data) {
  return WithHeader("{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape +
                    ", }") +
         data;
}

absl::StatusOr<Literal> ReadAs(const std::string& npy, const Shape& expected) {
  absl::StatusOr<NpyArray> read = ParseNpy(npy, "x.npy");
  if (!read.ok()) return read.status();
  return AdaptArray(*read, expected, "input 0 (x.npy)");
}

TEST(NpyIoTest, UntypedVoidElementsTakeTheParameterType) {
  // bfloat16 [1, 2]: np.save writes '<V2'.
  std::string bf16 = SavedByNumpy("<V2", "(2,)", std::string("\x80\x3f\x00\x40", 4));
  absl::StatusOr<NpyArray> read = ParseNpy(bf16, "x.npy");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->untyped);
  EXPECT_EQ(DescribeArray(*read), "void16[2]");
  absl::StatusOr<Literal> as_bf16 = ReadAs(bf16, Shape(PT::BF16, {2}));
  ASSERT_TRUE(as_bf16.ok()) << as_bf16.status();
  EXPECT_THAT(Doubles(*as_bf16), ElementsAre(1, 2));
  // The same bytes are any 2-byte type the parameter has: f16 here.
  absl::StatusOr<Literal> as_f16 = ReadAs(bf16, Shape(PT::F16, {2}));
  ASSERT_TRUE(as_f16.ok()) << as_f16.status();
  EXPECT_EQ(as_f16->shape().element_type(), PT::F16);

  // float8_e4m3fn [0.5, 448] and int4 [-8, -1, 7]: '<V1' (and '|V1').
  absl::StatusOr<Literal> f8 =
      ReadAs(SavedByNumpy("<V1", "(2,)", "\x30\x7e"), Shape(PT::F8E4M3FN, {2}));
  ASSERT_TRUE(f8.ok()) << f8.status();
  EXPECT_THAT(Doubles(*f8), ElementsAre(0.5, 448));
  absl::StatusOr<Literal> s4 =
      ReadAs(SavedByNumpy("|V1", "(3,)", "\x08\x0f\x07"), Shape(PT::S4, {3}));
  ASSERT_TRUE(s4.ok()) << s4.status();
  EXPECT_THAT(Doubles(*s4), ElementsAre(-8, -1, 7));
}

TEST(NpyIoTest, MlDtypesDescrsThatNameTheirType) {
  // ml_dtypes' float8_e5m2 reports kind 'f', so numpy writes '<f1'.
  absl::StatusOr<NpyArray> e5m2 = ParseNpy(SavedByNumpy("<f1", "(2,)", "\x40\xc2"), "x.npy");
  ASSERT_TRUE(e5m2.ok()) << e5m2.status();
  EXPECT_FALSE(e5m2->untyped);
  EXPECT_EQ(e5m2->value.shape().ToString(false), "f8e5m2[2]");
  EXPECT_THAT(Doubles(e5m2->value), ElementsAre(2, -3));
  // Names, as xlite writes them, with or without a byte-order mark.
  for (const char* descr : {"bfloat16", "<bfloat16"}) {
    absl::StatusOr<NpyArray> bf16 =
        ParseNpy(SavedByNumpy(descr, "(1,)", std::string("\x80\x3f", 2)), "x.npy");
    ASSERT_TRUE(bf16.ok()) << bf16.status();
    EXPECT_EQ(bf16->value.shape().ToString(false), "bf16[1]");
  }
  absl::StatusOr<NpyArray> u4 = ParseNpy(SavedByNumpy("uint4", "()", "\x0f"), "x.npy");
  ASSERT_TRUE(u4.ok()) << u4.status();
  EXPECT_EQ(u4->value.GetInt64(0), 15);
}

TEST(NpyIoTest, MismatchedMlDtypesArraysAreClearErrors) {
  std::string bf16 = SavedByNumpy("<V2", "(2,)", std::string(4, '\0'));
  EXPECT_THAT(ReadAs(bf16, Shape(PT::F32, {2})).status().message(),
              HasSubstr("input 0 (x.npy): got void16[2], parameter expects f32[2] (float32) (the "
                        "file's untyped 2-byte elements cannot be f32, which has 4)"));
  EXPECT_THAT(ReadAs(bf16, Shape(PT::BF16, {3})).status().message(),
              HasSubstr("got void16[2], parameter expects bf16[3] (bfloat16) (dimensions differ)"));
  EXPECT_THAT(
      ReadAs(SavedByNumpy("<f1", "(1,)", "\x40"), Shape(PT::F8E4M3FN, {1})).status().message(),
      HasSubstr("got float8_e5m2[1], parameter expects f8e4m3fn[1] (float8_e4m3fn) (element type "
                "differs)"));
  // int4 bytes beyond the low 4 bits are not an int4 ml_dtypes wrote.
  EXPECT_THAT(ReadAs(SavedByNumpy("<V1", "(1,)", "\xff"), Shape(PT::S4, {1})).status().message(),
              HasSubstr("element 0 is 255, which does not fit the 4-bit raw form of s4"));
  ExpectNpyError(SavedByNumpy("<V16", "(1,)", std::string(16, '\0')),
                 "numpy dtype '<V16' (untyped elements of 16 bytes");
  ExpectNpyError(SavedByNumpy("<V", "(1,)", ""), "numpy dtype '<V'");
  ExpectNpyError(SavedByNumpy("<V0", "(1,)", ""), "numpy dtype '<V0'");
  ExpectNpyError(SavedByNumpy("<", "(1,)", "\x00"), "numpy dtype '<'");
  ExpectNpyError(SavedByNumpy("", "(1,)", "\x00"), "numpy dtype ''");
}

TEST(NpyIoTest, MissingFileIsAnError) {
  absl::StatusOr<NpyArray> l = ReadNpyFile("/nonexistent/x.npy");
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(l.status().message(), HasSubstr("/nonexistent/x.npy: cannot open file"));
}

}  // namespace
}  // namespace xlite::runtime
