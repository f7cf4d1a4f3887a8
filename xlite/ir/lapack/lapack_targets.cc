#include "xlite/ir/lapack/lapack_targets.h"

#include <algorithm>
#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"

namespace xlite {
namespace {

struct RoutineRow {
  LapackRoutine routine;
  std::string_view real_name;
  std::string_view complex_name;
  int64_t operands;
};

constexpr std::array<RoutineRow, 12> kRoutines = {{
    {LapackRoutine::kPotrf, "potrf", "potrf", 1},
    {LapackRoutine::kTrsm, "trsm", "trsm", 2},
    {LapackRoutine::kGetrf, "getrf", "getrf", 1},
    {LapackRoutine::kGeqrf, "geqrf", "geqrf", 1},
    {LapackRoutine::kOrgqr, "orgqr", "ungqr", 2},
    {LapackRoutine::kSyevd, "syevd", "heevd", 1},
    {LapackRoutine::kGesdd, "gesdd", "gesdd", 1},
    {LapackRoutine::kGesvd, "gesvd", "gesvd", 1},
    {LapackRoutine::kGeev, "geev", "geev", 1},
    {LapackRoutine::kGees, "gees", "gees", 1},
    {LapackRoutine::kGehrd, "gehrd", "gehrd", 1},
    {LapackRoutine::kSytrd, "sytrd", "hetrd", 1},
}};

constexpr std::array<std::pair<char, PrimitiveType>, 4> kTypes = {{
    {'s', PrimitiveType::F32},
    {'d', PrimitiveType::F64},
    {'c', PrimitiveType::C64},
    {'z', PrimitiveType::C128},
}};

const absl::flat_hash_map<std::string, LapackTarget>& Table() {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string, LapackTarget>();
    for (const RoutineRow& row : kRoutines) {
      for (const auto& [letter, type] : kTypes) {
        std::string_view name = IsComplex(type) ? row.complex_name : row.real_name;
        (*t)[absl::StrCat("lapack_", std::string(1, letter), AsAbsl(name), "_ffi")] =
            LapackTarget{row.routine, type, row.operands};
      }
    }
    return t;
  }();
  return *table;
}

PrimitiveType RealOf(PrimitiveType type) {
  return IsComplex(type) ? ComplexComponentType(type) : type;
}

PrimitiveType ComplexOf(PrimitiveType type) {
  return type == PrimitiveType::F64 ? PrimitiveType::C128 : PrimitiveType::C64;
}

// Builds result shapes: the batch dims followed by `minor` dims.
class Results {
 public:
  explicit Results(absl::Span<const int64_t> batch) : batch_(batch.begin(), batch.end()) {}
  Results& Add(PrimitiveType type, std::vector<int64_t> minor) {
    std::vector<int64_t> dims = batch_;
    dims.insert(dims.end(), minor.begin(), minor.end());
    shapes_.emplace_back(type, dims);
    return *this;
  }
  Results& Info() { return Add(PrimitiveType::S32, {}); }
  std::vector<Shape> Take() { return std::move(shapes_); }

 private:
  std::vector<int64_t> batch_;
  std::vector<Shape> shapes_;
};

}  // namespace

const LapackTarget* FindLapackTarget(std::string_view target) {
  auto it = Table().find(std::string(target));
  return it == Table().end() ? nullptr : &it->second;
}

std::vector<std::string> LapackTargetNames() {
  std::vector<std::string> names;
  for (const auto& [name, target] : Table()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

std::string_view LapackRoutineName(LapackRoutine routine, PrimitiveType type) {
  for (const RoutineRow& row : kRoutines) {
    if (row.routine == routine) return IsComplex(type) ? row.complex_name : row.real_name;
  }
  return "";
}

absl::StatusOr<FfiAttributes> ParseFfiAttributes(std::string_view backend_config) {
  FfiAttributes attrs;
  absl::string_view text = absl::StripAsciiWhitespace(AsAbsl(backend_config));
  if (text.empty()) return attrs;
  if (!absl::ConsumePrefix(&text, "{") || !absl::ConsumeSuffix(&text, "}")) {
    return InvalidArgument("backend_config \"", backend_config,
                           "\" is not a typed-FFI attribute dictionary {name = value : type}");
  }
  for (absl::string_view entry : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> parts = absl::StrSplit(entry, absl::ByAnyChar("=:"));
    int64_t value = 0;
    if (parts.size() != 3 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(parts[1]), &value)) {
      return InvalidArgument("backend_config entry \"", absl::StripAsciiWhitespace(entry),
                             "\" is not `name = integer : type`");
    }
    attrs[std::string(absl::StripAsciiWhitespace(parts[0]))] = value;
  }
  return attrs;
}

absl::StatusOr<char> FfiCharAttribute(const FfiAttributes& attrs, std::string_view name,
                                      std::string_view allowed) {
  auto it = attrs.find(std::string(name));
  if (it == attrs.end()) return InvalidArgument("backend_config lacks the attribute ", name);
  const char c = static_cast<char>(it->second);
  if (it->second < 0 || it->second > 127 || allowed.find(c) == std::string_view::npos) {
    return InvalidArgument("backend_config attribute ", name, " = ", it->second,
                           " is not one of \"", allowed, "\"");
  }
  return c;
}

int64_t LapackBatchRank(const Shape& operand0) {
  return operand0.IsArray() ? std::max<int64_t>(operand0.rank() - 2, 0) : 0;
}

absl::StatusOr<std::vector<Shape>> LapackResultShapes(const LapackTarget& target,
                                                      absl::Span<const Shape* const> operands,
                                                      const FfiAttributes& attrs,
                                                      const Shape& declared) {
  if (static_cast<int64_t>(operands.size()) != target.operand_count) {
    return InvalidArgument("takes ", target.operand_count, " operand(s), got ", operands.size());
  }
  const Shape& a = *operands[0];
  if (!a.IsArray() || a.rank() < 2 || a.element_type() != target.type) {
    return InvalidArgument("operand 0 must be a ", PrimitiveTypeName(target.type),
                           " array of rank >= 2, got ", a.ToString());
  }
  const int64_t rank = a.rank();
  const int64_t m = a.dimensions(rank - 2), n = a.dimensions(rank - 1), k = std::min(m, n);
  absl::Span<const int64_t> batch = a.dimensions().subspan(0, rank - 2);
  const PrimitiveType t = target.type, real = RealOf(t);
  const bool square = m == n;
  auto need_square = [&]() -> absl::Status {
    if (square) return absl::OkStatus();
    return InvalidArgument("operand 0 must be square, got ", a.ToString());
  };
  // The second operand: the batch dims of operand 0, then `minor`.
  auto check_second = [&](std::vector<int64_t> minor, bool exact) -> absl::Status {
    const Shape& b = *operands[1];
    std::vector<int64_t> want(batch.begin(), batch.end());
    want.insert(want.end(), minor.begin(), minor.end());
    const bool ok = b.IsArray() && b.element_type() == t &&
                    b.rank() == rank - 2 + static_cast<int64_t>(minor.size()) &&
                    std::equal(batch.begin(), batch.end(), b.dimensions().begin()) &&
                    (!exact || b.dimensions() == absl::Span<const int64_t>(want));
    if (ok) return absl::OkStatus();
    return InvalidArgument("operand 1 ", b.ToString(), " does not fit operand 0 ", a.ToString());
  };
  Results r(batch);
  switch (target.routine) {
    case LapackRoutine::kPotrf:
      XLITE_RETURN_IF_ERROR(need_square());
      XLITE_RETURN_IF_ERROR(FfiCharAttribute(attrs, "uplo", "LU").status());
      return r.Add(t, {n, n}).Info().Take();
    case LapackRoutine::kTrsm: {
      XLITE_RETURN_IF_ERROR(need_square());
      XLITE_ASSIGN_OR_RETURN(char side, FfiCharAttribute(attrs, "side", "LR"));
      XLITE_RETURN_IF_ERROR(FfiCharAttribute(attrs, "uplo", "LU").status());
      XLITE_RETURN_IF_ERROR(FfiCharAttribute(attrs, "trans_x", "NTC").status());
      XLITE_RETURN_IF_ERROR(FfiCharAttribute(attrs, "diag", "NU").status());
      const Shape& b = *operands[1];
      XLITE_RETURN_IF_ERROR(check_second({0, 0}, false));
      if (b.dimensions(rank - 2 + (side == 'L' ? 0 : 1)) != n) {
        return InvalidArgument("operand 1 ", b.ToString(), " does not fit the ",
                               side == 'L' ? "left" : "right", " of ", a.ToString());
      }
      return std::vector<Shape>{Shape(t, b.dimensions())};
    }
    case LapackRoutine::kGetrf:
      return r.Add(t, {m, n}).Add(PrimitiveType::S32, {k}).Info().Take();
    case LapackRoutine::kGeqrf:
      return r.Add(t, {m, n}).Add(t, {k}).Take();
    case LapackRoutine::kOrgqr: {
      const Shape& tau = *operands[1];
      XLITE_RETURN_IF_ERROR(check_second({0}, false));
      if (m < n || tau.dimensions(rank - 2) > n) {
        return InvalidArgument("needs rows >= columns >= reflectors, got ", a.ToString(), " and ",
                               tau.ToString());
      }
      return std::vector<Shape>{Shape(t, a.dimensions())};
    }
    case LapackRoutine::kSyevd:
      XLITE_RETURN_IF_ERROR(need_square());
      XLITE_RETURN_IF_ERROR(FfiCharAttribute(attrs, "uplo", "LU").status());
      XLITE_RETURN_IF_ERROR(FfiCharAttribute(attrs, "mode", "NV").status());
      return r.Add(t, {n, n}).Add(real, {n}).Info().Take();
    case LapackRoutine::kGesdd:
    case LapackRoutine::kGesvd: {
      XLITE_ASSIGN_OR_RETURN(char mode, FfiCharAttribute(attrs, "mode", "ASN"));
      const bool reduced = mode == 'S';
      std::vector<Shape> shapes = r.Add(t, {m, n})
                                      .Add(real, {k})
                                      .Add(t, {m, reduced ? k : m})
                                      .Add(t, {reduced ? k : n, n})
                                      .Info()
                                      .Take();
      for (int i : {2, 3}) {
        if (mode != 'N' || !declared.IsTuple() || declared.tuple_size() != 5) break;
        const Shape& free = declared.tuple_shapes(i);
        if (free.IsArray() && free.rank() == rank &&
            std::equal(batch.begin(), batch.end(), free.dimensions().begin()))
          shapes[i] = Shape(t, free.dimensions());
      }
      return shapes;
    }
    case LapackRoutine::kGeev:
      XLITE_RETURN_IF_ERROR(need_square());
      XLITE_RETURN_IF_ERROR(FfiCharAttribute(attrs, "compute_left", "NV").status());
      XLITE_RETURN_IF_ERROR(FfiCharAttribute(attrs, "compute_right", "NV").status());
      if (IsComplex(t)) return r.Add(t, {n}).Add(t, {n, n}).Add(t, {n, n}).Info().Take();
      return r.Add(t, {n})
          .Add(t, {n})
          .Add(ComplexOf(t), {n, n})
          .Add(ComplexOf(t), {n, n})
          .Info()
          .Take();
    case LapackRoutine::kGees:
      XLITE_RETURN_IF_ERROR(need_square());
      XLITE_RETURN_IF_ERROR(FfiCharAttribute(attrs, "mode", "NV").status());
      XLITE_RETURN_IF_ERROR(FfiCharAttribute(attrs, "sort", "N").status());
      r.Add(t, {n, n}).Add(t, {n, n}).Add(t, {n});
      if (!IsComplex(t)) r.Add(t, {n});
      return r.Info().Info().Take();
    case LapackRoutine::kGehrd: {
      XLITE_RETURN_IF_ERROR(need_square());
      auto low = attrs.find("low"), high = attrs.find("high");
      if (low == attrs.end() || high == attrs.end()) {
        return InvalidArgument("backend_config lacks the attributes low and high");
      }
      if (low->second < 1 || high->second > std::max<int64_t>(n, 1) ||
          low->second > high->second + 1) {
        return InvalidArgument("low = ", low->second, ", high = ", high->second,
                               " do not satisfy 1 <= low <= high + 1, high <= ", n);
      }
      return r.Add(t, {n, n}).Add(t, {std::max<int64_t>(n - 1, 0)}).Info().Take();
    }
    case LapackRoutine::kSytrd: {
      XLITE_RETURN_IF_ERROR(need_square());
      XLITE_RETURN_IF_ERROR(FfiCharAttribute(attrs, "uplo", "LU").status());
      const int64_t off = std::max<int64_t>(n - 1, 0);
      return r.Add(t, {n, n}).Add(real, {n}).Add(real, {off}).Add(t, {off}).Info().Take();
    }
  }
  return InvalidArgument("unknown LAPACK routine");
}

}  // namespace xlite
