// xlite.Executable on the C++ side: a module compiled once for a backend
// (or partitioned for spmd=True) and run many times on numpy arrays.
#ifndef XLITE_PYTHON_SRC_PROGRAM_H_
#define XLITE_PYTHON_SRC_PROGRAM_H_

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrays.h"
#include "xlite/ir/module.h"
#include "xlite/runtime/executable.h"
#include "xlite/spmd/partitioner.h"

namespace xlite::python {

struct Program {
  std::string backend;
  // The global shapes of the entry parameters, as the caller passes them.
  std::vector<Shape> parameter_shapes;
  std::unique_ptr<HloModule> module;  // as compiled; outlives `executable`
  // spmd=True: how to split the arguments and assemble the result.
  std::optional<spmd::EntryShardings> entry;
  std::unique_ptr<runtime::Executable> executable;  // one device
};

// `backend` empty: the default (cpu when built) on one device, the
// interpreter with `spmd`; `threads` 0: one per core.
std::unique_ptr<Program> CompileProgram(const HloModule& module, std::string backend, bool spmd,
                                        int threads);

// Runs `program` on `arguments` and returns the result leaves (ResultLeaves).
nanobind::list RunProgram(Program& program, const std::vector<ArrayArgument>& arguments,
                          uint64_t rng_seed);

}  // namespace xlite::python

#endif  // XLITE_PYTHON_SRC_PROGRAM_H_
