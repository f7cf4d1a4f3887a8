#include "xlite/sched/buffer_assignment.h"

#include <algorithm>

#include "xlite/base/saturating.h"
#include "xlite/ir/computation.h"

namespace xlite {
namespace {

// Every use of `inst` inside a fusion body is elementwise on it, up to the
// root (XLA's AreTransitiveUsesElementwiseOrTuple, without tuples: the user
// is array-shaped).
bool UsesAreElementwise(const HloInstruction& inst) {
  for (const HloInstruction* user : inst.users()) {
    if (!IsElementwiseOpcode(user->opcode())) return false;
    if (!UsesAreElementwise(*user)) return false;
  }
  return true;
}

}  // namespace

bool CanShareOperandBuffer(const HloInstruction& user, int64_t operand_number) {
  if (operand_number < 0 || operand_number >= user.operand_count()) return false;
  const HloInstruction& operand = *user.operand(operand_number);
  const Shape& out = user.shape();
  const Shape& in = operand.shape();
  if (!out.IsArray() || !in.IsArray()) return false;
  if (out.dimensions() != in.dimensions() ||
      BitWidth(out.element_type()) != BitWidth(in.element_type())) {
    return false;
  }
  if (user.opcode() == HloOpcode::kFusion) {
    if (!user.has_attrs() || user.attrs<FusionAttrs>().kind != FusionKind::kLoop) return false;
    const HloComputation* body = user.to_apply();
    if (body == nullptr) return false;
    const HloInstruction* param = body->parameter_instruction(operand_number);
    return param != nullptr && body->root_instruction() != param && UsesAreElementwise(*param);
  }
  return IsElementwiseOpcode(user.opcode());
}

BufferAssignment AssignBuffers(const Liveness& liveness, const BufferAssignmentOptions& options) {
  const AliasAnalysis& aliases = liveness.aliases();
  const DataflowAnalysis& df = aliases.dataflow();
  const std::vector<HloBuffer>& buffers = aliases.buffers();
  const size_t n = buffers.size();
  auto in_arena = [&](int32_t id) {
    if (!options.in_arena.empty()) return static_cast<bool>(options.in_arena[id]);
    return buffers[id].kind != BufferKind::kEntryParameter &&
           buffers[id].kind != BufferKind::kConstant;
  };
  const int64_t align = std::max<int64_t>(1, options.alignment);
  auto arena_size = [&](int32_t id) {
    const int64_t bytes = options.arena_bytes.empty() ? buffers[id].bytes : options.arena_bytes[id];
    return SaturatingMultiply(SaturatingAdd(bytes, align - 1) / align, align);
  };

  BufferAssignment assignment;
  assignment.allocation.resize(n);
  std::vector<LiveRange> ranges(n);
  for (size_t b = 0; b < n; ++b) {
    assignment.allocation[b] = static_cast<int32_t>(b);
    ranges[b] = liveness.BufferRange(static_cast<int32_t>(b));
  }
  // Operand sharing, in schedule order: a temporary first written by `user`
  // takes the allocation of an operand's temporary whose live range ends at
  // `user` (its last reader), as XLA's buffer assignment colocates them.
  if (options.share_operand_buffers) {
    const std::vector<const HloInstruction*>& timeline = liveness.timeline();
    for (int64_t step = 0; step < static_cast<int64_t>(timeline.size()); ++step) {
      const HloInstruction& user = *timeline[step];
      if (!user.shape().IsArray() || user.operand_count() == 0) continue;
      const int32_t out_value = df.ValueDefinedAt(user, {});
      if (out_value < 0) continue;
      const int32_t out = aliases.BufferOfValue(out_value);
      if (buffers[out].kind != BufferKind::kTemporary || !in_arena(out) ||
          ranges[out].start != step || assignment.allocation[out] != out) {
        continue;
      }
      for (int64_t i = 0; i < user.operand_count(); ++i) {
        absl::Span<const int32_t> set = df.ValueSetAt(*user.operand(i), {});
        if (set.size() != 1) continue;
        const int32_t in = aliases.BufferOfValue(set[0]);
        const int32_t alloc = assignment.allocation[in];
        if (in == out || buffers[in].kind != BufferKind::kTemporary || !in_arena(in) ||
            ranges[alloc].end != step || buffers[in].bytes != buffers[out].bytes ||
            arena_size(in) != arena_size(out) || !CanShareOperandBuffer(user, i)) {
          continue;
        }
        // Every operand that reads the buffer (the same operand twice, or a
        // forward of it) must read it elementwise too.
        bool elementwise = true;
        for (int64_t j = 0; j < user.operand_count() && elementwise; ++j) {
          if (j == i) continue;
          for (int32_t v : df.AllValuesAt(*user.operand(j))) {
            if (aliases.BufferOfValue(v) == in && !CanShareOperandBuffer(user, j)) {
              elementwise = false;
              break;
            }
          }
        }
        if (!elementwise) continue;
        assignment.allocation[out] = alloc;
        ranges[alloc].end = std::max(ranges[alloc].end, ranges[out].end);
        ++assignment.shared_buffers;
        break;
      }
    }
  }

  // The live-bytes profile over allocations.
  const size_t steps = liveness.timeline().size();
  std::vector<WideSum> delta(steps + 1, 0), temp_delta(steps + 1, 0);
  for (size_t b = 0; b < n; ++b) {
    if (assignment.allocation[b] != static_cast<int32_t>(b)) continue;
    const LiveRange& range = ranges[b];
    const int64_t bytes = buffers[b].bytes;
    if (range.end < range.start || bytes == 0 || range.start < 0) continue;
    delta[range.start] += bytes;
    delta[std::min<int64_t>(range.end + 1, steps)] -= bytes;
    if (buffers[b].kind == BufferKind::kTemporary) {
      temp_delta[range.start] += bytes;
      temp_delta[std::min<int64_t>(range.end + 1, steps)] -= bytes;
    }
  }
  assignment.bytes_at_step.assign(steps, 0);
  assignment.temp_bytes_at_step.assign(steps, 0);
  WideSum wide_live = 0, wide_temp = 0;
  for (size_t s = 0; s < steps; ++s) {
    wide_live += delta[s];
    wide_temp += temp_delta[s];
    const int64_t live = ClampToInt64(wide_live), temp = ClampToInt64(wide_temp);
    assignment.bytes_at_step[s] = live;
    assignment.temp_bytes_at_step[s] = temp;
    if (live > assignment.peak_bytes) {
      assignment.peak_bytes = live;
      assignment.peak_step = static_cast<int64_t>(s);
    }
    assignment.temp_peak_bytes = std::max(assignment.temp_peak_bytes, temp);
  }

  assignment.offsets.assign(n, -1);
  if (!options.place) return assignment;
  std::vector<HeapInterval> intervals;
  std::vector<int32_t> placed;  // allocation of each interval
  for (size_t b = 0; b < n; ++b) {
    const int32_t id = static_cast<int32_t>(b);
    if (assignment.allocation[b] != id || !in_arena(id)) continue;
    intervals.push_back({arena_size(id), ranges[b].start, ranges[b].end});
    placed.push_back(id);
  }
  HeapResult heap = GlobalDecreasingSizeBestFit(intervals);
  std::vector<int64_t> offset_of_allocation(n, -1);
  for (size_t i = 0; i < placed.size(); ++i) offset_of_allocation[placed[i]] = heap.offsets[i];
  for (size_t b = 0; b < n; ++b) {
    assignment.offsets[b] = offset_of_allocation[assignment.allocation[b]];
  }
  assignment.arena_bytes = heap.heap_bytes;
  assignment.peak_live_bytes = heap.peak_live_bytes;
  return assignment;
}

}  // namespace xlite
