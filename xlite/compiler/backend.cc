#include "xlite/compiler/backend.h"

#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xlite/eval/interpreter_executable.h"

namespace xlite::compiler {
namespace {

constexpr std::string_view kInterpreter = "interpreter";

// The reference evaluator: runs the module as written, in place.
class InterpreterBackend : public Backend {
 public:
  std::string_view name() const override { return kInterpreter; }
  absl::Status Prepare(HloModule&) const override { return absl::OkStatus(); }
  absl::StatusOr<std::unique_ptr<runtime::Executable>> Build(
      const HloModule& prepared, const runtime::CompileOptions&) const override {
    return eval::MakeInterpreterExecutable(prepared);
  }
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Backend>, std::less<>> backends;  // by name
};

Registry& TheRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    r->backends.emplace(std::string(kInterpreter), std::make_unique<InterpreterBackend>());
    return r;
  }();
  return *registry;
}

}  // namespace

absl::StatusOr<MemoryReport> Backend::AnalyzeMemory(const HloModule&, int64_t) const {
  return absl::InvalidArgumentError(absl::StrCat(
      "backend '", std::string(name()), "' plans no arena, so it has no memory plan to report"));
}

void RegisterBackend(std::unique_ptr<Backend> backend) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::string name(backend->name());
  registry.backends[name] = std::move(backend);
}

const Backend* FindBackend(std::string_view name) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.backends.find(name);
  return it == registry.backends.end() ? nullptr : it->second.get();
}

std::vector<std::string> BackendNames() {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<std::string> names = {std::string(kInterpreter)};
  for (const auto& [name, backend] : registry.backends) {
    if (name != kInterpreter) names.push_back(name);
  }
  return names;
}

}  // namespace xlite::compiler
