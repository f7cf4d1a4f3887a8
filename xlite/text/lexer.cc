#include "xlite/text/lexer.h"

#include <array>
#include <charconv>
#include <utility>

namespace xlite {

// Names and identifiers make up most of the text, so their characters are
// classified by one table load rather than a chain of comparisons.
constexpr std::array<bool, 256> kNameChars = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) {
    table[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '.' || c == '-';
  }
  return table;
}();

namespace {

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsNameChar(c); }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

void Lexer::SetError(Token* tok, size_t start, std::string message) {
  tok->kind = TokKind::kError;
  tok->offset = start;
  tok->text = text_.substr(start, pos_ > start ? pos_ - start : 1);
  error_ = std::move(message);
  pos_ = text_.size();  // everything after an error is unreliable
}

bool Lexer::SkipSpaceAndComments(Token* tok) {
  // A local cursor: the compiler keeps it in a register across the loop.
  const char* const begin = text_.data();
  const char* const end = begin + text_.size();
  const char* p = begin + pos_;
  while (p < end) {
    char c = *p;
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      ++p;
    } else if (c == '/' && p + 1 < end && p[1] == '*') {
      size_t close = text_.find("*/", static_cast<size_t>(p - begin) + 2);
      if (close == std::string_view::npos) {
        pos_ = static_cast<size_t>(p - begin);
        SetError(tok, pos_, "unterminated /* comment");
        return false;
      }
      p = begin + close + 2;
    } else if (c == '/' && p + 1 < end && p[1] == '/') {
      while (p < end && *p != '\n' && *p != '\r') ++p;
    } else {
      break;
    }
  }
  pos_ = static_cast<size_t>(p - begin);
  return true;
}

const Token& Lexer::Next() {
  LexToken(&tok_);
  return tok_;
}

Token Lexer::Peek() {
  size_t saved_pos = pos_;
  Token saved_tok = tok_;
  std::string_view saved_value = string_value_;
  std::string saved_error = error_;
  std::swap(saved_buffer_, string_buffer_);
  Token next = Next();
  std::swap(saved_buffer_, string_buffer_);
  pos_ = saved_pos;
  tok_ = saved_tok;
  string_value_ = saved_value;
  error_ = std::move(saved_error);
  return next;
}

namespace {

// The numeric fields of a token are only meaningful for kInt and kFloat and
// are set (or reset) where those are made.
void ResetNumber(Token* tok) {
  tok->int_value = 0;
  tok->int_above_int64 = false;
  tok->float_value = 0;
  tok->has_nan_payload = false;
  tok->nan_payload = 0;
}

}  // namespace

// Bytes that are a whole token by themselves (kEof for every other byte).
constexpr std::array<TokKind, 256> kSingleByteTokens = [] {
  constexpr std::pair<char, TokKind> kPunctuation[] = {
      {'=', TokKind::kEqual},  {',', TokKind::kComma},    {':', TokKind::kColon},
      {'*', TokKind::kStar},   {'#', TokKind::kHash},     {'+', TokKind::kPlus},
      {'~', TokKind::kTilde},  {'[', TokKind::kLbracket}, {']', TokKind::kRbracket},
      {'{', TokKind::kLbrace}, {'}', TokKind::kRbrace},   {'(', TokKind::kLparen},
      {')', TokKind::kRparen}};
  std::array<TokKind, 256> table{};
  table.fill(TokKind::kEof);
  for (const auto& [byte, kind] : kPunctuation) table[static_cast<unsigned char>(byte)] = kind;
  return table;
}();

void Lexer::LexToken(Token* tok) {
  // Punctuation, %names, identifiers and numbers after plain spaces make up
  // most tokens; they are read here, everything else by the general lexer.
  const char* const begin = text_.data();
  const size_t n = text_.size();
  size_t pos = pos_;
  while (pos < n && (begin[pos] == ' ' || begin[pos] == '\n')) ++pos;
  if (pos < n) {
    const char c = begin[pos];
    const TokKind single = kSingleByteTokens[static_cast<unsigned char>(c)];
    if (single != TokKind::kEof) {
      tok->kind = single;
      tok->text = std::string_view(begin + pos, 1);
      tok->offset = pos;
      pos_ = pos + 1;
      return;
    }
    if (IsIdentStart(c) || IsDigit(c)) {
      tok->offset = pos;
      pos_ = pos;
      if (IsDigit(c)) {
        LexNumberLike(tok, pos);
      } else {
        LexIdentifier(tok, pos);
      }
      return;
    }
    if (c == '%') {
      size_t end = pos + 1;
      while (end < n && IsNameChar(begin[end])) ++end;
      if (end > pos + 1) {
        tok->kind = TokKind::kName;
        tok->text = std::string_view(begin + pos + 1, end - pos - 1);
        tok->offset = pos;
        pos_ = end;
        return;
      }
    }
  }
  pos_ = pos;
  LexGeneral(tok);
}

void Lexer::LexGeneral(Token* tok) {
  tok->kind = TokKind::kEof;
  tok->text = {};
  const size_t n = text_.size();
  if (!SkipSpaceAndComments(tok)) return;
  size_t start = pos_;
  tok->offset = start;
  if (pos_ >= n) {
    tok->kind = TokKind::kEof;
    tok->text = text_.substr(n);
    return;
  }
  char c = text_[pos_];
  auto single = [&](TokKind kind) {
    ++pos_;
    tok->kind = kind;
    tok->text = text_.substr(start, 1);
  };
  if (const TokKind punctuation = kSingleByteTokens[static_cast<unsigned char>(c)];
      punctuation != TokKind::kEof) {
    single(punctuation);
    return;
  }
  switch (c) {
    case '%': {
      ++pos_;
      size_t name_start = pos_;
      while (pos_ < n && IsIdentChar(text_[pos_])) ++pos_;
      if (pos_ == name_start) {
        SetError(tok, start, "expected a name after '%'");
        return;
      }
      tok->kind = TokKind::kName;
      tok->text = text_.substr(name_start, pos_ - name_start);
      return;
    }
    case '"':
    case '\'':
      LexString(tok, start);
      return;
    case '<':
      if (pos_ + 1 < n && text_[pos_ + 1] == '=') {
        pos_ += 2;
        tok->kind = TokKind::kLeq;
        tok->text = text_.substr(start, 2);
        return;
      }
      ++pos_;
      SetError(tok, start, "unexpected character '<'");
      return;
    case '.':
      if (text_.substr(pos_, 3) == "...") {
        pos_ += 3;
        tok->kind = TokKind::kEllipsis;
        tok->text = text_.substr(start, 3);
        return;
      }
      if (pos_ + 1 < n && IsDigit(text_[pos_ + 1])) {
        LexNumberLike(tok, start);
        return;
      }
      ++pos_;
      SetError(tok, start, "unexpected character '.'");
      return;
    case '-':
      if (pos_ + 1 < n && text_[pos_ + 1] == '>') {
        pos_ += 2;
        tok->kind = TokKind::kArrow;
        tok->text = text_.substr(start, 2);
        return;
      }
      LexNumberLike(tok, start);
      return;
    case '?': {
      size_t end;
      if (LexDimLabels(start, &end)) {
        pos_ = end;
        tok->kind = TokKind::kDimLabels;
        tok->text = text_.substr(start, end - start);
        return;
      }
      single(TokKind::kQuestion);
      return;
    }
    default:
      break;
  }
  if (IsDigit(c)) {
    LexNumberLike(tok, start);
    return;
  }
  if (IsIdentStart(c)) {
    LexIdentifier(tok, start);
    return;
  }
  ++pos_;
  SetError(tok, start,
           (c >= 0x20 && c < 0x7f) ? std::string("unexpected character '") + c + "'"
                                   : std::string("unexpected byte in input"));
}

void Lexer::LexIdentifier(Token* tok, size_t start) {
  const size_t n = text_.size();
  {
    const char* const begin = text_.data();
    const char* p = begin + pos_;
    const char* const end = begin + n;
    while (p < end && IsIdentChar(*p)) ++p;
    pos_ = static_cast<size_t>(p - begin);
  }
  // Dim labels (`bf01_oi01->bf01`) read as an identifier up to the `-` of
  // their arrow (or up to a `?` dimension), so only such runs are tried.
  size_t end;
  char c = text_[start];
  if ((c == 'b' || c == 'f') && pos_ < n &&
      ((text_[pos_] == '>' && text_[pos_ - 1] == '-') || text_[pos_] == '?') &&
      LexDimLabels(start, &end)) {
    pos_ = end;
    tok->kind = TokKind::kDimLabels;
    tok->text = text_.substr(start, end - start);
    return;
  }
  std::string_view ident = text_.substr(start, pos_ - start);
  tok->text = ident;
  if (ident == "inf") {
    ResetNumber(tok);
    tok->kind = TokKind::kFloat;
    tok->float_value = __builtin_inf();
    return;
  }
  if (ident == "nan") {
    // Rewind and let the number lexer take `nan(0x..)` as well.
    pos_ = start;
    LexNumberLike(tok, start);
    return;
  }
  if (pos_ < n && text_[pos_] == '=' && (pos_ + 1 >= n || text_[pos_ + 1] != '=')) {
    ++pos_;
    tok->kind = TokKind::kAttrName;
    return;
  }
  tok->kind = TokKind::kIdent;
}

// [0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}
bool Lexer::LexDimLabels(size_t start, size_t* end) const {
  const size_t n = text_.size();
  size_t p = start;
  // Runs of digits, '?' and the two role letters of a part.
  auto run = [&](char a, char b) {
    size_t s = p;
    while (p < n && (IsDigit(text_[p]) || text_[p] == '?' || text_[p] == a || text_[p] == b)) {
      ++p;
    }
    return p - s >= 2;
  };
  if (!run('b', 'f')) return false;
  if (p >= n || text_[p] != '_') return false;
  ++p;
  if (!run('i', 'o')) return false;
  if (p + 1 >= n || text_[p] != '-' || text_[p + 1] != '>') return false;
  p += 2;
  if (!run('b', 'f')) return false;
  if (p < n && IsIdentChar(text_[p])) return false;
  *end = p;
  return true;
}

// -?N_-?N(_N)?(x-?N_-?N(_N)?)*
bool Lexer::LexPad(size_t start, size_t* end) const {
  const size_t n = text_.size();
  size_t p = start;
  auto number = [&](bool allow_minus) {
    if (allow_minus && p < n && text_[p] == '-') ++p;
    size_t s = p;
    while (p < n && IsDigit(text_[p])) ++p;
    return p > s;
  };
  while (true) {
    if (!number(true)) return false;
    if (p >= n || text_[p] != '_') return false;
    ++p;
    if (!number(true)) return false;
    if (p < n && text_[p] == '_') {
      ++p;
      if (!number(false)) return false;
    }
    if (p < n && text_[p] == 'x') {
      ++p;
      continue;
    }
    break;
  }
  if (p < n && IsIdentChar(text_[p])) return false;
  *end = p;
  return true;
}

// [0-9]+(x[0-9]+)+
bool Lexer::LexDxD(size_t start, size_t* end) const {
  const size_t n = text_.size();
  size_t p = start;
  int groups = 0;
  while (true) {
    size_t s = p;
    while (p < n && IsDigit(text_[p])) ++p;
    if (p == s) return false;
    ++groups;
    if (p < n && text_[p] == 'x') {
      ++p;
      continue;
    }
    break;
  }
  if (groups < 2 || (p < n && IsIdentChar(text_[p]))) return false;
  *end = p;
  return true;
}

void Lexer::LexNumberLike(Token* tok, size_t start) {
  ResetNumber(tok);
  const size_t n = text_.size();
  size_t end;
  bool negative = text_[start] == '-';
  // Plain numbers are by far the most common: only try the compound tokens
  // when the character after the leading digits can continue one.
  size_t after = start + (negative ? 1 : 0);
  while (after < n && IsDigit(text_[after])) ++after;
  const bool maybe_compound =
      after < n && (text_[after] == '_' || text_[after] == 'x' || text_[after] == 'b' ||
                    text_[after] == 'f' || text_[after] == '?');
  if (maybe_compound) {
    TokKind compound = TokKind::kError;
    if (!negative && LexDimLabels(start, &end)) {
      compound = TokKind::kDimLabels;
    } else if (LexPad(start, &end)) {
      compound = TokKind::kPad;
    } else if (!negative && LexDxD(start, &end)) {
      compound = TokKind::kDxD;
    }
    if (compound != TokKind::kError) {
      pos_ = end;
      tok->kind = compound;
      tok->text = text_.substr(start, end - start);
      return;
    }
  }
  size_t p = start + (negative ? 1 : 0);
  // -inf, nan, -nan, nan(0x..)
  if (text_.substr(p, 3) == "inf" && (p + 3 >= n || !IsIdentChar(text_[p + 3]))) {
    pos_ = p + 3;
    tok->kind = TokKind::kFloat;
    tok->text = text_.substr(start, pos_ - start);
    tok->float_value = negative ? -__builtin_inf() : __builtin_inf();
    return;
  }
  if (text_.substr(p, 3) == "nan") {
    p += 3;
    uint64_t payload = 0;
    bool has_payload = false;
    if (text_.substr(p, 3) == "(0x") {
      size_t q = p + 3;
      size_t digits = 0;
      while (q < n && IsHexDigit(text_[q])) {
        if (++digits > 16) {
          pos_ = q;
          SetError(tok, start, "NaN payload too large");
          return;
        }
        payload = payload * 16 + HexValue(text_[q]);
        ++q;
      }
      if (digits == 0 || q >= n || text_[q] != ')') {
        pos_ = q;
        SetError(tok, start, "malformed NaN payload");
        return;
      }
      // As XLA's lexer: a payload is nonzero and fits a double's mantissa.
      if (payload == 0 || payload > 0x000fffffffffffffull) {
        pos_ = q + 1;
        SetError(tok, start, "NaN payload out of range");
        return;
      }
      p = q + 1;
      has_payload = true;
    } else if (p < n && IsIdentChar(text_[p])) {
      pos_ = p;
      SetError(tok, start, "malformed number");
      return;
    }
    pos_ = p;
    tok->kind = TokKind::kFloat;
    tok->text = text_.substr(start, pos_ - start);
    tok->float_value = negative ? -__builtin_nan("") : __builtin_nan("");
    tok->has_nan_payload = has_payload;
    tok->nan_payload = payload;
    return;
  }
  size_t digits_start = p;
  while (p < n && IsDigit(text_[p])) ++p;
  size_t int_end = p;
  bool is_float = false;
  if (p < n && text_[p] == '.') {
    is_float = true;
    ++p;
    while (p < n && IsDigit(text_[p])) ++p;
  }
  if (p == digits_start || (p == digits_start + 1 && text_[digits_start] == '.')) {
    pos_ = p > start ? p : start + 1;
    SetError(tok, start, "malformed number");
    return;
  }
  if (p < n && (text_[p] == 'e' || text_[p] == 'E')) {
    size_t q = p + 1;
    if (q < n && (text_[q] == '+' || text_[q] == '-')) ++q;
    size_t exp_start = q;
    while (q < n && IsDigit(text_[q])) ++q;
    if (q > exp_start) {
      is_float = true;
      p = q;
    }
  }
  pos_ = p;
  if (p < n && (IsIdentStart(text_[p]) || text_[p] == '.')) {
    while (pos_ < n && IsIdentChar(text_[pos_])) ++pos_;
    SetError(tok, start, "malformed number");
    return;
  }
  tok->text = text_.substr(start, p - start);
  if (is_float) {
    double value = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + start, text_.data() + p, value);
    if (ec != std::errc() || ptr != text_.data() + p) {
      SetError(tok, start, "floating-point literal out of range");
      return;
    }
    tok->kind = TokKind::kFloat;
    tok->float_value = value;
    return;
  }
  uint64_t magnitude = 0;
  for (size_t i = digits_start; i < int_end; ++i) {
    uint64_t d = static_cast<uint64_t>(text_[i] - '0');
    if (magnitude > (UINT64_MAX - d) / 10) {
      SetError(tok, start, "integer literal out of range");
      return;
    }
    magnitude = magnitude * 10 + d;
  }
  if (negative) {
    if (magnitude > (uint64_t{1} << 63)) {
      SetError(tok, start, "integer literal out of range");
      return;
    }
    tok->int_value = static_cast<int64_t>(0 - magnitude);
    tok->float_value = -static_cast<double>(magnitude);
  } else {
    tok->int_value = static_cast<int64_t>(magnitude);
    tok->int_above_int64 = magnitude > static_cast<uint64_t>(INT64_MAX);
    tok->float_value = static_cast<double>(magnitude);
  }
  tok->kind = TokKind::kInt;
}

void Lexer::LexString(Token* tok, size_t start) {
  const size_t n = text_.size();
  const char quote = text_[start];
  size_t p = start + 1;
  bool has_escape = false;
  while (p < n && text_[p] != quote) {
    if (text_[p] == '\\') {
      has_escape = true;
      ++p;
    }
    ++p;
  }
  if (p >= n) {
    pos_ = n;
    SetError(tok, start, "unterminated string");
    return;
  }
  pos_ = p + 1;
  tok->kind = TokKind::kString;
  tok->text = text_.substr(start, pos_ - start);
  std::string_view body = text_.substr(start + 1, p - start - 1);
  if (!has_escape) {
    string_value_ = body;
    return;
  }
  string_buffer_.clear();
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\') {
      string_buffer_.push_back(c);
      continue;
    }
    char e = body[++i];
    switch (e) {
      case 'n':
        string_buffer_.push_back('\n');
        break;
      case 't':
        string_buffer_.push_back('\t');
        break;
      case 'r':
        string_buffer_.push_back('\r');
        break;
      case 'a':
        string_buffer_.push_back('\a');
        break;
      case 'b':
        string_buffer_.push_back('\b');
        break;
      case 'f':
        string_buffer_.push_back('\f');
        break;
      case 'v':
        string_buffer_.push_back('\v');
        break;
      case 'x': {
        int value = 0, digits = 0;
        while (digits < 2 && i + 1 < body.size() && IsHexDigit(body[i + 1])) {
          value = value * 16 + HexValue(body[++i]);
          ++digits;
        }
        if (digits == 0) {
          SetError(tok, start, "malformed \\x escape in string");
          return;
        }
        string_buffer_.push_back(static_cast<char>(value));
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int value = e - '0', digits = 1;
          while (digits < 3 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7') {
            value = value * 8 + (body[++i] - '0');
            ++digits;
          }
          string_buffer_.push_back(static_cast<char>(value));
        } else {
          // \" \' \\ \? and any other escaped character stand for themselves.
          string_buffer_.push_back(e);
        }
    }
  }
  string_value_ = string_buffer_;
}

bool Lexer::ScanBraceBlock(std::string_view* block) {
  const size_t n = text_.size();
  size_t start = tok_.offset;
  size_t p = start;
  int64_t depth = 0;
  while (p < n) {
    char c = text_[p];
    if (c == '"' || c == '\'') {
      ++p;
      while (p < n && text_[p] != c) p += (text_[p] == '\\') ? 2 : 1;
      if (p >= n) return false;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0) {
        *block = text_.substr(start, p + 1 - start);
        pos_ = p + 1;
        Next();
        return true;
      }
    }
    ++p;
  }
  return false;
}

}  // namespace xlite
