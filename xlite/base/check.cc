#include "xlite/base/check.h"

#include <cstdio>
#include <cstdlib>

namespace xlite::internal {

void CheckFailed(const char* file, int line, const char* condition) {
  std::fprintf(stderr, "%s:%d: internal check failed: %s\n", file, line, condition);
  std::abort();
}

}  // namespace xlite::internal
