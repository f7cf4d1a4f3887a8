// The memory plot of `xlite mem --svg`: bytes live (and temporaries alone)
// over the schedule with labelled axes and ticks, the peak marked, and the
// largest buffers live at the peak as labelled bands of their live ranges.
#ifndef XLITE_SCHED_MEMORY_SVG_H_
#define XLITE_SCHED_MEMORY_SVG_H_

#include <string>

#include "xlite/sched/memory_report.h"

namespace xlite {

// At most this many buffers of `report.top_buffers` get a band.
inline constexpr size_t kMemorySvgBands = 12;

std::string MemoryProfileSvg(const MemoryReport& report);

}  // namespace xlite

#endif  // XLITE_SCHED_MEMORY_SVG_H_
