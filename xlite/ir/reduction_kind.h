// The associative binary ops an HLO reducer may be (analysis/reduction_kind.h
// recognises them in a computation); a vocabulary type so that the runtime's
// communicators can carry reductions without depending on the analyses.
#ifndef XLITE_IR_REDUCTION_KIND_H_
#define XLITE_IR_REDUCTION_KIND_H_

#include <cstdint>

namespace xlite {

enum class ReductionKind : uint8_t { kAdd, kMultiply, kMaximum, kMinimum, kAnd, kOr, kXor };

}  // namespace xlite

#endif  // XLITE_IR_REDUCTION_KIND_H_
