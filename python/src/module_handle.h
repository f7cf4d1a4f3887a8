// xlite.Module on the C++ side: one parsed, immutable HloModule. Every
// operation that transforms (compiling, optimizing, partitioning) works on a
// clone, so a Python Module never changes under its user.
#ifndef XLITE_PYTHON_SRC_MODULE_HANDLE_H_
#define XLITE_PYTHON_SRC_MODULE_HANDLE_H_

#include <memory>
#include <string>

#include "xlite/ir/module.h"

namespace xlite::python {

struct ModuleHandle {
  std::shared_ptr<const HloModule> module;
};

// Parses `text` (errors name `filename`); the module need not verify.
ModuleHandle ParseModuleText(const std::string& text, const std::string& filename);

// Every violation of the verifier, one per line, as XliteError.
void VerifyOrThrow(const HloModule& module);

}  // namespace xlite::python

#endif  // XLITE_PYTHON_SRC_MODULE_HANDLE_H_
