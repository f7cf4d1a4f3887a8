// The one exception the bindings throw: nanobind turns it into
// xlite.XliteError, carrying the message the command line prints.
#ifndef XLITE_PYTHON_SRC_ERRORS_H_
#define XLITE_PYTHON_SRC_ERRORS_H_

#include <stdexcept>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace xlite::python {

struct XliteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void ThrowIfError(const absl::Status& status, const std::string& context = "") {
  if (status.ok()) return;
  throw XliteError(context.empty() ? std::string(status.message())
                                   : context + ": " + std::string(status.message()));
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value, const std::string& context = "") {
  ThrowIfError(value.status(), context);
  return *std::move(value);
}

}  // namespace xlite::python

#endif  // XLITE_PYTHON_SRC_ERRORS_H_
