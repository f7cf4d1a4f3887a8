// xlite._xlite: the nanobind module under the `xlite` package. It holds the
// C++ side of Module and Executable; python/xlite/__init__.py is the typed
// public API over it (numpy conversion, JSON reports as dicts, jax).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "arrays.h"
#include "errors.h"
#include "module_handle.h"
#include "program.h"
#include "reports.h"
#include "xlite/ir/computation.h"
#include "xlite/text/printer.h"
#include "xlite/tools/backends.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace xlite::python {
namespace {

nb::tuple ReportTuple(Report report) { return nb::make_tuple(report.json, report.warnings); }

}  // namespace

NB_MODULE(_xlite, m) {
  tools::RegisterBackends();
  nb::exception<XliteError>(m, "XliteError");

  nb::class_<ArrayArgument>(m, "ArrayArgument")
      .def(nb::init<std::string, std::vector<int64_t>, ByteArray>(), "dtype"_a, "shape"_a,
           "bytes"_a);

  nb::class_<ModuleHandle>(m, "ModuleHandle")
      .def_static(
          "parse",
          [](const std::string& text, const std::string& filename) {
            return ParseModuleText(text, filename);
          },
          "text"_a, "filename"_a)
      .def("text", [](const ModuleHandle& h) { return PrintModule(*h.module); })
      .def("verify", [](const ModuleHandle& h) { VerifyOrThrow(*h.module); })
      .def("name", [](const ModuleHandle& h) { return h.module->name(); })
      .def("device_count", [](const ModuleHandle& h) { return h.module->config().DeviceCount(); })
      .def("parameters",
           [](const ModuleHandle& h) {
             nb::list parameters;
             for (const HloInstruction* parameter :
                  h.module->entry_computation()->parameter_instructions()) {
               const Shape& shape = parameter->shape();
               parameters.append(nb::make_tuple(
                   shape.IsArray() ? DtypeName(shape.element_type())
                                   : std::string(PrimitiveTypeName(shape.element_type())),
                   std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end())));
             }
             return parameters;
           })
      .def("cost",
           [](const ModuleHandle& h, const std::string& device, bool spmd, bool xla_compat,
              int64_t top, const std::string& group_by) {
             return ReportTuple(CostJson(*h.module, device, spmd, xla_compat, top, group_by));
           })
      .def("memory",
           [](const ModuleHandle& h, const std::string& backend, const std::string& device,
              const std::string& scheduler, int64_t top, const std::string& group_by) {
             return ReportTuple(MemoryJson(*h.module, backend, device, scheduler, top, group_by));
           })
      .def("schedule",
           [](const ModuleHandle& h, const std::string& device, bool spmd,
              std::optional<int64_t> memory_limit, int max_in_flight, const std::string& group_by) {
             return ReportTuple(
                 ScheduleJson(*h.module, device, spmd, memory_limit, max_in_flight, group_by));
           })
      .def("shard",
           [](const ModuleHandle& h, bool explain, bool partition, const std::string& device,
              const std::vector<std::string>& names) {
             return ReportTuple(ShardJson(*h.module, explain, partition, device, names));
           })
      .def("optimize",
           [](const ModuleHandle& h, const std::string& pipeline, const std::string& passes) {
             Optimized optimized = OptimizeModule(*h.module, pipeline, passes);
             return nb::make_tuple(std::move(optimized.module), optimized.warnings);
           });

  nb::class_<Program>(m, "Program")
      .def_static(
          "compile",
          [](const ModuleHandle& h, const std::string& backend, bool spmd, int threads) {
            return CompileProgram(*h.module, backend, spmd, threads);
          },
          "module"_a, "backend"_a, "spmd"_a, "threads"_a)
      .def_ro("backend", &Program::backend)
      .def("run", &RunProgram, "arguments"_a, "rng_seed"_a);

  m.def("available_backends", &tools::AvailableBackends);
}

}  // namespace xlite::python
