// fft: FFT and IFFT (complex to complex), RFFT (real to the half spectrum,
// innermost length L/2+1) and IRFFT (half spectrum to real) over the last one
// to three dimensions; the inverse transforms scale by 1/n per axis as XLA
// does. The oracle computes in complex<double> and rounds once at the end:
// an iterative radix-2 FFT for power-of-two lengths, a direct O(n^2) DFT
// otherwise.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/eval/linalg_internal.h"

namespace xlite::eval {
namespace {

using Operands = absl::Span<const Literal* const>;
using Complex = std::complex<double>;

// In-place transform of `x`: forward uses e^{-2 pi i jk/n}; inverse e^{+...}
// and divides by n.
void Transform(std::vector<Complex>& x, bool inverse) {
  const int64_t n = static_cast<int64_t>(x.size());
  if (n <= 1) return;
  const double sign = inverse ? 1.0 : -1.0;
  if ((n & (n - 1)) == 0) {
    for (int64_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
      int64_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j |= bit;
      if (i < j) std::swap(x[i], x[j]);
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
      for (int64_t k = 0; k < len / 2; ++k) {
        const Complex w = std::polar(1.0, sign * 2 * std::numbers::pi * k / len);
        for (int64_t start = 0; start < n; start += len) {
          Complex u = x[start + k], v = x[start + k + len / 2] * w;
          x[start + k] = u + v;
          x[start + k + len / 2] = u - v;
        }
      }
    }
  } else {
    std::vector<Complex> twiddle(n), out(n);
    for (int64_t j = 0; j < n; ++j)
      twiddle[j] = std::polar(1.0, sign * 2 * std::numbers::pi * j / n);
    for (int64_t k = 0; k < n; ++k) {
      Complex sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += x[j] * twiddle[(j * k) % n];
      out[k] = sum;
    }
    x = std::move(out);
  }
  if (inverse) {
    for (Complex& v : x) v /= static_cast<double>(n);
  }
}

// Calls fn(line) for every line of `data` (row-major over `dims`) along
// `axis`; fn may change the line in place.
template <typename Fn>
void ForEachLine(std::vector<Complex>& data, absl::Span<const int64_t> dims, int64_t axis, Fn fn) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  const int64_t n = dims[axis];
  std::vector<Complex> line(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      Complex* base = data.data() + o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) line[j] = base[j * inner];
      fn(line);
      for (int64_t j = 0; j < n; ++j) base[j * inner] = line[j];
    }
  }
}

// Resizes the innermost dimension of row-major `data` from `from` to `to`
// entries (truncating, or zero-filling the new ones).
std::vector<Complex> ResizeInnermost(const std::vector<Complex>& data, int64_t from, int64_t to) {
  const int64_t lines = from == 0 ? 0 : static_cast<int64_t>(data.size()) / from;
  std::vector<Complex> out(lines * to);
  for (int64_t l = 0; l < lines; ++l) {
    for (int64_t j = 0; j < std::min(from, to); ++j) out[l * to + j] = data[l * from + j];
  }
  return out;
}

absl::StatusOr<Literal> Fft(const HloInstruction& inst, Operands operands, EvalContext&) {
  const FftAttrs& attrs = inst.attrs<FftAttrs>();
  const Literal& in = *operands[0];
  const Shape& in_shape = in.shape();
  const Shape& out_shape = inst.shape();
  const int64_t r = static_cast<int64_t>(attrs.length.size());
  const int64_t rank = in_shape.rank();
  if (r < 1 || r > 3 || rank < r || out_shape.rank() != rank) {
    return InvalidArgument("fft: fft_length {", absl::StrJoin(attrs.length, ","),
                           "} must name 1 to 3 of the innermost dimensions of ",
                           in_shape.ToString());
  }
  const bool real_in = attrs.type == FftType::kRfft;
  const bool real_out = attrs.type == FftType::kIrfft;
  const PrimitiveType in_type = in_shape.element_type(), out_type = out_shape.element_type();
  const bool types_ok =
      real_in ? (in_type == PrimitiveType::F32 && out_type == PrimitiveType::C64) ||
                    (in_type == PrimitiveType::F64 && out_type == PrimitiveType::C128)
      : real_out ? (in_type == PrimitiveType::C64 && out_type == PrimitiveType::F32) ||
                       (in_type == PrimitiveType::C128 && out_type == PrimitiveType::F64)
                 : (in_type == PrimitiveType::C64 || in_type == PrimitiveType::C128) &&
                       out_type == in_type;
  if (!types_ok) {
    return InvalidArgument("fft: element types ", AsAbsl(PrimitiveTypeName(in_type)), " -> ",
                           AsAbsl(PrimitiveTypeName(out_type)), " do not fit the fft type");
  }
  // The full (complex) dimensions the transform runs over, and the
  // innermost size of the input and the output.
  std::vector<int64_t> dims(in_shape.dimensions().begin(), in_shape.dimensions().end());
  for (int64_t i = 0; i < r; ++i) dims[rank - r + i] = attrs.length[i];
  const int64_t last = attrs.length.back();
  const int64_t half = last / 2 + 1;
  const int64_t in_last = attrs.type == FftType::kIrfft ? half : last;
  const int64_t out_last = attrs.type == FftType::kRfft ? half : last;
  std::vector<int64_t> want_in = dims, want_out = dims;
  want_in.back() = in_last;
  want_out.back() = out_last;
  if (!std::equal(want_in.begin(), want_in.end(), in_shape.dimensions().begin()) ||
      !std::equal(want_out.begin(), want_out.end(), out_shape.dimensions().begin())) {
    return InvalidArgument("fft: ", in_shape.ToString(), " -> ", out_shape.ToString(),
                           " does not fit fft_length {", absl::StrJoin(attrs.length, ","), "}");
  }
  std::vector<Complex> data(in.element_count());
  for (int64_t i = 0; i < in.element_count(); ++i) data[i] = in.GetComplex(i);
  const bool inverse = attrs.type == FftType::kIfft || attrs.type == FftType::kIrfft;
  // IRFFT transforms the outer axes on the half spectrum, then rebuilds
  // each innermost line by Hermitian symmetry X[L-k] = conj(X[k]).
  std::vector<int64_t> axis_dims = want_in;
  for (int64_t axis = rank - r; axis < rank - 1; ++axis) {
    ForEachLine(data, axis_dims, axis,
                [&](std::vector<Complex>& line) { Transform(line, inverse); });
  }
  if (real_out) {
    data = ResizeInnermost(data, half, last);
    axis_dims.back() = last;
    ForEachLine(data, axis_dims, rank - 1, [&](std::vector<Complex>& line) {
      for (int64_t k = half; k < last; ++k) line[k] = std::conj(line[last - k]);
      Transform(line, true);
    });
  } else {
    ForEachLine(data, axis_dims, rank - 1,
                [&](std::vector<Complex>& line) { Transform(line, inverse); });
    if (real_in) data = ResizeInnermost(data, last, half);
  }
  Literal out(out_shape);
  for (int64_t i = 0; i < out.element_count(); ++i) out.SetComplex(i, data[i]);
  return out;
}

}  // namespace

void RegisterFftOps(OpHandlerTable& table) { table.Register(HloOpcode::kFft, Fft); }

}  // namespace xlite::eval
