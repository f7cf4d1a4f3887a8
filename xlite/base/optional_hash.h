// HashOptional: makes an std::optional hashable with absl::Hash (this absl
// build hashes absl::optional, which is not std::optional). Empty and
// engaged values hash apart.
#ifndef XLITE_BASE_OPTIONAL_HASH_H_
#define XLITE_BASE_OPTIONAL_HASH_H_

#include <optional>
#include <utility>

namespace xlite {

template <typename T>
struct HashedOptional {
  const std::optional<T>& value;

  template <typename H>
  friend H AbslHashValue(H h, const HashedOptional& o) {
    if (!o.value.has_value()) return H::combine(std::move(h), false);
    return H::combine(std::move(h), true, *o.value);
  }
};

template <typename T>
HashedOptional<T> HashOptional(const std::optional<T>& value) {
  return HashedOptional<T>{value};
}

}  // namespace xlite

#endif  // XLITE_BASE_OPTIONAL_HASH_H_
