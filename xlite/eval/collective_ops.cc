// Collective opcodes: all-reduce, all-gather, reduce-scatter, all-to-all,
// ragged-all-to-all, collective-permute, collective-broadcast, send/recv and
// the async -start/-done forms. Groups follow XLA's CollectiveOpGroupMode;
// data moves through the options' Communicator (a group of one needs none).
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "xlite/analysis/reduction_kind.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/eval/element_types.h"
#include "xlite/eval/op_handlers.h"
#include "xlite/eval/reducer.h"
#include "xlite/inference/collective_groups.h"
#include "xlite/ir/computation.h"
#include "xlite/ir/module.h"
#include "xlite/runtime/communicator.h"

namespace xlite::eval {
namespace {

using Operands = absl::Span<const Literal* const>;
using O = HloOpcode;
using Values = std::shared_ptr<const std::vector<Literal>>;

// ------------------------------------------------------------ devices

// This device and the module's device grid.
struct Devices {
  int64_t replica = 0, partition = 0;
  int64_t replicas = 1, partitions = 1;
  int64_t self() const { return replica * partitions + partition; }
  int64_t Global(int64_t r, int64_t p) const { return r * partitions + p; }
};

absl::StatusOr<Devices> DevicesOf(const HloInstruction& inst, const EvalContext& ctx) {
  Devices d;
  d.replica = ctx.options().replica_id;
  d.partition = ctx.options().partition_id;
  if (const ModuleConfig* config = ConfigOf(inst)) {
    d.replicas = std::max<int64_t>(config->replica_count, 1);
    d.partitions = std::max<int64_t>(config->num_partitions, 1);
  }
  if (d.replica < 0 || d.replica >= d.replicas || d.partition < 0 || d.partition >= d.partitions) {
    return InvalidArgument("device (replica ", d.replica, ", partition ", d.partition,
                           ") lies outside the module's ", d.replicas, " replicas x ", d.partitions,
                           " partitions");
  }
  return d;
}

// The participants of a grouped collective, as global device ids in group
// order, and this device's position among them.
struct Group {
  std::vector<int64_t> members;
  int64_t position = 0;
};

absl::StatusOr<Group> GroupOf(const HloInstruction& inst, const EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(Devices d, DevicesOf(inst, ctx));
  CollectiveGroupMode mode = GroupModeOf(inst);
  int64_t bound = 0, mine = 0;
  const char* what = "";
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      bound = d.replicas, mine = d.replica, what = "replica";
      break;
    case CollectiveGroupMode::kCrossPartition:
      bound = d.partitions, mine = d.partition, what = "partition";
      break;
    case CollectiveGroupMode::kFlattenedId:
      bound = d.replicas * d.partitions, mine = d.self(), what = "device";
      break;
  }
  std::vector<std::vector<int64_t>> groups = inst.attrs<CollectiveAttrs>().replica_groups.Groups();
  std::vector<int64_t> ids;
  if (groups.empty()) {
    for (int64_t i = 0; i < bound; ++i) ids.push_back(i);
  }
  std::vector<bool> seen(static_cast<size_t>(bound), false);
  for (const std::vector<int64_t>& g : groups) {
    for (int64_t id : g) {
      if (id < 0 || id >= bound) {
        return InvalidArgument("replica_groups name ", what, " ", id, ", but there are ", bound);
      }
      // Overlapping groups would pair devices differently on each device.
      if (seen[id]) return InvalidArgument("replica_groups list ", what, " ", id, " twice");
      seen[id] = true;
    }
    if (std::find(g.begin(), g.end(), mine) != g.end()) ids = g;
  }
  if (ids.empty()) {
    return InvalidArgument("replica_groups hold no group of ", what, " ", mine);
  }
  Group group;
  for (int64_t id : ids) {
    switch (mode) {
      case CollectiveGroupMode::kCrossReplica:
        group.members.push_back(d.Global(id, d.partition));
        break;
      case CollectiveGroupMode::kCrossPartition:
        group.members.push_back(d.Global(d.replica, id));
        break;
      case CollectiveGroupMode::kCrossReplicaAndPartition:
        // The listed replicas, each with every partition.
        for (int64_t p = 0; p < d.partitions; ++p) group.members.push_back(d.Global(id, p));
        break;
      case CollectiveGroupMode::kFlattenedId:
        group.members.push_back(id);
        break;
    }
  }
  group.position =
      std::find(group.members.begin(), group.members.end(), d.self()) - group.members.begin();
  return group;
}

std::string KeyOf(const HloInstruction& inst) {
  return absl::StrCat(AsAbsl(OpcodeName(inst.opcode())), " %", inst.name());
}

absl::StatusOr<Communicator*> CommunicatorFor(EvalContext& ctx, int64_t devices) {
  if (ctx.options().communicator == nullptr) {
    return InvalidArgument("this collective spans ", devices,
                           " devices; run it on all devices (EvaluateOnAllDevices)");
  }
  return ctx.options().communicator;
}

// Every member's `value`, in group order.
absl::StatusOr<Values> Exchange(const HloInstruction& inst, EvalContext& ctx, const Group& group,
                                Literal value) {
  if (group.members.size() == 1) {
    auto one = std::make_shared<std::vector<Literal>>();
    one->push_back(std::move(value));
    return Values(std::move(one));
  }
  XLITE_ASSIGN_OR_RETURN(Communicator * comm,
                         CommunicatorFor(ctx, static_cast<int64_t>(group.members.size())));
  return comm->Exchange(KeyOf(inst), group.members[group.position], group.members,
                        std::move(value));
}

// The operands as one literal: the operand itself, or a tuple of several.
Literal Pack(Operands operands) {
  if (operands.size() == 1) return *operands[0];
  std::vector<Literal> elements;
  for (const Literal* l : operands) elements.push_back(*l);
  return Literal::Tuple(std::move(elements));
}

// Operand k of a packed value of `count` operands.
const Literal& Part(const Literal& packed, size_t k, size_t count) {
  return count == 1 ? packed : packed.tuple_elements()[k];
}

// Builds the result of each operand k from the members' values.
template <typename Fn>
absl::StatusOr<Literal> PerOperand(size_t count, Fn&& fn) {
  std::vector<Literal> results;
  for (size_t k = 0; k < count; ++k) {
    XLITE_ASSIGN_OR_RETURN(Literal r, fn(k));
    results.push_back(std::move(r));
  }
  if (count == 1) return std::move(results[0]);
  return Literal::Tuple(std::move(results));
}

// ------------------------------------------------ byte-level array moves

int64_t ElementBytes(const Literal& l) { return StorageBytes(l.shape().element_type()); }

// Product of the dimensions before / after `dim`.
int64_t Outer(const Shape& s, int64_t dim) {
  int64_t n = 1;
  for (int64_t i = 0; i < dim; ++i) n *= s.dimensions(i);
  return n;
}
int64_t Inner(const Shape& s, int64_t dim) {
  int64_t n = 1;
  for (int64_t i = dim + 1; i < s.rank(); ++i) n *= s.dimensions(i);
  return n;
}

// Concatenates arrays of one shape along `dim`.
Literal ConcatAlong(const std::vector<const Literal*>& parts, int64_t dim) {
  Shape shape = parts[0]->shape();
  int64_t size = shape.dimensions(dim);
  shape.set_dimension(dim, size * static_cast<int64_t>(parts.size()));
  Literal out(shape);
  int64_t block = size * Inner(shape, dim) * ElementBytes(out);
  uint8_t* dst = out.mutable_raw_data().data();
  for (int64_t o = 0, n = Outer(shape, dim); o < n; ++o) {
    for (const Literal* part : parts) {
      if (block > 0) std::memcpy(dst, part->raw_data().data() + o * block, block);
      dst += block;
    }
  }
  return out;
}

// Block `index` of `count` equal blocks of `l` along `dim`.
Literal BlockAlong(const Literal& l, int64_t dim, int64_t index, int64_t count) {
  Shape shape = l.shape();
  int64_t size = shape.dimensions(dim) / count;
  shape.set_dimension(dim, size);
  Literal out(shape);
  int64_t row = Inner(shape, dim) * ElementBytes(l);
  int64_t block = size * row;
  const uint8_t* src = l.raw_data().data() + index * block;
  uint8_t* dst = out.mutable_raw_data().data();
  for (int64_t o = 0, n = Outer(shape, dim); o < n; ++o) {
    if (block > 0) std::memcpy(dst + o * block, src + o * block * count, block);
  }
  return out;
}

absl::Status CheckSplit(const Literal& l, int64_t dim, int64_t count) {
  if (dim < 0 || dim >= l.shape().rank() || l.shape().dimensions(dim) % count != 0) {
    return InvalidArgument("dimension ", dim, " of ", l.shape().ToString(), " does not split into ",
                           count, " blocks");
  }
  return absl::OkStatus();
}

// --------------------------------------------------------------- reducing

// acc = reducer(acc, x) element by element.
absl::Status Combine(const HloComputation& reducer, std::optional<ReductionKind> kind, Literal& acc,
                     const Literal& x, EvalContext& ctx) {
  if (acc.shape().element_type() != x.shape().element_type() ||
      acc.element_count() != x.element_count()) {
    return InvalidArgument("devices contributed ", acc.shape().ToString(), " and ",
                           x.shape().ToString(), " to one reduction");
  }
  if (kind.has_value() && CombineElementwise(*kind, acc, x)) return absl::OkStatus();
  // XLA's verifier lets a reducer take whole arrays, (T[n], T[n]) -> T[n]
  // (its own tests do); such a reducer combines two contributions at once.
  if (const Shape* param = WholeArrayReducerParameter(reducer)) {
    if (!param->SameElementTypeAndDimensions(acc.shape()) ||
        !param->SameElementTypeAndDimensions(x.shape())) {
      return Unimplemented("reducer %", AsAbsl(reducer.name()), " over ", param->ToString(),
                           " applied to ", acc.shape().ToString());
    }
    const Literal* whole[] = {&acc, &x};
    XLITE_ASSIGN_OR_RETURN(Literal r, ctx.Call(reducer, whole));
    if (!r.shape().SameElementTypeAndDimensions(acc.shape())) {
      return InvalidArgument("reducer %", AsAbsl(reducer.name()), " returned ",
                             r.shape().ToString());
    }
    acc = std::move(r);
    return absl::OkStatus();
  }
  Shape scalar = Shape::Scalar(acc.shape().element_type());
  int64_t bytes = ElementBytes(acc);
  Literal a(scalar), b(scalar);
  const Literal* args[] = {&a, &b};
  for (int64_t i = 0, n = acc.element_count(); i < n; ++i) {
    std::memcpy(a.mutable_raw_data().data(), acc.raw_data().data() + i * bytes, bytes);
    std::memcpy(b.mutable_raw_data().data(), x.raw_data().data() + i * bytes, bytes);
    XLITE_ASSIGN_OR_RETURN(Literal r, ctx.Call(reducer, args));
    std::memcpy(acc.mutable_raw_data().data() + i * bytes, r.raw_data().data(), bytes);
  }
  return absl::OkStatus();
}

// Reduces operand k of every member's packed value, in group order (so every
// device computes bit-identical results).
absl::StatusOr<Literal> ReduceMembers(const HloInstruction& inst, const Values& values, size_t k,
                                      size_t count, EvalContext& ctx) {
  const HloComputation& reducer = *inst.to_apply();
  std::optional<ReductionKind> kind = MatchReductionKind(reducer);
  Literal acc = Part((*values)[0], k, count);
  for (size_t m = 1; m < values->size(); ++m) {
    XLITE_RETURN_IF_ERROR(Combine(reducer, kind, acc, Part((*values)[m], k, count), ctx));
  }
  return acc;
}

// ------------------------------------------------------- native forms

// The communicator when a one-operand collective over `group` may take a
// native form (several operands always go through Exchange).
Communicator* NativeCommunicator(const Group& group, Operands operands, EvalContext& ctx) {
  if (group.members.size() < 2 || operands.size() != 1 || !operands[0]->shape().IsArray()) {
    return nullptr;
  }
  return ctx.options().communicator;
}

// The `count` equal blocks of `l` along `dim`.
std::vector<Literal> BlocksAlong(const Literal& l, int64_t dim, int64_t count) {
  std::vector<Literal> blocks;
  for (int64_t i = 0; i < count; ++i) blocks.push_back(BlockAlong(l, dim, i, count));
  return blocks;
}

// ------------------------------------------------------------- handlers

bool IsBf16Array(const Literal* l) {
  return l->shape().IsArray() && l->shape().element_type() == PrimitiveType::BF16;
}

// XLA:CPU's AllReducePromotion: an all-reduce or reduce-scatter of bf16 with
// a recognised reducer runs `collective` on f32 operands and rounds the
// results (one leaf per operand) back to bf16 once.
using CollectiveHandler = absl::StatusOr<Literal> (*)(const HloInstruction&, Operands,
                                                      EvalContext&);
absl::StatusOr<Literal> PromotingBf16(CollectiveHandler collective, const HloInstruction& inst,
                                      Operands operands, EvalContext& ctx) {
  if (!MatchReductionKind(*inst.to_apply()) || absl::c_none_of(operands, IsBf16Array)) {
    return collective(inst, operands, ctx);
  }
  std::vector<Literal> wide;
  wide.reserve(operands.size());
  for (const Literal* l : operands) {
    if (!IsBf16Array(l)) {
      wide.push_back(*l);
      continue;
    }
    XLITE_ASSIGN_OR_RETURN(Literal w, l->Convert(PrimitiveType::F32));
    wide.push_back(std::move(w));
  }
  std::vector<const Literal*> pointers;
  for (const Literal& l : wide) pointers.push_back(&l);
  XLITE_ASSIGN_OR_RETURN(Literal result, collective(inst, pointers, ctx));
  Literal* leaves = operands.size() == 1 ? &result : result.mutable_tuple_elements().data();
  for (size_t k = 0; k < operands.size(); ++k) {
    if (IsBf16Array(operands[k])) {
      XLITE_ASSIGN_OR_RETURN(leaves[k], leaves[k].Convert(PrimitiveType::BF16));
    }
  }
  return result;
}

absl::StatusOr<Literal> AllReduceInOperandType(const HloInstruction& inst, Operands operands,
                                               EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(Group group, GroupOf(inst, ctx));
  std::optional<ReductionKind> kind = MatchReductionKind(*inst.to_apply());
  if (Communicator* comm = NativeCommunicator(group, operands, ctx); comm && kind) {
    XLITE_ASSIGN_OR_RETURN(std::optional<Literal> native,
                           comm->AllReduce(KeyOf(inst), group.members[group.position],
                                           group.members, *kind, *operands[0]));
    if (native.has_value()) return *std::move(native);
  }
  XLITE_ASSIGN_OR_RETURN(Values values, Exchange(inst, ctx, group, Pack(operands)));
  return PerOperand(operands.size(),
                    [&](size_t k) { return ReduceMembers(inst, values, k, operands.size(), ctx); });
}

absl::StatusOr<Literal> AllReduceValue(const HloInstruction& inst, Operands operands,
                                       EvalContext& ctx) {
  return PromotingBf16(AllReduceInOperandType, inst, operands, ctx);
}

// Older dumps write a one-operand all-reduce-start as (operand, result).
bool IsPairAllReduceStart(const HloInstruction& start) {
  return start.opcode() == O::kAllReduceStart && start.operand_count() == 1 &&
         start.shape().IsTuple() && start.shape().tuple_size() == 2;
}

absl::StatusOr<Literal> AllReduce(const HloInstruction& inst, Operands operands, EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(Literal result, AllReduceValue(inst, operands, ctx));
  if (!IsPairAllReduceStart(inst)) return result;
  std::vector<Literal> pair;
  pair.push_back(*operands[0]);
  pair.push_back(std::move(result));
  return Literal::Tuple(std::move(pair));
}

absl::StatusOr<Literal> AllReduceDone(const HloInstruction& inst, Operands operands, EvalContext&) {
  if (IsPairAllReduceStart(*inst.operand(0))) return operands[0]->tuple_elements()[1];
  return *operands[0];
}

absl::StatusOr<int64_t> OneDimension(const HloInstruction& inst) {
  if (inst.dimensions().size() != 1) {
    return InvalidArgument(AsAbsl(OpcodeName(inst.opcode())), " needs one dimension, got ",
                           inst.dimensions().size());
  }
  return inst.dimensions()[0];
}

absl::StatusOr<Literal> AllGatherValue(const HloInstruction& inst, Operands operands,
                                       EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(int64_t dim, OneDimension(inst));
  for (const Literal* l : operands) XLITE_RETURN_IF_ERROR(CheckSplit(*l, dim, 1));
  XLITE_ASSIGN_OR_RETURN(Group group, GroupOf(inst, ctx));
  XLITE_ASSIGN_OR_RETURN(Values values, Exchange(inst, ctx, group, Pack(operands)));
  return PerOperand(operands.size(), [&](size_t k) -> absl::StatusOr<Literal> {
    std::vector<const Literal*> parts;
    for (const Literal& v : *values) {
      const Literal& part = Part(v, k, operands.size());
      if (part.shape().dimensions() != operands[k]->shape().dimensions()) {
        return InvalidArgument("devices gathered ", operands[k]->shape().ToString(), " and ",
                               part.shape().ToString());
      }
      parts.push_back(&part);
    }
    return ConcatAlong(parts, dim);
  });
}

absl::StatusOr<Literal> AllGather(const HloInstruction& inst, Operands operands, EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(Literal result, AllGatherValue(inst, operands, ctx));
  // all-gather-start: (operands, results), or the results alone in older dumps.
  if (inst.opcode() == O::kAllGather || !inst.shape().IsTuple()) return result;
  std::vector<Literal> pair;
  pair.push_back(Pack(operands));
  pair.push_back(std::move(result));
  return Literal::Tuple(std::move(pair));
}

// all-gather-done, collective-permute-done: element 1 of the start tuple (a
// start written as its result alone passes through).
absl::StatusOr<Literal> StartResult(const HloInstruction&, Operands operands, EvalContext&) {
  if (!operands[0]->shape().IsTuple()) return *operands[0];
  return operands[0]->tuple_elements()[1];
}

absl::StatusOr<Literal> ReduceScatterInOperandType(const HloInstruction& inst, Operands operands,
                                                   EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(int64_t dim, OneDimension(inst));
  XLITE_ASSIGN_OR_RETURN(Group group, GroupOf(inst, ctx));
  int64_t n = static_cast<int64_t>(group.members.size());
  for (const Literal* l : operands) XLITE_RETURN_IF_ERROR(CheckSplit(*l, dim, n));
  std::optional<ReductionKind> kind = MatchReductionKind(*inst.to_apply());
  if (Communicator* comm = NativeCommunicator(group, operands, ctx); comm && kind) {
    XLITE_ASSIGN_OR_RETURN(
        std::optional<Literal> native,
        comm->ReduceScatter(KeyOf(inst), group.members[group.position], group.members, *kind,
                            BlocksAlong(*operands[0], dim, n)));
    if (native.has_value()) return *std::move(native);
  }
  XLITE_ASSIGN_OR_RETURN(Values values, Exchange(inst, ctx, group, Pack(operands)));
  return PerOperand(operands.size(), [&](size_t k) -> absl::StatusOr<Literal> {
    XLITE_ASSIGN_OR_RETURN(Literal sum, ReduceMembers(inst, values, k, operands.size(), ctx));
    return BlockAlong(sum, dim, group.position, n);
  });
}

absl::StatusOr<Literal> ReduceScatter(const HloInstruction& inst, Operands operands,
                                      EvalContext& ctx) {
  return PromotingBf16(ReduceScatterInOperandType, inst, operands, ctx);
}

absl::StatusOr<Literal> AllToAll(const HloInstruction& inst, Operands operands, EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(Group group, GroupOf(inst, ctx));
  int64_t n = static_cast<int64_t>(group.members.size());
  size_t count = operands.size();
  if (inst.dimensions().empty()) {
    // Tuple form: operand j goes to member j; result i comes from member i.
    if (static_cast<int64_t>(count) != n) {
      return InvalidArgument(
          "all-to-all without a split dimension needs one operand per "
          "group member: ",
          count, " operands, ", n, " members");
    }
    XLITE_ASSIGN_OR_RETURN(Values values, Exchange(inst, ctx, group, Pack(operands)));
    std::vector<Literal> results;
    for (const Literal& v : *values) results.push_back(Part(v, group.position, count));
    if (count == 1) return std::move(results[0]);
    return Literal::Tuple(std::move(results));
  }
  XLITE_ASSIGN_OR_RETURN(int64_t dim, OneDimension(inst));
  for (const Literal* l : operands) XLITE_RETURN_IF_ERROR(CheckSplit(*l, dim, n));
  if (Communicator* comm = NativeCommunicator(group, operands, ctx)) {
    XLITE_ASSIGN_OR_RETURN(std::optional<std::vector<Literal>> native,
                           comm->AllToAll(KeyOf(inst), group.members[group.position], group.members,
                                          BlocksAlong(*operands[0], dim, n)));
    if (native.has_value()) {
      std::vector<const Literal*> parts;
      for (const Literal& b : *native) parts.push_back(&b);
      return ConcatAlong(parts, dim);
    }
  }
  XLITE_ASSIGN_OR_RETURN(Values values, Exchange(inst, ctx, group, Pack(operands)));
  // Block i of member m's operand lands as block m of member i's result.
  return PerOperand(count, [&](size_t k) -> absl::StatusOr<Literal> {
    std::vector<Literal> blocks;
    for (const Literal& v : *values) {
      const Literal& part = Part(v, k, count);
      XLITE_RETURN_IF_ERROR(CheckSplit(part, dim, n));
      blocks.push_back(BlockAlong(part, dim, group.position, n));
    }
    std::vector<const Literal*> parts;
    for (const Literal& b : blocks) parts.push_back(&b);
    return ConcatAlong(parts, dim);
  });
}

// ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets,
// recv_sizes): member m sends rows [input_offsets[j], +send_sizes[j]) of its
// input to member j, which stores them at rows output_offsets[j] (offsets in
// the receiver's output) onward; rows not written keep `output`.
absl::StatusOr<Literal> RaggedAllToAll(const HloInstruction& inst, Operands operands,
                                       EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(Group group, GroupOf(inst, ctx));
  int64_t n = static_cast<int64_t>(group.members.size());
  for (int k = 2; k < 6; ++k) {
    if (operands[k]->shape().rank() != 1 || operands[k]->element_count() != n) {
      return Unimplemented("ragged-all-to-all with offsets of shape ",
                           operands[k]->shape().ToString(), " (one offset per member, ", n,
                           ", is supported)");
    }
  }
  const Literal& input = *operands[0];
  if (input.shape().rank() < 1 || operands[1]->shape().rank() != input.shape().rank()) {
    return InvalidArgument("ragged-all-to-all needs input and output of one rank >= 1");
  }
  std::vector<Literal> mine = {input, *operands[2], *operands[3], *operands[4]};
  XLITE_ASSIGN_OR_RETURN(Values values,
                         Exchange(inst, ctx, group, Literal::Tuple(std::move(mine))));
  Literal out = *operands[1];
  int64_t row = Inner(out.shape(), 0) * ElementBytes(out);
  int64_t out_rows = out.shape().dimensions(0);
  for (int64_t m = 0; m < n; ++m) {
    const std::vector<Literal>& from = (*values)[m].tuple_elements();
    int64_t in_start = from[1].GetInt64(group.position);
    int64_t size = from[2].GetInt64(group.position);
    int64_t out_start = from[3].GetInt64(group.position);
    int64_t in_rows = from[0].shape().dimensions(0);
    if (size < 0 || in_start < 0 || out_start < 0 || in_start + size > in_rows ||
        out_start + size > out_rows) {
      return InvalidArgument("ragged-all-to-all: member ", m, " sends rows [", in_start, ", ",
                             in_start + size, ") of ", in_rows, " to rows [", out_start, ", ",
                             out_start + size, ") of ", out_rows);
    }
    if (size > 0) {
      std::memcpy(out.mutable_raw_data().data() + out_start * row,
                  from[0].raw_data().data() + in_start * row, size * row);
    }
  }
  return out;
}

absl::StatusOr<Literal> CollectiveBroadcast(const HloInstruction& inst, Operands operands,
                                            EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(Group group, GroupOf(inst, ctx));
  // The first member broadcasts; the others contribute nothing.
  Literal mine = group.position == 0 ? Pack(operands) : Literal();
  XLITE_ASSIGN_OR_RETURN(Values values, Exchange(inst, ctx, group, std::move(mine)));
  return (*values)[0];
}

// ---------------------------------------------------- point to point

// Source/target pairs of collective-permute and send/recv name partitions
// (within this replica) or replicas (within this partition).
struct PairSpace {
  Devices devices;
  bool partitions = false;
  int64_t size() const { return partitions ? devices.partitions : devices.replicas; }
  int64_t mine() const { return partitions ? devices.partition : devices.replica; }
  int64_t Global(int64_t id) const {
    return partitions ? devices.Global(devices.replica, id) : devices.Global(id, devices.partition);
  }
};

using Pairs = std::vector<std::pair<int64_t, int64_t>>;

absl::Status CheckPairs(const Pairs& pairs, const PairSpace& space) {
  for (const auto& [s, t] : pairs) {
    if (s < 0 || t < 0 || s >= space.size() || t >= space.size()) {
      return InvalidArgument("source_target_pairs name {", s, ",", t, "} but there are ",
                             space.size(), space.partitions ? " partitions" : " replicas");
    }
  }
  return absl::OkStatus();
}

// Sends `value` to every target this device is a source of; returns the
// value from this device's source, or zeros of `shape` when it has none.
absl::StatusOr<Literal> PointToPoint(std::string_view key, const Pairs& pairs,
                                     const PairSpace& space, const Literal* value,
                                     const Shape& shape, EvalContext& ctx) {
  Communicator* comm = ctx.options().communicator;
  std::optional<int64_t> source;
  for (const auto& [s, t] : pairs) {
    if (t == space.mine()) source = s;
    if (s != space.mine() || value == nullptr) continue;
    if (t == space.mine()) continue;  // delivered below without a round trip
    XLITE_ASSIGN_OR_RETURN(comm, CommunicatorFor(ctx, 2));
    XLITE_RETURN_IF_ERROR(comm->Send(key, space.Global(s), space.Global(t), *value));
  }
  if (!source.has_value()) return Literal(shape);
  if (*source == space.mine()) {
    if (value == nullptr) return InvalidArgument("device receives from itself on ", AsAbsl(key));
    return *value;
  }
  XLITE_ASSIGN_OR_RETURN(comm, CommunicatorFor(ctx, 2));
  return comm->Recv(key, space.Global(*source), space.Global(space.mine()));
}

absl::StatusOr<Literal> CollectivePermute(const HloInstruction& inst, Operands operands,
                                          EvalContext& ctx) {
  if (IsInPlaceCollectivePermute(inst)) {
    return Unimplemented("in-place collective-permute (input, output and offsets)");
  }
  const auto& attrs = inst.attrs<CollectiveAttrs>();
  XLITE_ASSIGN_OR_RETURN(Devices devices, DevicesOf(inst, ctx));
  PairSpace space{devices, attrs.channel_id.has_value()};
  XLITE_RETURN_IF_ERROR(CheckPairs(attrs.source_target_pairs, space));
  Literal input = Pack(operands);
  Shape result_shape = input.shape();
  XLITE_ASSIGN_OR_RETURN(Literal result, PointToPoint(KeyOf(inst), attrs.source_target_pairs, space,
                                                      &input, result_shape, ctx));
  const Shape& shape = inst.shape();
  if (inst.opcode() == O::kCollectivePermute || !shape.IsTuple()) return result;
  // collective-permute-start: (input, output, contexts...).
  std::vector<Literal> elements;
  elements.push_back(std::move(input));
  elements.push_back(std::move(result));
  for (int64_t i = 2; i < shape.tuple_size(); ++i) elements.emplace_back(shape.tuple_shapes(i));
  return Literal::Tuple(std::move(elements));
}

// send/recv pair devices through the frontend attribute
// _xla_send_recv_source_target_pairs="{{0,1},...}"; without it, a channel
// between exactly two devices joins them both ways.
absl::StatusOr<std::pair<std::string, Pairs>> TransferRoute(const HloInstruction& inst,
                                                            const PairSpace& space) {
  const HloInstruction* carrier = &inst;
  if (inst.opcode() == O::kRecvDone || inst.opcode() == O::kSendDone) {
    carrier = inst.operand(0);  // the recv / send names the route
    if (carrier->opcode() != O::kRecv && carrier->opcode() != O::kSend) {
      return Unimplemented(AsAbsl(OpcodeName(inst.opcode())), " of %", AsAbsl(carrier->name()),
                           " (", AsAbsl(OpcodeName(carrier->opcode())),
                           "): a send/recv pipelined through tuples or loops");
    }
  }
  const auto& attrs = carrier->attrs<SendRecvAttrs>();
  if (attrs.is_host_transfer) {
    return Unimplemented("host transfers (send/recv with is_host_transfer=true)");
  }
  if (!attrs.channel_id.has_value()) {
    return InvalidArgument(AsAbsl(OpcodeName(carrier->opcode())), " needs a channel_id");
  }
  std::string key = absl::StrCat("channel ", *attrs.channel_id);
  Pairs pairs;
  const FrontendAttribute* pairs_attr =
      FindFrontendAttribute(carrier->frontend_attributes(), "_xla_send_recv_source_target_pairs");
  if (pairs_attr == nullptr) {
    if (space.size() != 2) {
      return Unimplemented("send/recv among ", space.size(),
                           " devices without _xla_send_recv_source_target_pairs");
    }
    return std::make_pair(key, Pairs{{0, 1}, {1, 0}});
  }
  std::string digits;
  for (char c : pairs_attr->value) digits.push_back(c >= '0' && c <= '9' ? c : ' ');
  std::vector<int64_t> ids;
  for (absl::string_view word : absl::StrSplit(digits, ' ', absl::SkipEmpty())) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(word, &id)) break;
    ids.push_back(id);
  }
  if (ids.size() % 2 != 0) {
    return InvalidArgument("malformed _xla_send_recv_source_target_pairs \"", pairs_attr->value,
                           "\"");
  }
  for (size_t i = 0; i < ids.size(); i += 2) pairs.emplace_back(ids[i], ids[i + 1]);
  XLITE_RETURN_IF_ERROR(CheckPairs(pairs, space));
  return std::make_pair(key, std::move(pairs));
}

// send/recv always carry a channel: like a channel's collective-permute
// their pairs name partitions, unless the module has a single partition,
// where they name replicas.
absl::StatusOr<PairSpace> TransferSpace(const HloInstruction& inst, const EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(Devices devices, DevicesOf(inst, ctx));
  return PairSpace{devices, devices.partitions > 1};
}

Literal TransferTuple(Literal data, size_t extra) {
  std::vector<Literal> elements;
  elements.push_back(std::move(data));
  if (extra == 2) elements.emplace_back(Shape::Scalar(PrimitiveType::U32));
  elements.emplace_back(Shape::Token());
  return Literal::Tuple(std::move(elements));
}

// send queues the data at once (sends never wait for the receiver).
absl::StatusOr<Literal> Send(const HloInstruction& inst, Operands operands, EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(PairSpace space, TransferSpace(inst, ctx));
  XLITE_ASSIGN_OR_RETURN(auto route, TransferRoute(inst, space));
  for (const auto& [s, t] : route.second) {
    if (s != space.mine()) continue;
    XLITE_ASSIGN_OR_RETURN(Communicator * comm, CommunicatorFor(ctx, 2));
    XLITE_RETURN_IF_ERROR(comm->Send(route.first, space.Global(s), space.Global(t), *operands[0]));
  }
  return TransferTuple(*operands[0], 2);
}

absl::StatusOr<Literal> SendDone(const HloInstruction& inst, Operands, EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(PairSpace space, TransferSpace(inst, ctx));
  XLITE_RETURN_IF_ERROR(TransferRoute(inst, space).status());
  return Literal(Shape::Token());
}

// recv only checks its route; recv-done waits for the data, so a device
// may post its receive before its own send.
absl::StatusOr<Literal> Recv(const HloInstruction& inst, Operands, EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(PairSpace space, TransferSpace(inst, ctx));
  XLITE_RETURN_IF_ERROR(TransferRoute(inst, space).status());
  return Literal(inst.shape());
}

absl::StatusOr<Literal> RecvDone(const HloInstruction& inst, Operands operands, EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(PairSpace space, TransferSpace(inst, ctx));
  XLITE_ASSIGN_OR_RETURN(auto route, TransferRoute(inst, space));
  const Shape& data_shape = operands[0]->shape().tuple_shapes(0);
  XLITE_ASSIGN_OR_RETURN(Literal data,
                         PointToPoint(route.first, route.second, space, nullptr, data_shape, ctx));
  return TransferTuple(std::move(data), 1);
}

}  // namespace

void RegisterCollectiveOps(OpHandlerTable& table) {
  table.Register(O::kAllReduce, AllReduce);
  table.Register(O::kAllReduceStart, AllReduce);
  table.Register(O::kAllReduceDone, AllReduceDone);
  table.Register(O::kAllGather, AllGather);
  table.Register(O::kAllGatherStart, AllGather);
  table.Register(O::kAllGatherDone, StartResult);
  table.Register(O::kReduceScatter, ReduceScatter);
  table.Register(O::kAllToAll, AllToAll);
  table.Register(O::kRaggedAllToAll, RaggedAllToAll);
  table.Register(O::kCollectiveBroadcast, CollectiveBroadcast);
  table.Register(O::kCollectivePermute, CollectivePermute);
  table.Register(O::kCollectivePermuteStart, CollectivePermute);
  table.Register(O::kCollectivePermuteDone, StartResult);
  table.Register(O::kSend, Send);
  table.Register(O::kSendDone, SendDone);
  table.Register(O::kRecv, Recv);
  table.Register(O::kRecvDone, RecvDone);
}

}  // namespace xlite::eval
