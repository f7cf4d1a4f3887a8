// XLITE_CHECK: aborts with a message on a broken internal invariant. Only for
// programmer errors; user input is answered with an absl::Status instead.
#ifndef XLITE_BASE_CHECK_H_
#define XLITE_BASE_CHECK_H_

namespace xlite::internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition);
}  // namespace xlite::internal

#define XLITE_CHECK(condition)                                                        \
  do {                                                                                \
    if (!(condition)) ::xlite::internal::CheckFailed(__FILE__, __LINE__, #condition); \
  } while (0)

#endif  // XLITE_BASE_CHECK_H_
