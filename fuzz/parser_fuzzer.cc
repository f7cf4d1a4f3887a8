// libFuzzer entry point: any bytes go to the parser; whatever parses is also
// verified and printed, and the printed text must parse again.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "xlite/analysis/verifier.h"
#include "xlite/base/check.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = xlite::ParseHloModule(text);
  if (!module.ok()) return 0;
  (void)xlite::VerifyModule(**module);
  const std::string printed = xlite::PrintModule(**module);
  // The printer promises parse(print(m)) works; a failure is a bug to report.
  XLITE_CHECK(xlite::ParseHloModule(printed).ok());
  return 0;
}
