// The schedule's timeline as a Chrome/Perfetto trace (ui.perfetto.dev and
// chrome://tracing open it): one thread per stream, the compute stream and
// one per collective kind, complete ("X") events in microseconds.
#ifndef XLITE_SCHED_TRACE_H_
#define XLITE_SCHED_TRACE_H_

#include <string>

#include "xlite/sched/step_estimate.h"

namespace xlite {

// A JSON object with traceEvents (thread names first, then the slices).
std::string TraceJson(const StepEstimate& estimate, const std::string& module_name);

}  // namespace xlite

#endif  // XLITE_SCHED_TRACE_H_
