#include "xlite/ir/shape.h"

#include "gtest/gtest.h"

namespace xlite {
namespace {

using PT = PrimitiveType;

Shape WithLayout(Shape s, Layout l) {
  s.set_layout(std::move(l));
  return s;
}

TEST(ShapeTest, PrintsArraysAndDynamicDims) {
  Shape s(PT::F32, {2, 3});
  EXPECT_EQ(s.ToString(), "f32[2,3]");
  s.set_dynamic_dimension(1, true);
  s.set_layout(Layout::Default(2));
  EXPECT_EQ(s.ToString(), "f32[2,<=3]{1,0}");
  EXPECT_EQ(s.ToString(/*print_layout=*/false), "f32[2,<=3]");
  EXPECT_FALSE(s.is_static());
  Shape unbounded(PT::S32, {Shape::kUnboundedSize, 4});
  EXPECT_EQ(unbounded.ToString(), "s32[?,4]");
  EXPECT_FALSE(unbounded.is_static());
  EXPECT_EQ(Shape::Token().ToString(), "token[]");
  EXPECT_EQ(Shape(PT::OPAQUE_TYPE, {}).ToString(), "opaque[]");
  EXPECT_EQ(Shape(PT::PRED, {0}).ToString(), "pred[0]");
}

TEST(ShapeTest, PrintsHighRanks) {
  std::vector<int64_t> dims(40, 1000000007);
  Shape s(PT::U8, dims);
  s.set_layout(Layout::Default(40));
  std::string expected = "u8[";
  for (int i = 0; i < 40; ++i) expected += i == 0 ? "1000000007" : ",1000000007";
  expected += "]{";
  for (int i = 39; i >= 0; --i) expected += std::to_string(i) + (i == 0 ? "}" : ",");
  EXPECT_EQ(s.ToString(), expected);
  EXPECT_EQ(Shape(PT::F32, {Shape::kUnboundedSize, 2}).ElementCount(), -1);
}

TEST(ShapeTest, ScalarLayoutPrintedOnlyWithExtras) {
  EXPECT_EQ(WithLayout(Shape::Scalar(PT::F32), Layout()).ToString(), "f32[]");
  Layout tiled;
  tiled.mutable_extras()->tiles.push_back(Tile{{256}});
  EXPECT_EQ(WithLayout(Shape::Scalar(PT::F16), tiled).ToString(), "f16[]{:T(256)}");
  Layout empty_extras;
  empty_extras.mutable_extras();
  EXPECT_EQ(WithLayout(Shape::Scalar(PT::F16), empty_extras).ToString(), "f16[]");
}

TEST(ShapeTest, PrintsEveryLayoutExtraInOrder) {
  Layout l({1, 0});
  LayoutExtras* e = l.mutable_extras();
  e->dim_levels = {DimLevel{}, DimLevel{DimLevelType::kCompressed, false, false}};
  e->tiles = {Tile{{8, 128}}, Tile{{2, Tile::kCombineDimension}}};
  e->tail_padding_alignment_in_elements = 2;
  e->index_primitive_type = PT::U32;
  e->pointer_primitive_type = PT::U64;
  e->element_size_in_bits = 4;
  e->memory_space = 1;
  e->split_configs = {SplitConfig{0, {2, 4}}, SplitConfig{1, {3}}};
  Shape physical(PT::S4, {8});
  physical.set_layout(Layout({0}));
  e->physical_shape = std::make_shared<const Shape>(physical);
  e->dynamic_shape_metadata_prefix_bytes = 8;
  EXPECT_EQ(l.ToString(),
            "{1,0:D(D,C+~)T(8,128)(2,*)L(2)#(u32)*(u64)E(4)S(1)SC(0:2,4)(1:3)"
            "P(s4[8]{0})M(8)}");
  Layout common({1, 0});
  common.mutable_extras()->tiles = {Tile{{8, 128}}, Tile{{2, 1}}};
  common.mutable_extras()->element_size_in_bits = 4;
  common.mutable_extras()->memory_space = 1;
  EXPECT_EQ(WithLayout(Shape(PT::BF16, {8, 128}), common).ToString(),
            "bf16[8,128]{1,0:T(8,128)(2,1)E(4)S(1)}");
}

TEST(ShapeTest, TuplesMarkEveryFifthElement) {
  std::vector<Shape> elements(6, Shape::Scalar(PT::F32));
  elements[1] = Shape::Tuple({});
  EXPECT_EQ(Shape::Tuple(elements).ToString(),
            "(f32[], (), f32[], f32[], f32[], /*index=5*/f32[])");
  Shape nested =
      Shape::Tuple({Shape::Tuple({WithLayout(Shape(PT::S8, {3}), Layout({0}))}), Shape::Token()});
  EXPECT_EQ(nested.ToString(), "((s8[3]{0}), token[])");
  EXPECT_EQ(nested.ToString(false), "((s8[3]), token[])");
  EXPECT_EQ(nested.LeafCount(), 2);
  ASSERT_NE(ShapeAtIndex(nested, {0, 0}), nullptr);
  EXPECT_EQ(ShapeAtIndex(nested, {0, 0})->ToString(), "s8[3]{0}");
  EXPECT_EQ(ShapeAtIndex(nested, {0, 1}), nullptr);
  EXPECT_EQ(ShapeAtIndex(nested, {1, 0}), nullptr);
  EXPECT_EQ(ShapeAtIndex(nested, {}), &nested);
}

TEST(ShapeTest, ByteSizeOf) {
  EXPECT_EQ(Shape(PT::F32, {2, 3}).ByteSizeOf(), 24);
  EXPECT_EQ(Shape(PT::PRED, {5}).ByteSizeOf(), 5);
  EXPECT_EQ(Shape(PT::C64, {2}).ByteSizeOf(), 16);
  EXPECT_EQ(Shape(PT::S4, {3}).ByteSizeOf(), 3);
  Layout packed({0});
  packed.mutable_extras()->element_size_in_bits = 4;
  EXPECT_EQ(WithLayout(Shape(PT::S4, {63}), packed).ByteSizeOf(), 32);
  EXPECT_EQ(Shape::Tuple({Shape(PT::F32, {2}), Shape(PT::S8, {3})}).ByteSizeOf(), 11);
  EXPECT_EQ(Shape::Token().ByteSizeOf(), 0);
  Shape dynamic(PT::F32, {4});
  dynamic.set_dynamic_dimension(0, true);
  EXPECT_EQ(dynamic.ByteSizeOf(), 16);  // the bound
}

TEST(ShapeTest, EqualityAndCopies) {
  Shape a = WithLayout(Shape(PT::F32, {2, 3}), Layout({1, 0}));
  Shape b = WithLayout(Shape(PT::F32, {2, 3}), Layout({0, 1}));
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a.Compatible(b));
  EXPECT_FALSE(a == Shape(PT::F32, {2, 3}));  // a layout vs none
  Shape c = a;
  EXPECT_TRUE(a == c);
  // Editing a copy's (shared) layout must not change the original.
  c.mutable_layout()->minor_to_major = {0, 1};
  EXPECT_TRUE(c == b);
  EXPECT_EQ(a.ToString(), "f32[2,3]{1,0}");
  Shape moved = std::move(c);
  EXPECT_TRUE(moved == b);
  Shape dyn = a;
  dyn.set_dynamic_dimension(0, true);
  EXPECT_FALSE(dyn == a);
  EXPECT_FALSE(dyn.Compatible(a));
  EXPECT_TRUE(dyn.CompatibleIgnoringDynamic(b));
  EXPECT_FALSE(dyn.CompatibleIgnoringDynamic(Shape(PT::F32, {2, 4})));
  EXPECT_FALSE(Shape::Tuple({dyn}).CompatibleIgnoringDynamic(Shape::Tuple({a, a})));
  EXPECT_TRUE(Shape::Tuple({dyn}).CompatibleIgnoringDynamic(Shape::Tuple({b})));
  EXPECT_TRUE(a.SameElementTypeAndDimensions(Shape(PT::F32, {2, 3})));
  EXPECT_FALSE(a.SameElementTypeAndDimensions(Shape(PT::S32, {2, 3})));
  Shape tuple = Shape::Tuple({a, b});
  Shape tuple_copy = tuple;
  tuple_copy.mutable_tuple_shapes(1)->clear_layout();
  EXPECT_FALSE(tuple == tuple_copy);
  EXPECT_TRUE(tuple.Compatible(tuple_copy));
}

TEST(ShapeTest, LayoutDefaultAndExtrasEquality) {
  EXPECT_EQ(Layout::Default(3).ToString(), "{2,1,0}");
  Layout with_defaults({0});
  with_defaults.mutable_extras();
  EXPECT_TRUE(with_defaults == Layout({0}));
  with_defaults.mutable_extras()->memory_space = 5;
  EXPECT_FALSE(with_defaults == Layout({0}));
  Shape s = WithLayout(Shape(PT::F32, {16}), with_defaults);
  EXPECT_EQ(s.ToString(), "f32[16]{0:S(5)}");
}

TEST(ShapeTest, BufferMarkPrintsAndCompares) {
  Shape array = WithLayout(Shape(PT::F32, {2, 4}), Layout({1, 0}));
  Shape buffer = array;
  buffer.set_buffer(true);
  EXPECT_TRUE(buffer.is_buffer());
  EXPECT_EQ(buffer.ToString(), "b(f32[2,4]{1,0})");
  EXPECT_EQ(buffer.ToString(/*print_layout=*/false), "b(f32[2,4])");
  EXPECT_FALSE(buffer == array);
  EXPECT_TRUE(buffer.Compatible(array));
  Shape moved = std::move(buffer);
  EXPECT_TRUE(moved.is_buffer());
  EXPECT_EQ(Shape::Tuple({moved, Shape::Scalar(PT::S32)}).ToString(), "(b(f32[2,4]{1,0}), s32[])");
}

TEST(ShapeTest, StaysSmall) {
  // Every instruction holds a Shape; a parsed 50k-instruction module must fit
  // in 16 MB, so growth here needs a reason.
  EXPECT_LE(sizeof(Shape), 64u);
}

}  // namespace
}  // namespace xlite

namespace xlite {
namespace {

bool Valid(const Shape& s) { return ValidateShape(s).ok(); }

TEST(ValidateShapeTest, SizesMustFitInt64) {
  constexpr int64_t kMax = INT64_MAX;
  EXPECT_TRUE(Valid(Shape(PrimitiveType::F32, {2, 3})));
  EXPECT_TRUE(Valid(Shape(PrimitiveType::S8, {kMax})));
  EXPECT_TRUE(Valid(Shape(PrimitiveType::F32, {0, kMax})));  // no elements at all
  absl::Status count = ValidateShape(Shape(PrimitiveType::F32, {99999999999, 99999999999}));
  EXPECT_FALSE(count.ok());
  EXPECT_EQ(count.message(),
            "invalid shape f32[99999999999,99999999999]: the element count overflows int64");
  // 3037000499^2 elements fit, their f16 bytes do not.
  absl::Status bytes = ValidateShape(Shape(PrimitiveType::F16, {3037000499, 3037000499}));
  EXPECT_EQ(bytes.message(),
            "invalid shape f16[3037000499,3037000499]: the byte size overflows int64");
  EXPECT_TRUE(Valid(Shape(PrimitiveType::S8, {3037000499, 3037000499})));
  EXPECT_FALSE(
      Valid(Shape::Tuple({Shape(PrimitiveType::F32, {2}), Shape(PrimitiveType::S8, {kMax, 2})})));
}

TEST(ValidateShapeTest, DimensionsAndLayouts) {
  EXPECT_EQ(ValidateShape(Shape(PrimitiveType::F32, {2, -3})).message(),
            "invalid shape f32[2,-3]: dimension 1 is negative (-3)");
  Shape unbounded(PrimitiveType::F32, {Shape::kUnboundedSize, 4});
  EXPECT_FALSE(Valid(unbounded));  // `?` must be dynamic
  unbounded.set_dynamic_dimension(0, true);
  EXPECT_TRUE(Valid(unbounded));
  Shape bounded(PrimitiveType::F32, {INT64_MAX, 2});
  bounded.set_dynamic_dimension(0, true);
  EXPECT_FALSE(Valid(bounded));  // a `<=N` bound counts like a static size
  Shape layout(PrimitiveType::F32, {2, 3});
  layout.set_layout(Layout({0, 0}));
  EXPECT_FALSE(Valid(layout));
  EXPECT_FALSE(Valid(Shape(PrimitiveType::TOKEN, {2})));
  EXPECT_FALSE(Valid(Shape(PrimitiveType::PRIMITIVE_TYPE_INVALID, {})));
}

TEST(ValidateShapeTest, CheckedStorageBytes) {
  EXPECT_EQ(CheckedStorageBytes(Shape(PrimitiveType::F32, {2, 3})), 24);
  EXPECT_EQ(CheckedStorageBytes(Shape(PrimitiveType::S4, {5})), 5);  // a byte each
  EXPECT_EQ(CheckedStorageBytes(
                Shape::Tuple({Shape(PrimitiveType::F32, {2}), Shape(PrimitiveType::PRED, {3})})),
            11);
  EXPECT_EQ(CheckedStorageBytes(Shape(PrimitiveType::F64, {INT64_MAX / 4})), -1);
  EXPECT_EQ(CheckedStorageBytes(Shape::Token()), 0);
}

}  // namespace
}  // namespace xlite
