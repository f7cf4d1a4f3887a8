#include "module_handle.h"

#include <vector>

#include "absl/strings/str_join.h"
#include "errors.h"
#include "xlite/analysis/verifier.h"
#include "xlite/text/parser.h"

namespace xlite::python {

ModuleHandle ParseModuleText(const std::string& text, const std::string& filename) {
  ParseOptions options;
  options.filename = filename;
  return ModuleHandle{ValueOrThrow(ParseHloModule(text, options))};
}

void VerifyOrThrow(const HloModule& module) {
  std::vector<std::string> violations = VerifyModuleAll(module, {});
  if (!violations.empty()) throw XliteError(absl::StrJoin(violations, "\n"));
}

}  // namespace xlite::python
