// How `xlite run` reports results: the leaves of a (tuple) result in
// depth-first order, a one-line summary per leaf, and the leaf checksum
// (FNV-1a 64 of the leaf's bytes exactly as its .npy data section holds
// them), which the corpus conformance goldens also record.
#ifndef XLITE_RUNTIME_ARRAY_SUMMARY_H_
#define XLITE_RUNTIME_ARRAY_SUMMARY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xlite/ir/literal.h"

namespace xlite::runtime {

// The non-tuple leaves of `value`, depth-first, left to right.
std::vector<const Literal*> Leaves(const Literal& value);

// FNV-1a 64-bit hash (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
uint64_t Fnv1a64(std::string_view bytes);
// 16 lowercase hex digits of Fnv1a64 over the leaf's raw bytes: row-major,
// little-endian, one storage unit per element (pred 0/1 bytes, sub-byte
// types one byte each, f16/bf16/f8 raw bits, complex as (re, im)) — i.e.
// numpy's `arr.tobytes()` of the array as `xlite run --output` writes it.
std::string LeafChecksum(const Literal& leaf);

// "f32[8,4] min=... max=... mean=... first=[...] fnv1a64=..." (at most
// `max_elements` leading elements shown).
std::string SummarizeLeaf(const Literal& leaf, int64_t max_elements = 8);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_ARRAY_SUMMARY_H_
