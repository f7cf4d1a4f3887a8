// libFuzzer entry point: any bytes go to the parser; whatever parses is also
// verified and printed; the printed text must parse again and print the same
// (a fixed point), and the short parsable form must parse too.
#include <cstddef>
#include <cstdint>
#include <string>
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
  // The printer promises these; a failure is a bug to report.
  auto reparsed = xlite::ParseHloModule(printed);
  XLITE_CHECK(reparsed.ok());
  XLITE_CHECK(xlite::PrintModule(**reparsed) == printed);
  const std::string short_form =
      xlite::PrintModule(**module, xlite::ShortParsablePrintOptions());
  XLITE_CHECK(xlite::ParseHloModule(short_form).ok());
  return 0;
}
