// The reference evaluator behind the runtime::Executable interface: the
// "interpreter" backend of `xlite run --backend` and the oracle the other
// backends are compared against.
#ifndef XLITE_EVAL_INTERPRETER_EXECUTABLE_H_
#define XLITE_EVAL_INTERPRETER_EXECUTABLE_H_

#include <memory>

#include "xlite/ir/module.h"
#include "xlite/runtime/executable.h"

namespace xlite::eval {

// `module` must outlive the executable (it is evaluated in place).
std::unique_ptr<runtime::Executable> MakeInterpreterExecutable(const HloModule& module);

}  // namespace xlite::eval

#endif  // XLITE_EVAL_INTERPRETER_EXECUTABLE_H_
