#include "xlite/tools/flag_checks.h"

#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace xlite::tools {
namespace {

template <typename T>
bool ParseWhole(const std::string& text, T& value) {
  const char* end = text.data() + text.size();
  auto [at, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && at == end;
}

}  // namespace

CLI::Validator IntegerIn(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        int64_t value = 0;
        if (ParseWhole(text, value) && value >= lo && value <= hi) return "";
        return absl::StrCat("must be an integer from ", lo, " to ", hi, " (got '", text, "')");
      },
      absl::StrCat("INT in [", lo, ", ", hi, "]"));
}

CLI::Validator UnsignedInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t value = 0;
        if (!text.empty() && text[0] != '-' && text[0] != '+' && ParseWhole(text, value)) {
          return "";
        }
        return absl::StrCat("must be an integer from 0 to 18446744073709551615 (got '", text, "')");
      },
      "UINT64");
}

CLI::Validator SecondsUpTo(double max_seconds) {
  return CLI::Validator(
      [max_seconds](std::string& text) -> std::string {
        double value = 0;
        if (ParseWhole(text, value) && std::isfinite(value) && value > 0 && value <= max_seconds) {
          return "";
        }
        return absl::StrCat("must be a number of seconds above 0 and at most ", max_seconds,
                            " (got '", text, "')");
      },
      absl::StrCat("SECONDS in (0, ", max_seconds, "]"));
}

}  // namespace xlite::tools
