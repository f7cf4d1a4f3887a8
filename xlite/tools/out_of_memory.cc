#include "xlite/tools/out_of_memory.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "xlite/tools/commands.h"

namespace xlite::tools {
namespace {

char activity[256] = "starting";

}  // namespace

void SetActivity(std::string_view what) {
  size_t n = std::min(what.size(), sizeof(activity) - 1);
  std::memcpy(activity, what.data(), n);
  activity[n] = '\0';
}

int ReportOutOfMemory() {
  std::fflush(stdout);
  std::fputs("xlite: error: out of memory while ", stderr);
  std::fputs(activity, stderr);
  std::fputs("\n", stderr);
  return kExitInvalidInput;
}

}  // namespace xlite::tools
