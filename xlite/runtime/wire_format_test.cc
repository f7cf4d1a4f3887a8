#include "xlite/runtime/wire_format.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace xlite::runtime {
namespace {

Literal Iota(PrimitiveType type, std::vector<int64_t> dims) {
  Literal l(Shape(type, dims));
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetInt64(i, i * 7 - 3);
  return l;
}

TEST(WireFormat, RoundTripsArraysTuplesAndLayouts) {
  Shape with_layout(PrimitiveType::F32, {2, 3});
  with_layout.set_layout(Layout(std::vector<int64_t>{0, 1}));
  Literal laid(with_layout);
  laid.Set<float>(4, 2.5f);
  Shape dynamic(PrimitiveType::S32, {5});
  dynamic.set_dynamic_dimension(0, true);
  Literal nested = Literal::Tuple({Iota(PrimitiveType::S8, {4}), Literal(Shape::Token()),
                                   Literal::Tuple({laid, Literal(dynamic)})});
  WireWriter writer;
  writer.PutU64(42);
  writer.PutString("all-reduce %ar#3");
  writer.PutLiteral(nested);
  writer.PutLiteral(Iota(PrimitiveType::U64, {}));
  writer.PutLiteral(Literal());
  WireReader reader(writer.bytes());
  EXPECT_EQ(*reader.GetU64(), 42u);
  EXPECT_EQ(*reader.GetString(), "all-reduce %ar#3");
  absl::StatusOr<Literal> back = reader.GetLiteral();
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), nested.shape());
  EXPECT_TRUE(*back == nested);
  absl::StatusOr<Literal> scalar = reader.GetLiteral();
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->GetInt64(0), -3);
  absl::StatusOr<Literal> empty = reader.GetLiteral();
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(*empty == Literal());
  EXPECT_TRUE(reader.done());
}

TEST(WireFormat, TruncatedAndCorruptMessagesAreErrors) {
  WireWriter writer;
  writer.PutLiteral(Iota(PrimitiveType::F64, {3, 4}));
  std::string bytes = writer.bytes();
  for (size_t cut : {size_t{0}, size_t{5}, bytes.size() / 2, bytes.size() - 1}) {
    WireReader reader(std::string_view(bytes).substr(0, cut));
    EXPECT_FALSE(reader.GetLiteral().ok()) << "cut at " << cut;
  }
  std::string huge = bytes;
  uint64_t big = uint64_t{1} << 60;
  std::memcpy(huge.data() + 16, &big, sizeof(big));  // the first dimension
  WireReader reader(huge);
  absl::StatusOr<Literal> l = reader.GetLiteral();
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("corrupt"), std::string::npos) << l.status();
}

}  // namespace
}  // namespace xlite::runtime
