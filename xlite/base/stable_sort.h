// A stable sort of a vector (insertion-sorted runs, then bottom-up merges
// through one scratch vector). libstdc++ 12's std::stable_sort goes through
// the deprecated std::get_temporary_buffer, which clang 19 warns about in
// C++20; this one needs no temporary buffer API and calls `less` O(n log n)
// times, like std::stable_sort. `less` need not be a strict weak order: the
// result is then some permutation, deterministically.
#ifndef XLITE_BASE_STABLE_SORT_H_
#define XLITE_BASE_STABLE_SORT_H_

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace xlite {

template <typename T, typename Less>
void StableSort(std::vector<T>& values, Less less) {
  const size_t n = values.size();
  constexpr size_t kRun = 16;
  for (size_t lo = 0; lo < n; lo += kRun) {
    const size_t hi = std::min(lo + kRun, n);
    for (size_t i = lo + 1; i < hi; ++i) {
      T x = std::move(values[i]);
      size_t j = i;
      for (; j > lo && less(x, values[j - 1]); --j) values[j] = std::move(values[j - 1]);
      values[j] = std::move(x);
    }
  }
  if (n <= kRun) return;
  std::vector<T> scratch(n);
  std::vector<T>* from = &values;
  std::vector<T>* to = &scratch;
  for (size_t width = kRun; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(lo + width, n);
      const size_t hi = std::min(lo + 2 * width, n);
      // std::merge takes from the first range on ties: stable.
      std::merge(std::make_move_iterator(from->begin() + lo),
                 std::make_move_iterator(from->begin() + mid),
                 std::make_move_iterator(from->begin() + mid),
                 std::make_move_iterator(from->begin() + hi), to->begin() + lo, less);
    }
    std::swap(from, to);
  }
  if (from != &values) values = std::move(*from);
}

}  // namespace xlite

#endif  // XLITE_BASE_STABLE_SORT_H_
