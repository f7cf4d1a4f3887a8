#include "xlite/runtime/array_summary.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace xlite::runtime {
namespace {

void CollectLeaves(const Literal& value, std::vector<const Literal*>* out) {
  if (value.shape().IsTuple()) {
    for (const Literal& element : value.tuple_elements()) CollectLeaves(element, out);
  } else {
    out->push_back(&value);
  }
}

std::string FormatDouble(double v) { return absl::StrFormat("%.6g", v); }

std::string FormatElement(const Literal& leaf, int64_t i) {
  PrimitiveType t = leaf.shape().element_type();
  if (IsPred(t)) return leaf.GetInt64(i) ? "true" : "false";
  if (IsUnsignedInt(t)) return absl::StrCat(static_cast<uint64_t>(leaf.GetInt64(i)));
  if (IsInteger(t)) return absl::StrCat(leaf.GetInt64(i));
  if (IsComplex(t)) {
    std::complex<double> c = leaf.GetComplex(i);
    return absl::StrCat("(", FormatDouble(c.real()), ",", FormatDouble(c.imag()), ")");
  }
  return FormatDouble(leaf.GetDouble(i));
}

}  // namespace

std::vector<const Literal*> Leaves(const Literal& value) {
  std::vector<const Literal*> leaves;
  CollectLeaves(value, &leaves);
  return leaves;
}

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : bytes) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string LeafChecksum(const Literal& leaf) {
  absl::Span<const uint8_t> raw = leaf.raw_data();
  return absl::StrFormat(
      "%016x", Fnv1a64(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size())));
}

std::string SummarizeLeaf(const Literal& leaf, int64_t max_elements) {
  const Shape& shape = leaf.shape();
  std::string out = shape.ToString(false);
  if (!shape.IsArray()) return out;
  int64_t n = leaf.element_count();
  PrimitiveType t = shape.element_type();
  if (n > 0 && !IsComplex(t)) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
    int64_t nans = 0;
    for (int64_t i = 0; i < n; ++i) {
      double v = leaf.GetDouble(i);
      if (std::isnan(v)) {
        ++nans;
        continue;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    if (nans < n) {
      absl::StrAppend(&out, " min=", FormatDouble(lo), " max=", FormatDouble(hi),
                      " mean=", FormatDouble(sum / static_cast<double>(n - nans)));
    }
    if (nans > 0) absl::StrAppend(&out, " nan=", nans);
  } else if (n > 0) {
    std::complex<double> sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += leaf.GetComplex(i);
    sum /= static_cast<double>(n);
    absl::StrAppend(&out, " mean=(", FormatDouble(sum.real()), ",", FormatDouble(sum.imag()), ")");
  }
  std::vector<std::string> first;
  for (int64_t i = 0; i < std::min(n, max_elements); ++i) first.push_back(FormatElement(leaf, i));
  absl::StrAppend(&out, " first=[", absl::StrJoin(first, ", "), n > max_elements ? ", ..." : "",
                  "] fnv1a64=", LeafChecksum(leaf));
  return out;
}

}  // namespace xlite::runtime
