// Error-handling helpers shared by every layer: errors are absl::Status values,
// propagated with XLITE_RETURN_IF_ERROR / XLITE_ASSIGN_OR_RETURN.
#ifndef XLITE_BASE_STATUS_H_
#define XLITE_BASE_STATUS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xlite/base/strings.h"

#define XLITE_CONCAT_INNER_(a, b) a##b
#define XLITE_CONCAT_(a, b) XLITE_CONCAT_INNER_(a, b)

#define XLITE_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::absl::Status xlite_status_ = (expr);         \
    if (!xlite_status_.ok()) return xlite_status_; \
  } while (0)

#define XLITE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return std::move(tmp).status();     \
  lhs = std::move(tmp).value()

#define XLITE_ASSIGN_OR_RETURN(lhs, expr) \
  XLITE_ASSIGN_OR_RETURN_IMPL_(XLITE_CONCAT_(xlite_or_, __LINE__), lhs, expr)

namespace xlite {

// Shorthands for the two error kinds user input produces (arguments as Cat's).
template <typename... Args>
absl::Status InvalidArgument(const Args&... args) {
  return absl::InvalidArgumentError(Cat(args...));
}
template <typename... Args>
absl::Status Unimplemented(const Args&... args) {
  return absl::UnimplementedError(Cat("not supported yet: ", args...));
}

}  // namespace xlite

#endif  // XLITE_BASE_STATUS_H_
