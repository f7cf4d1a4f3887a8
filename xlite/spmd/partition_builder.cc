#include "xlite/spmd/partition_builder.h"

#include <algorithm>
#include <limits>

#include "xlite/analysis/reduction_kind.h"
#include "xlite/base/strings.h"
#include "xlite/ir/builder.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {

PartitionBuilder::PartitionBuilder(HloModule& module, int64_t num_partitions,
                                   PartitionReport* report)
    : module_(module), num_partitions_(num_partitions), report_(report), maker_(module) {
  // Channel ids of collectives already in the module (manual code) stay unique.
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) {
      if (AttrsKindOf(inst->opcode()) != AttrsKind::kCollective || !inst->has_attrs()) continue;
      const std::optional<int64_t>& id = inst->attrs<CollectiveAttrs>().channel_id;
      if (id) next_channel_id_ = std::max(next_channel_id_, *id + 1);
    }
  }
}

HloInstruction* PartitionBuilder::PartitionId(HloComputation& c) {
  HloInstruction*& pid = partition_ids_[&c];
  if (pid == nullptr) {
    pid = maker_.Add(c, HloOpcode::kPartitionId, Shape::Scalar(PrimitiveType::U32), {});
  }
  return pid;
}

HloInstruction* PartitionBuilder::Offset(HloComputation& c,
                                         const std::vector<int64_t>& per_partition) {
  HloInstruction*& cached = offsets_[&c][per_partition];
  if (cached != nullptr) return cached;
  const bool uniform = std::all_of(per_partition.begin(), per_partition.end(),
                                   [&](int64_t v) { return v == per_partition.front(); });
  if (uniform) {
    cached = maker_.ScalarConstant(
        c, PrimitiveType::S32, static_cast<double>(per_partition.empty() ? 0 : per_partition[0]));
    return cached;
  }
  const int64_t n = static_cast<int64_t>(per_partition.size());
  Literal table(Shape(PrimitiveType::S32, {n}));
  for (int64_t i = 0; i < n; ++i) table.SetInt64(i, per_partition[i]);
  HloInstruction* constant = maker_.Constant(c, std::move(table));
  auto attrs = std::make_unique<DynamicSliceAttrs>();
  attrs->sizes = {1};
  HloInstruction* entry = maker_.Add(c, HloOpcode::kDynamicSlice, Shape(PrimitiveType::S32, {1}),
                                     {constant, PartitionId(c)}, std::move(attrs));
  cached = maker_.Reshape(c, entry, Shape::Scalar(PrimitiveType::S32));
  return cached;
}

HloInstruction* PartitionBuilder::PadHigh(HloComputation& c, HloInstruction* x,
                                          const std::vector<int64_t>& high) {
  if (std::all_of(high.begin(), high.end(), [](int64_t h) { return h == 0; })) return x;
  const Shape& shape = x->shape();
  Shape padded = shape;
  auto attrs = std::make_unique<PadAttrs>();
  for (int64_t d = 0; d < shape.rank(); ++d) {
    padded.set_dimension(d, shape.dimensions(d) + high[d]);
    attrs->padding.push_back({0, high[d], 0});
  }
  HloInstruction* zero = maker_.Constant(c, Literal(Shape::Scalar(shape.element_type())));
  return maker_.Add(c, HloOpcode::kPad, padded, {x, zero}, std::move(attrs));
}

HloInstruction* PartitionBuilder::SliceTo(HloComputation& c, HloInstruction* x,
                                          const std::vector<int64_t>& sizes) {
  const Shape& shape = x->shape();
  if (std::equal(sizes.begin(), sizes.end(), shape.dimensions().begin(),
                 shape.dimensions().end())) {
    return x;
  }
  auto attrs = std::make_unique<SliceAttrs>();
  attrs->starts.assign(sizes.size(), 0);
  attrs->limits = sizes;
  attrs->strides.assign(sizes.size(), 1);
  Shape sliced = shape;
  sliced.set_dimensions(sizes);
  return maker_.Add(c, HloOpcode::kSlice, sliced, {x}, std::move(attrs));
}

HloInstruction* PartitionBuilder::DynamicSlice(HloComputation& c, HloInstruction* x,
                                               const std::vector<HloInstruction*>& starts,
                                               const std::vector<int64_t>& sizes) {
  std::vector<HloInstruction*> operands = {x};
  operands.insert(operands.end(), starts.begin(), starts.end());
  auto attrs = std::make_unique<DynamicSliceAttrs>();
  attrs->sizes = sizes;
  Shape sliced = x->shape();
  sliced.set_dimensions(sizes);
  return maker_.Add(c, HloOpcode::kDynamicSlice, sliced, operands, std::move(attrs));
}

HloInstruction* PartitionBuilder::MaskBeyond(HloComputation& c, HloInstruction* x, int64_t dim,
                                             HloInstruction* offset, int64_t limit,
                                             const Literal& value) {
  return MaskOutside(c, x, dim, offset, std::numeric_limits<int64_t>::min(), limit,
                     maker_.Constant(c, value));
}

HloInstruction* PartitionBuilder::MaskOutside(HloComputation& c, HloInstruction* x, int64_t dim,
                                              HloInstruction* offset, int64_t low, int64_t high,
                                              HloInstruction* fill) {
  Shape index_shape = x->shape();
  index_shape.set_element_type(PrimitiveType::S32);
  auto iota_attrs = std::make_unique<IntAttrs>();
  iota_attrs->value = dim;
  HloInstruction* iota = maker_.Add(c, HloOpcode::kIota, index_shape, {}, std::move(iota_attrs));
  HloInstruction* global =
      maker_.Binary(c, HloOpcode::kAdd, iota, maker_.Broadcast(c, offset, index_shape, {}));
  HloInstruction* inside = maker_.Compare(
      c, global, maker_.Splat(c, index_shape, static_cast<double>(high)), ComparisonDirection::kLt);
  if (low != std::numeric_limits<int64_t>::min()) {
    HloInstruction* above =
        maker_.Compare(c, global, maker_.Splat(c, index_shape, static_cast<double>(low)),
                       ComparisonDirection::kGe);
    inside = maker_.Binary(c, HloOpcode::kAnd, inside, above);
  }
  return maker_.Select(c, inside, x, maker_.Broadcast(c, fill, x->shape(), {}));
}

namespace {

ReplicaGroups ExplicitGroups(const DeviceGroups& groups) {
  ReplicaGroups out;
  out.groups = groups;
  return out;
}

const char* KindName(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllGather:
      return "all-gather";
    case HloOpcode::kAllReduce:
      return "all-reduce";
    case HloOpcode::kReduceScatter:
      return "reduce-scatter";
    case HloOpcode::kAllToAll:
      return "all-to-all";
    default:
      return "collective-permute";
  }
}

// What an inserted collective's lists (sched, cost, mem) show: the JAX op
// of the consumer (else the producer) it serves, then why it is there; the
// source position of that op.
OpMetadata CauseMetadata(std::string_view kind, const Cause& cause) {
  OpMetadata metadata;
  const HloInstruction* source = cause.consumer;
  if (source == nullptr || source->metadata().op_name.empty()) {
    if (cause.producer != nullptr) source = cause.producer;
  }
  if (source != nullptr) {
    metadata.op_name = source->metadata().op_name;
    metadata.source_file = source->metadata().source_file;
    metadata.source_line = source->metadata().source_line;
    metadata.stack_frame_id = source->metadata().stack_frame_id;
  }
  std::string why = Cat("spmd ", kind);
  if (cause.producer != nullptr) absl::StrAppend(&why, " of %", cause.producer->name());
  if (cause.consumer != nullptr) absl::StrAppend(&why, " for %", cause.consumer->name());
  if (!cause.reason.empty()) absl::StrAppend(&why, ": ", cause.reason);
  metadata.op_name = metadata.op_name.empty() ? why : Cat(metadata.op_name, " [", why, "]");
  return metadata;
}

}  // namespace

HloInstruction* PartitionBuilder::Collective(HloComputation& c, HloOpcode opcode, Shape shape,
                                             HloInstruction* x, const DeviceGroups* groups,
                                             const Cause& cause) {
  auto attrs = std::make_unique<CollectiveAttrs>();
  attrs->channel_id = next_channel_id_++;
  if (groups != nullptr) {
    attrs->replica_groups = ExplicitGroups(*groups);
    // all-to-all has no use_global_device_ids: with a channel id its groups
    // are partition ids already.
    attrs->use_global_device_ids = opcode != HloOpcode::kAllToAll;
  }
  const int64_t bytes = std::max(shape.ByteSizeOf(), x->shape().ByteSizeOf());
  HloInstruction* inst = maker_.Add(c, opcode, std::move(shape), {x}, std::move(attrs));
  *inst->mutable_metadata() = CauseMetadata(KindName(opcode), cause);
  InsertedCollective record;
  record.kind = KindName(opcode);
  record.computation = c.name();
  record.name = inst->name();
  record.bytes = bytes;
  if (cause.producer != nullptr) record.producer = cause.producer->name();
  record.producer_sharding = PrintSharding(cause.from);
  if (cause.consumer != nullptr) record.consumer = cause.consumer->name();
  record.needed_sharding = PrintSharding(cause.needed);
  record.reason = cause.reason;
  report_->collectives.push_back(std::move(record));
  return inst;
}

HloInstruction* PartitionBuilder::AllGather(HloComputation& c, HloInstruction* x, int64_t dim,
                                            const DeviceGroups& groups, const Cause& cause) {
  Shape shape = x->shape();
  shape.set_dimension(dim, shape.dimensions(dim) * static_cast<int64_t>(groups.front().size()));
  HloInstruction* gather = Collective(c, HloOpcode::kAllGather, shape, x, &groups, cause);
  gather->set_dimensions({dim});
  return gather;
}

HloInstruction* PartitionBuilder::AllReduce(HloComputation& c, HloInstruction* x,
                                            const DeviceGroups& groups, HloComputation* reducer,
                                            const Cause& cause) {
  HloInstruction* reduce = Collective(c, HloOpcode::kAllReduce, x->shape(), x, &groups, cause);
  reduce->AppendCalledComputation(reducer);
  return reduce;
}

HloInstruction* PartitionBuilder::ReduceScatter(HloComputation& c, HloInstruction* x, int64_t dim,
                                                const DeviceGroups& groups, HloComputation* reducer,
                                                const Cause& cause) {
  Shape shape = x->shape();
  shape.set_dimension(dim, shape.dimensions(dim) / static_cast<int64_t>(groups.front().size()));
  HloInstruction* scatter = Collective(c, HloOpcode::kReduceScatter, shape, x, &groups, cause);
  scatter->set_dimensions({dim});
  scatter->AppendCalledComputation(reducer);
  return scatter;
}

HloInstruction* PartitionBuilder::AllToAll(HloComputation& c, HloInstruction* x, int64_t dim,
                                           const DeviceGroups& groups, const Cause& cause) {
  HloInstruction* exchange = Collective(c, HloOpcode::kAllToAll, x->shape(), x, &groups, cause);
  exchange->set_dimensions({dim});
  return exchange;
}

HloInstruction* PartitionBuilder::CollectivePermute(
    HloComputation& c, HloInstruction* x, const std::vector<std::pair<int64_t, int64_t>>& pairs,
    const Cause& cause) {
  HloInstruction* permute =
      Collective(c, HloOpcode::kCollectivePermute, x->shape(), x, nullptr, cause);
  permute->mutable_attrs<CollectiveAttrs>()->source_target_pairs = pairs;
  return permute;
}

HloComputation* PartitionBuilder::Reducer(ReductionKind kind, PrimitiveType type) {
  HloComputation*& cached = reducers_[{static_cast<int>(kind), static_cast<int>(type)}];
  if (cached != nullptr) return cached;
  std::string name = Cat(ReductionKindName(kind), ".", PrimitiveTypeName(type), ".spmd_reducer");
  auto computation = std::make_unique<HloComputation>(name);
  HloComputation* raw =
      module_.AddComputationBefore(std::move(computation), module_.computations().front().get());
  Shape scalar = Shape::Scalar(type);
  auto param = [&](int64_t number) {
    auto attrs = std::make_unique<ParameterAttrs>();
    attrs->number = number;
    HloInstruction* p = maker_.Add(*raw, HloOpcode::kParameter, scalar, {}, std::move(attrs));
    return p;
  };
  HloInstruction* a = param(0);
  HloInstruction* b = param(1);
  raw->set_root_instruction(maker_.Binary(*raw, ReductionOpcode(kind), a, b));
  cached = raw;
  return raw;
}

void PartitionBuilder::Fallback(const HloInstruction& inst, std::string reason) {
  PartitionFallback record;
  record.computation = inst.parent() != nullptr ? inst.parent()->name() : "";
  record.instruction = inst.name();
  record.opcode = std::string(OpcodeName(inst.opcode()));
  record.reason = std::move(reason);
  report_->fallbacks.push_back(std::move(record));
}

}  // namespace xlite::spmd
