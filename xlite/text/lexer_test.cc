#include "xlite/text/lexer.h"

#include <vector>

#include "gtest/gtest.h"

namespace xlite {
namespace {

std::vector<TokKind> Kinds(std::string_view text) {
  Lexer lexer(text);
  std::vector<TokKind> kinds;
  for (lexer.Next(); lexer.current().kind != TokKind::kEof; lexer.Next()) {
    kinds.push_back(lexer.current().kind);
    if (lexer.current().kind == TokKind::kError) break;
  }
  return kinds;
}

TEST(LexerTest, NamesIdentifiersAndAttributeNames) {
  Lexer lexer("%get-tuple-element.154 ROOT x.1: size=3");
  EXPECT_EQ(lexer.Next().kind, TokKind::kName);
  EXPECT_EQ(lexer.current().text, "get-tuple-element.154");
  EXPECT_EQ(lexer.Next().kind, TokKind::kIdent);
  EXPECT_EQ(lexer.current().text, "ROOT");
  EXPECT_EQ(lexer.Next().kind, TokKind::kIdent);
  EXPECT_EQ(lexer.current().text, "x.1");
  EXPECT_EQ(lexer.Next().kind, TokKind::kColon);
  EXPECT_EQ(lexer.Next().kind, TokKind::kAttrName);
  EXPECT_EQ(lexer.current().text, "size");
  EXPECT_EQ(lexer.Next().kind, TokKind::kInt);
  EXPECT_EQ(lexer.current().int_value, 3);
}

TEST(LexerTest, CompoundTokens) {
  EXPECT_EQ(Kinds("b01f_01io->b01f 3x3 0_0x1_1_0 -1_2 3"),
            (std::vector<TokKind>{TokKind::kDimLabels, TokKind::kDxD, TokKind::kPad, TokKind::kPad,
                                  TokKind::kInt}));
  EXPECT_EQ(Kinds("bf16[2]"), (std::vector<TokKind>{TokKind::kIdent, TokKind::kLbracket,
                                                    TokKind::kInt, TokKind::kRbracket}));
}

TEST(LexerTest, Numbers) {
  Lexer lexer("-inf nan(0x1F) -nan 1.5e3 .5 18446744073709551615 -9223372036854775808");
  EXPECT_EQ(lexer.Next().kind, TokKind::kFloat);
  EXPECT_TRUE(lexer.current().float_value < 0 && __builtin_isinf(lexer.current().float_value));
  EXPECT_EQ(lexer.Next().kind, TokKind::kFloat);
  EXPECT_TRUE(lexer.current().has_nan_payload);
  EXPECT_EQ(lexer.current().nan_payload, 0x1Fu);
  EXPECT_EQ(lexer.Next().kind, TokKind::kFloat);
  EXPECT_TRUE(__builtin_isnan(lexer.current().float_value));
  EXPECT_EQ(lexer.Next().float_value, 1500.0);
  EXPECT_EQ(lexer.Next().float_value, 0.5);
  EXPECT_EQ(lexer.Next().kind, TokKind::kInt);
  EXPECT_TRUE(lexer.current().int_above_int64);
  EXPECT_EQ(lexer.current().int_value, -1);
  EXPECT_EQ(lexer.Next().int_value, INT64_MIN);
  EXPECT_EQ(Kinds("18446744073709551616").back(), TokKind::kError);
  EXPECT_EQ(Kinds("0x1F").back(), TokKind::kError);
}

TEST(LexerTest, StringsAndComments) {
  Lexer lexer("/*index=5*/ \"a\\\"b\\n\\x41\" // rest\r\n'q' /* unterminated");
  EXPECT_EQ(lexer.Next().kind, TokKind::kString);
  EXPECT_EQ(lexer.string_value(), "a\"b\nA");
  EXPECT_EQ(lexer.Next().kind, TokKind::kString);
  EXPECT_EQ(lexer.string_value(), "q");
  EXPECT_EQ(lexer.Next().kind, TokKind::kError);
  EXPECT_EQ(lexer.error(), "unterminated /* comment");
  EXPECT_EQ(Kinds("\"open").back(), TokKind::kError);
}

TEST(LexerTest, PunctuationAndPeek) {
  EXPECT_EQ(
      Kinds("->  <= ... ? * # + ~"),
      (std::vector<TokKind>{TokKind::kArrow, TokKind::kLeq, TokKind::kEllipsis, TokKind::kQuestion,
                            TokKind::kStar, TokKind::kHash, TokKind::kPlus, TokKind::kTilde}));
  Lexer lexer("{ 1 }");
  lexer.Next();
  EXPECT_EQ(lexer.Peek().kind, TokKind::kInt);
  EXPECT_EQ(lexer.current().kind, TokKind::kLbrace);
}

TEST(LexerTest, BraceBlockIsVerbatim) {
  Lexer lexer(R"({"a":{"b":"}"}} next)");
  lexer.Next();
  std::string_view block;
  ASSERT_TRUE(lexer.ScanBraceBlock(&block));
  EXPECT_EQ(block, R"({"a":{"b":"}"}})");
  EXPECT_EQ(lexer.current().text, "next");
  Lexer open("{\"a\": {");
  open.Next();
  EXPECT_FALSE(open.ScanBraceBlock(&block));
}

TEST(LexerTest, GarbageNeverLoops) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  Lexer lexer(bytes);
  int steps = 0;
  while (lexer.Next().kind != TokKind::kEof && lexer.current().kind != TokKind::kError) {
    ASSERT_LT(++steps, 1000);
  }
}

}  // namespace
}  // namespace xlite
