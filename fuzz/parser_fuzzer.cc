// libFuzzer entry point: any bytes go to the parser; whatever parses is also
// verified and printed; the printed text must parse again and print the same
// (a fixed point), and the short parsable form must parse too. A module that
// verifies then goes through cost analysis and the default pass pipeline,
// which may refuse it with an error but never crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/check.h"
#include "xlite/passes/pipeline.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace {

// Cost analysis and the default pipeline on a verified module.
void OptimizeAndCost(xlite::HloModule& module) {
  (void)xlite::AnalyzeModuleCost(module);
  static xlite::PassPipeline* const pipeline = [] {
    auto parsed = xlite::ParsePipelineSpec("default");
    XLITE_CHECK(parsed.ok());
    return new xlite::PassPipeline(*std::move(parsed));
  }();
  xlite::PipelineReport report;
  (void)pipeline->Run(module, xlite::PipelineOptions(), &report);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = xlite::ParseHloModule(text);
  if (!module.ok()) return 0;
  const bool valid = xlite::VerifyModule(**module).ok();
  const std::string printed = xlite::PrintModule(**module);
  // The printer promises these; a failure is a bug to report.
  auto reparsed = xlite::ParseHloModule(printed);
  XLITE_CHECK(reparsed.ok());
  XLITE_CHECK(xlite::PrintModule(**reparsed) == printed);
  const std::string short_form = xlite::PrintModule(**module, xlite::ShortParsablePrintOptions());
  XLITE_CHECK(xlite::ParseHloModule(short_form).ok());
  if (valid) OptimizeAndCost(**module);
  return 0;
}
