// The counting formulas of the cost analysis that need more than a line:
// convolution taps, reduce-window applications, fusion boundary bytes,
// LAPACK factorizations.
// Internal to cost_analysis.cc (split out to keep each file small).
#ifndef XLITE_ANALYSIS_COST_FORMULAS_H_
#define XLITE_ANALYSIS_COST_FORMULAS_H_

#include <cstdint>

#include "xlite/ir/instruction.h"
#include "xlite/ir/lapack/lapack_targets.h"

namespace xlite::cost_internal {

// Elements of an array shape (0 for tuples, tokens and unbounded dims).
int64_t Elements(const Shape& shape);
// Elements of every array leaf, recursively.
int64_t ElementsRecursive(const Shape& shape);
// Bytes of every array leaf, recursively (what collectives move).
int64_t LeafBytes(const Shape& shape);
// ceil(log2(n)) and floor(log2(n)) for n >= 1 (0 for n <= 1).
int64_t Log2Ceiling(int64_t n);
int64_t Log2Floor(int64_t n);

// 2 x the multiply-adds of a convolution, counting only the (output
// position, kernel tap) pairs that read a real input element: taps over
// padding or over the holes of a base (lhs) dilation are not counted.
double ConvolutionFlops(const HloInstruction& conv);

// How many times reduce-window applies its reducer: (window elements - 1) per
// output element, or, for a window that is a reduce of one dimension
// broadcast back (size 2n-1, padding n-1 on both sides), one reduction plus
// the broadcast as XLA counts it.
double ReduceWindowApplications(const HloInstruction& reduce_window);

// A transpose that only renames dimensions in memory: its layout and its
// operand's order every dimension the same way (size-1 dimensions included,
// as XLA counts it).
bool TransposeIsBitcast(const HloInstruction& transpose);

// Bytes a fusion reads through `value` (a fused parameter or one of its
// get-tuple-elements): slices read only their slice, a dynamic-update-slice
// into it nothing (it aliases the output), broadcast and reshape users the
// whole value each,
// and any other users share one full read (of a tuple: its pointer table).
int64_t FusionParameterReadBytes(const HloInstruction& value);

// Bytes a fusion reads for its fused parameter `param`. A tuple parameter is
// priced per leaf, as XLA's FusionProcessOperandBytesRead does: the leaf's
// get-tuple-element chain is followed as far as it exists and the node it
// stops at is read, so an unread leaf costs the pointer table of its tuple.
int64_t FusionOperandReadBytes(const HloInstruction& param);
// Bytes a fusion writes: each output (tuple element) in full, except one
// made by a dynamic-update-slice, which writes only its update.
int64_t FusionOutputBytes(const HloInstruction& fusion);
// Bytes of constants with more than one element inside the fusion body
// (they are read from memory; scalars are folded into code).
int64_t FusionConstantBytes(const HloComputation& body);

// Flops of a LAPACK custom-call (lapack_flops.cc): published counts of its
// factorization, for every matrix of the batch.
double LapackFlops(const HloInstruction& call, const LapackTarget& target);

}  // namespace xlite::cost_internal

#endif  // XLITE_ANALYSIS_COST_FORMULAS_H_
