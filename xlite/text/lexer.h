// Hand-written lexer of the HLO text format over a string_view (spec §1.1):
// no allocation per token; compound tokens (dim labels, DxD, pad) recognised
// here, raw JSON dicts and brace blocks scanned on the parser's request.
#ifndef XLITE_TEXT_LEXER_H_
#define XLITE_TEXT_LEXER_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace xlite {

enum class TokKind : uint8_t {
  kEof,
  kError,      // text = offending bytes; message in Lexer::error()
  kName,       // %ident (text without the %)
  kIdent,      // bare identifier, keywords included (ENTRY, ROOT, true, ...)
  kAttrName,   // identifier immediately followed by `=` (text without `=`)
  kInt,        // -?[0-9]+
  kFloat,      // decimal float, inf, -inf, nan, -nan, nan(0x..)
  kString,     // "..." or '...'; Lexer::string_value() holds the unescaped text
  kDimLabels,  // b01f_01io->b01f
  kDxD,        // 3x3
  kPad,        // 0_0x1_1_0
  kEqual,
  kComma,
  kColon,
  kStar,
  kHash,
  kPlus,
  kTilde,
  kLbracket,
  kRbracket,
  kLbrace,
  kRbrace,
  kLparen,
  kRparen,
  kArrow,
  kLeq,
  kQuestion,
  kEllipsis,
};

// Bytes that may continue a name or identifier: [A-Za-z0-9_.-].
extern const std::array<bool, 256> kNameChars;
inline bool IsNameChar(char c) { return kNameChars[static_cast<unsigned char>(c)]; }

struct Token {
  TokKind kind = TokKind::kEof;
  std::string_view text;  // the token's bytes (see TokKind for trimming)
  size_t offset = 0;      // byte offset of the token in the input
  int64_t int_value = 0;  // kInt: value (values above INT64_MAX bit-cast)
  bool int_above_int64 = false;
  double float_value = 0;  // kFloat, and kInt converted
  bool has_nan_payload = false;
  uint64_t nan_payload = 0;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // Advances to the next token and returns it.
  const Token& Next();
  const Token& current() const { return tok_; }
  // The token after the current one, without consuming anything.
  Token Peek();

  // kString: the unescaped value (valid until the next Next()/Peek()).
  std::string_view string_value() const { return string_value_; }
  // kError: what is wrong.
  const std::string& error() const { return error_; }

  // With the current token `{`: scans to its matching `}` (strings respected),
  // returns the text including both braces and makes the token after it
  // current. Fails (returns false) on unbalanced input.
  bool ScanBraceBlock(std::string_view* block);

  std::string_view text() const { return text_; }
  // Continues lexing at byte `pos` (after the parser read bytes itself) and
  // makes the token there current.
  const Token& ResetTo(size_t pos) {
    pos_ = pos;
    return Next();
  }

 private:
  void LexToken(Token* tok);
  void LexGeneral(Token* tok);  // LexToken's path for all but the commonest tokens
  bool SkipSpaceAndComments(Token* tok);
  void LexIdentifier(Token* tok, size_t start);
  void LexNumberLike(Token* tok, size_t start);
  void LexString(Token* tok, size_t start);
  bool LexDimLabels(size_t start, size_t* end) const;
  bool LexPad(size_t start, size_t* end) const;
  bool LexDxD(size_t start, size_t* end) const;
  void SetError(Token* tok, size_t start, std::string message);

  std::string_view text_;
  size_t pos_ = 0;
  Token tok_;
  std::string_view string_value_;
  std::string string_buffer_;
  std::string saved_buffer_;  // string_buffer_ of the current token during Peek()
  std::string error_;
};

}  // namespace xlite

#endif  // XLITE_TEXT_LEXER_H_
