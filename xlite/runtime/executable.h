// A module compiled for one backend and run many times on host literals.
// `xlite run`, `xlite bench` and the differential tests hold every backend
// (the interpreter, the cpu backend) through this interface and pick by name.
#ifndef XLITE_RUNTIME_EXECUTABLE_H_
#define XLITE_RUNTIME_EXECUTABLE_H_

#include <chrono>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/ir/literal.h"

namespace xlite::runtime {

// Fixed when the module is compiled.
struct CompileOptions {
  // Worker threads for parallel loops and library calls; 0 means one per core.
  int threads = 0;
  // Time every kernel and thunk so that ProfileReport() can list them.
  bool profile = false;
};

// Given anew for every execution.
struct ExecuteOptions {
  // Seed of the `rng` op's stream.
  uint64_t rng_seed = 0;
  // The execution stops with DeadlineExceeded once this time has passed.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

class Executable {
 public:
  virtual ~Executable() = default;
  // Runs the entry computation on `args` (one per entry parameter, shapes
  // as the module declares them) and returns its result.
  virtual absl::StatusOr<Literal> Execute(absl::Span<const Literal> args,
                                          const ExecuteOptions& options) = 0;
  // With CompileOptions::profile: the time spent per kernel/thunk over the
  // executions so far, as a table; empty when the backend keeps none.
  virtual std::string ProfileReport() const { return ""; }
  // The bytes of the one arena the backend allocated for the program's
  // buffers (what `xlite mem --backend` reports); -1 when it plans none.
  virtual int64_t arena_bytes() const { return -1; }
  // The working space its library calls (convolutions) were given at
  // compile time, beside the arena; 0 when none.
  virtual int64_t scratch_bytes() const { return 0; }
};

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_EXECUTABLE_H_
