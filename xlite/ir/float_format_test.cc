#include "xlite/ir/float_format.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"
#include "xlite/ir/float_ulp.h"

namespace xlite {
namespace {

using PT = PrimitiveType;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double F32FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

TEST(FloatFormatTest, Bf16RoundsToNearestEven) {
  EXPECT_EQ(EncodeFloat(F32FromBits(0x3F808000), PT::BF16), 0x3F80u);  // tie, even down
  EXPECT_EQ(EncodeFloat(F32FromBits(0x3F818000), PT::BF16), 0x3F82u);  // tie, odd up
  EXPECT_EQ(EncodeFloat(F32FromBits(0x3F808001), PT::BF16), 0x3F81u);  // above half
  EXPECT_EQ(EncodeFloat(F32FromBits(0x3F807FFF), PT::BF16), 0x3F80u);  // below half
}

TEST(FloatFormatTest, Bf16Specials) {
  EXPECT_EQ(EncodeFloat(kNaN, PT::BF16), 0x7FC0u);
  EXPECT_EQ(EncodeFloat(-kNaN, PT::BF16), 0xFFC0u);
  EXPECT_EQ(EncodeFloat(kInf, PT::BF16), 0x7F80u);
  EXPECT_EQ(EncodeFloat(-kInf, PT::BF16), 0xFF80u);
  EXPECT_EQ(EncodeFloat(0.0, PT::BF16), 0x0000u);
  EXPECT_EQ(EncodeFloat(-0.0, PT::BF16), 0x8000u);
  // f32 max rounds past bf16's max finite (0x7F7F) to infinity.
  EXPECT_EQ(EncodeFloat(F32FromBits(0x7F7FFFFF), PT::BF16), 0x7F80u);
  EXPECT_EQ(EncodeFloat(F32FromBits(0x7F7F0000), PT::BF16), 0x7F7Fu);
  EXPECT_EQ(EncodeFloat(F32FromBits(0x00010000), PT::BF16), 0x0001u);  // denormal
  EXPECT_EQ(DecodeFloat(0x0001, PT::BF16), F32FromBits(0x00010000));
  EXPECT_TRUE(std::isnan(DecodeFloat(0x7FC1, PT::BF16)));
  EXPECT_EQ(DecodeFloat(0xFF80, PT::BF16), -kInf);
}

TEST(FloatFormatTest, F16) {
  EXPECT_EQ(EncodeFloat(1.0, PT::F16), 0x3C00u);
  EXPECT_EQ(EncodeFloat(65504.0, PT::F16), 0x7BFFu);
  EXPECT_EQ(EncodeFloat(65519.0, PT::F16), 0x7BFFu);
  EXPECT_EQ(EncodeFloat(65520.0, PT::F16), 0x7C00u);  // tie rounds to even: inf
  EXPECT_EQ(EncodeFloat(std::ldexp(1.0, -24), PT::F16), 0x0001u);
  EXPECT_EQ(EncodeFloat(std::ldexp(1.0, -25), PT::F16), 0x0000u);  // tie to even 0
  EXPECT_EQ(EncodeFloat(std::ldexp(1.5, -25), PT::F16), 0x0001u);
  EXPECT_EQ(EncodeFloat(std::ldexp(3.0, -25), PT::F16), 0x0002u);   // 1.5 ulp: tie to 2
  EXPECT_EQ(EncodeFloat(-std::ldexp(1.0, -26), PT::F16), 0x8000u);  // -0 kept
  EXPECT_EQ(EncodeFloat(kNaN, PT::F16), 0x7E00u);
  EXPECT_EQ(EncodeFloat(-kInf, PT::F16), 0xFC00u);
  EXPECT_EQ(DecodeFloat(0x7BFF, PT::F16), 65504.0);
  EXPECT_EQ(DecodeFloat(0x0001, PT::F16), std::ldexp(1.0, -24));
  EXPECT_EQ(DecodeFloat(0x3555, PT::F16), 0.333251953125);
}

TEST(FloatFormatTest, IeeeLikeF8) {
  // f8e5m2: bias 15, max 57344.
  EXPECT_EQ(EncodeFloat(1.0, PT::F8E5M2), 0x3Cu);
  EXPECT_EQ(EncodeFloat(57344.0, PT::F8E5M2), 0x7Bu);
  EXPECT_EQ(EncodeFloat(61440.0, PT::F8E5M2), 0x7Cu);  // tie, odd max rounds to inf
  EXPECT_EQ(EncodeFloat(kNaN, PT::F8E5M2), 0x7Eu);
  EXPECT_EQ(EncodeFloat(-kInf, PT::F8E5M2), 0xFCu);
  // f8e4m3: bias 7, max 240, inf 0x78.
  EXPECT_EQ(EncodeFloat(1.0, PT::F8E4M3), 0x38u);
  EXPECT_EQ(EncodeFloat(240.0, PT::F8E4M3), 0x77u);
  EXPECT_EQ(EncodeFloat(1000.0, PT::F8E4M3), 0x78u);
  EXPECT_TRUE(std::isnan(DecodeFloat(0x79, PT::F8E4M3)));
  EXPECT_EQ(DecodeFloat(0x78, PT::F8E4M3), kInf);
  // f8e3m4: bias 3, max 15.5.
  EXPECT_EQ(EncodeFloat(1.0, PT::F8E3M4), 0x30u);
  EXPECT_EQ(EncodeFloat(15.5, PT::F8E3M4), 0x6Fu);
  EXPECT_EQ(EncodeFloat(16.0, PT::F8E3M4), 0x70u);
  EXPECT_EQ(DecodeFloat(0x01, PT::F8E3M4), std::ldexp(1.0, -6));  // min denormal
}

// f8e4m3fn (ml_dtypes' non-saturating cast): no infinity, so inf and values
// rounding past the max finite 448 become NaN (0x7F with the sign).
TEST(FloatFormatTest, E4M3FnOverflowIsNaN) {
  EXPECT_EQ(EncodeFloat(448.0, PT::F8E4M3FN), 0x7Eu);
  EXPECT_EQ(EncodeFloat(464.0, PT::F8E4M3FN), 0x7Eu);  // tie: even mantissa 110 stays
  EXPECT_EQ(EncodeFloat(465.0, PT::F8E4M3FN), 0x7Fu);
  EXPECT_EQ(EncodeFloat(-500.0, PT::F8E4M3FN), 0xFFu);
  EXPECT_EQ(EncodeFloat(kInf, PT::F8E4M3FN), 0x7Fu);
  EXPECT_EQ(EncodeFloat(-kInf, PT::F8E4M3FN), 0xFFu);
  EXPECT_EQ(EncodeFloat(kNaN, PT::F8E4M3FN), 0x7Fu);
  EXPECT_EQ(EncodeFloat(-0.0, PT::F8E4M3FN), 0x80u);
  EXPECT_EQ(EncodeFloat(std::ldexp(1.0, -9), PT::F8E4M3FN), 0x01u);
  EXPECT_EQ(DecodeFloat(0x7E, PT::F8E4M3FN), 448.0);
  EXPECT_TRUE(std::isnan(DecodeFloat(0xFF, PT::F8E4M3FN)));
  EXPECT_EQ(DecodeFloat(0x78, PT::F8E4M3FN), 256.0);  // no inf encoding
}

// fnuz types: one NaN (0x80), no -0, inf and overflow to NaN.
TEST(FloatFormatTest, FnuzTypes) {
  for (PT t : {PT::F8E4M3FNUZ, PT::F8E5M2FNUZ, PT::F8E4M3B11FNUZ}) {
    SCOPED_TRACE(PrimitiveTypeName(t));
    EXPECT_EQ(EncodeFloat(kNaN, t), 0x80u);
    EXPECT_EQ(EncodeFloat(-kNaN, t), 0x80u);
    EXPECT_EQ(EncodeFloat(kInf, t), 0x80u);
    EXPECT_EQ(EncodeFloat(-kInf, t), 0x80u);
    EXPECT_EQ(EncodeFloat(-0.0, t), 0x00u);
    EXPECT_EQ(EncodeFloat(-1e-30, t), 0x00u);  // underflow has no -0 either
    EXPECT_TRUE(std::isnan(DecodeFloat(0x80, t)));
    EXPECT_TRUE(std::signbit(DecodeFloat(0x80, t)));  // widened with its sign bit
    EXPECT_EQ(DecodeFloat(0x00, t), 0.0);
  }
  EXPECT_EQ(EncodeFloat(1.0, PT::F8E4M3FNUZ), 0x40u);
  EXPECT_EQ(DecodeFloat(0x7F, PT::F8E4M3FNUZ), 240.0);
  EXPECT_EQ(EncodeFloat(250.0, PT::F8E4M3FNUZ), 0x80u);
  EXPECT_EQ(EncodeFloat(-1.0, PT::F8E4M3FNUZ), 0xC0u);
  EXPECT_EQ(EncodeFloat(1.0, PT::F8E5M2FNUZ), 0x40u);
  EXPECT_EQ(DecodeFloat(0x7F, PT::F8E5M2FNUZ), 57344.0);
  EXPECT_EQ(EncodeFloat(1.0, PT::F8E4M3B11FNUZ), 0x58u);
  EXPECT_EQ(DecodeFloat(0x7F, PT::F8E4M3B11FNUZ), 30.0);
  EXPECT_EQ(EncodeFloat(32.0, PT::F8E4M3B11FNUZ), 0x80u);
}

// f8e8m0fnu: powers of two 2^-127..2^127, 0xFF NaN; no sign and no zero, so
// zero, negatives, inf and overflow are NaN; ties round up (the implicit bit
// is the odd least significant bit).
TEST(FloatFormatTest, E8M0Fnu) {
  EXPECT_EQ(EncodeFloat(1.0, PT::F8E8M0FNU), 0x7Fu);
  EXPECT_EQ(EncodeFloat(std::ldexp(1.0, 127), PT::F8E8M0FNU), 0xFEu);
  EXPECT_EQ(EncodeFloat(std::ldexp(1.0, 128), PT::F8E8M0FNU), 0xFFu);
  EXPECT_EQ(EncodeFloat(std::ldexp(1.0, -127), PT::F8E8M0FNU), 0x00u);
  EXPECT_EQ(EncodeFloat(std::ldexp(1.0, -130), PT::F8E8M0FNU), 0x00u);
  EXPECT_EQ(EncodeFloat(3.0, PT::F8E8M0FNU), 0x81u);
  EXPECT_EQ(EncodeFloat(0.75, PT::F8E8M0FNU), 0x7Fu);
  EXPECT_EQ(EncodeFloat(2.9, PT::F8E8M0FNU), 0x80u);
  EXPECT_EQ(EncodeFloat(0.0, PT::F8E8M0FNU), 0xFFu);
  EXPECT_EQ(EncodeFloat(-2.0, PT::F8E8M0FNU), 0xFFu);
  EXPECT_EQ(EncodeFloat(kInf, PT::F8E8M0FNU), 0xFFu);
  EXPECT_EQ(EncodeFloat(kNaN, PT::F8E8M0FNU), 0xFFu);
  EXPECT_EQ(DecodeFloat(0x00, PT::F8E8M0FNU), std::ldexp(1.0, -127));
  EXPECT_EQ(DecodeFloat(0x80, PT::F8E8M0FNU), 2.0);
  EXPECT_TRUE(std::isnan(DecodeFloat(0xFF, PT::F8E8M0FNU)));
}

// f4e2m1fn: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and negatives. ml_dtypes' limits
// define infinity() as the max, so inf and overflow saturate to +-6, and
// quiet_NaN() as the -0 pattern 0x8.
TEST(FloatFormatTest, F4E2M1Fn) {
  const double values[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (uint64_t bits = 0; bits < 8; ++bits) {
    EXPECT_EQ(DecodeFloat(bits, PT::F4E2M1FN), values[bits]);
    EXPECT_EQ(DecodeFloat(bits | 8, PT::F4E2M1FN), -values[bits]);
    EXPECT_EQ(EncodeFloat(values[bits], PT::F4E2M1FN), bits);
  }
  EXPECT_EQ(EncodeFloat(5.0, PT::F4E2M1FN), 0x6u);   // tie to even (4)
  EXPECT_EQ(EncodeFloat(0.25, PT::F4E2M1FN), 0x0u);  // tie to even (0)
  EXPECT_EQ(EncodeFloat(0.75, PT::F4E2M1FN), 0x2u);  // tie to even (1)
  EXPECT_EQ(EncodeFloat(7.0, PT::F4E2M1FN), 0x7u);
  EXPECT_EQ(EncodeFloat(100.0, PT::F4E2M1FN), 0x7u);
  EXPECT_EQ(EncodeFloat(-100.0, PT::F4E2M1FN), 0xFu);
  EXPECT_EQ(EncodeFloat(kInf, PT::F4E2M1FN), 0x7u);
  EXPECT_EQ(EncodeFloat(-kInf, PT::F4E2M1FN), 0xFu);
  EXPECT_EQ(EncodeFloat(kNaN, PT::F4E2M1FN), 0x8u);
  EXPECT_EQ(EncodeFloat(-0.0, PT::F4E2M1FN), 0x8u);
}

TEST(FloatFormatTest, NativeTypesRoundTrip) {
  EXPECT_EQ(EncodeFloat(1.0, PT::F32), 0x3F800000u);
  EXPECT_EQ(DecodeFloat(0x3F800000u, PT::F32), 1.0);
  EXPECT_EQ(EncodeFloat(1e300, PT::F32), 0x7F800000u);
  EXPECT_EQ(DecodeFloat(EncodeFloat(0.1, PT::F64), PT::F64), 0.1);
}

// NaN payloads as XLA's text carries them: the mantissa of the types with
// signalling NaNs; none for the single-NaN types.
TEST(FloatFormatTest, NanPayloads) {
  EXPECT_EQ(NanPayloadBits(PT::F64), 52);
  EXPECT_EQ(NanPayloadBits(PT::F32), 23);
  EXPECT_EQ(NanPayloadBits(PT::F16), 10);
  EXPECT_EQ(NanPayloadBits(PT::BF16), 7);
  EXPECT_EQ(NanPayloadBits(PT::F8E5M2), 2);
  EXPECT_EQ(NanPayloadBits(PT::F8E4M3), 3);
  EXPECT_EQ(NanPayloadBits(PT::F8E3M4), 4);
  for (PT t : {PT::F8E4M3FN, PT::F8E4M3FNUZ, PT::F8E5M2FNUZ, PT::F8E4M3B11FNUZ, PT::F8E8M0FNU,
               PT::F4E2M1FN, PT::S32}) {
    EXPECT_EQ(NanPayloadBits(t), 0) << PrimitiveTypeName(t);
    EXPECT_EQ(DefaultNanPayload(t), 0u);
  }
  EXPECT_EQ(DefaultNanPayload(PT::BF16), 0x40u);
  EXPECT_EQ(DefaultNanPayload(PT::F64), uint64_t{1} << 51);
  EXPECT_EQ(NanBitsWithPayload(true, 0x7f, PT::BF16), 0xFFFFu);
  EXPECT_EQ(NanBitsWithPayload(false, 0x3f, PT::BF16), 0x7FBFu);
  EXPECT_EQ(NanBitsWithPayload(false, 0x1, PT::F32), 0x7F800001u);
  EXPECT_EQ(NanBitsWithPayload(true, 0x1, PT::F16), 0xFC01u);
  EXPECT_EQ(NanBitsWithPayload(false, 0x1, PT::F8E5M2), 0x7Du);
  EXPECT_EQ(NanBitsWithPayload(false, 0x5, PT::F8E3M4), 0x75u);
  EXPECT_EQ(NanBitsWithPayload(true, 0xf, PT::F64), 0xFFF000000000000Full);
  EXPECT_EQ(PrintedNanPayload(0xFFFF, PT::BF16), 0x7Fu);
  EXPECT_EQ(PrintedNanPayload(0x7FC0, PT::BF16), 0u);  // the default
  EXPECT_EQ(PrintedNanPayload(0x7D, PT::F8E5M2), 0x1u);
  EXPECT_EQ(PrintedNanPayload(0x7F, PT::F8E4M3FN), 0u);
  EXPECT_EQ(PrintedNanPayload(0x7FC00001u, PT::F32), 0x400001u);
}

TEST(FloatUlpTest, CountsRepresentableValuesAcrossZero) {
  const uint64_t one = EncodeFloat(1.0, PT::F32);
  EXPECT_EQ(UlpDistance(one, one + 1, PT::F32), 1);
  EXPECT_EQ(UlpDistance(EncodeFloat(0.0, PT::F32), EncodeFloat(-0.0, PT::F32), PT::F32), 0);
  // The smallest denormals on both sides of zero are two steps apart.
  EXPECT_EQ(UlpDistance(EncodeFloat(std::ldexp(1.0, -149), PT::F32),
                        EncodeFloat(-std::ldexp(1.0, -149), PT::F32), PT::F32),
            2);
  EXPECT_EQ(UlpDistance(EncodeFloat(1.0, PT::BF16), EncodeFloat(1.0078125, PT::BF16), PT::BF16), 1);
}

}  // namespace
}  // namespace xlite
