#include "xlite/spmd/sharded_execution.h"

#include <chrono>
#include <map>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/status.h"
#include "xlite/eval/array_copy.h"
#include "xlite/eval/multi_device.h"
#include "xlite/passes/pipeline.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/spmd/propagation.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

// A partially manual value splits as its data dims say: every manual group
// takes the same global value (and must give back the same result).
absl::Status CheckSplittable(const HloSharding& sharding, const Shape& shape) {
  if (sharding.IsManual()) {
    return Unimplemented("splitting a global value of ", shape.ToString(false),
                         " under the manual sharding ", PrintSharding(sharding));
  }
  return absl::OkStatus();
}

// Copies the box [start, limit) of the global array (`global` strides) to
// or from the shard array (whose origin is the box start).
eval::StridedBox TileBox(const Shape& shard, const Shape& global,
                         const std::vector<std::pair<int64_t, int64_t>>& bounds) {
  std::vector<int64_t> sizes;
  const std::vector<int64_t> global_strides = eval::StridesOf(global);
  int64_t global_offset = 0;
  for (size_t d = 0; d < bounds.size(); ++d) {
    sizes.push_back(std::max<int64_t>(0, bounds[d].second - bounds[d].first));
    global_offset += bounds[d].first * global_strides[d];
  }
  return eval::StridedBox(sizes, 0, eval::StridesOf(shard), global_offset, global_strides);
}

}  // namespace

absl::StatusOr<Literal> ShardOf(const Literal& global, const HloSharding& sharding,
                                int64_t device) {
  const Shape& shape = global.shape();
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      XLITE_ASSIGN_OR_RETURN(Literal element, ShardOf(global.tuple_elements()[i],
                                                      ElementSharding(sharding, shape, i), device));
      elements.push_back(std::move(element));
    }
    return Literal::Tuple(std::move(elements));
  }
  XLITE_RETURN_IF_ERROR(CheckSplittable(sharding, shape));
  const HloSharding leaf = ForPartitioning(sharding);
  if (!shape.IsArray() || !IsSplit(leaf)) return global;
  XLITE_ASSIGN_OR_RETURN(auto bounds, leaf.TileBounds(shape, device));
  Literal shard(ShardShape(shape, leaf));
  eval::CopyBox(shard, global, TileBox(shard.shape(), shape, bounds));
  return shard;
}

absl::StatusOr<Literal> AssembleFromShards(absl::Span<const Literal> shards,
                                           const HloSharding& sharding, const Shape& global_shape) {
  if (shards.empty()) return InvalidArgument("no shards to assemble");
  if (global_shape.IsTuple()) {
    std::vector<Literal> elements;
    for (int64_t i = 0; i < global_shape.tuple_size(); ++i) {
      std::vector<Literal> element_shards;
      for (const Literal& shard : shards) {
        if (!shard.shape().IsTuple() || shard.shape().tuple_size() != global_shape.tuple_size()) {
          return InvalidArgument("a shard of ", global_shape.ToString(false), " is ",
                                 shard.shape().ToString(false));
        }
        element_shards.push_back(shard.tuple_elements()[i]);
      }
      XLITE_ASSIGN_OR_RETURN(
          Literal element,
          AssembleFromShards(element_shards, ElementSharding(sharding, global_shape, i),
                             global_shape.tuple_shapes(i)));
      elements.push_back(std::move(element));
    }
    return Literal::Tuple(std::move(elements));
  }
  XLITE_RETURN_IF_ERROR(CheckSplittable(sharding, global_shape));
  const HloSharding leaf = ForPartitioning(sharding);
  const Shape expected = ShardShape(global_shape, leaf);
  for (const Literal& shard : shards) {
    if (!shard.shape().SameElementTypeAndDimensions(expected)) {
      return InvalidArgument("a shard of ", global_shape.ToString(false), " under ",
                             PrintSharding(leaf), " should be ", expected.ToString(false),
                             " but is ", shard.shape().ToString(false));
    }
  }
  if (leaf.IsManualSubgroup()) {
    // Devices holding the same tile in different manual groups must agree.
    std::map<std::vector<std::pair<int64_t, int64_t>>, int64_t> first_holder;
    for (int64_t device = 0; device < static_cast<int64_t>(shards.size()); ++device) {
      XLITE_ASSIGN_OR_RETURN(auto bounds, leaf.TileBounds(global_shape, device));
      auto [it, first] = first_holder.emplace(bounds, device);
      if (!first && !(shards[device] == shards[it->second])) {
        return InvalidArgument("devices ", it->second, " and ", device, " hold the same tile of ",
                               global_shape.ToString(false), " under ", PrintSharding(leaf),
                               " in different manual groups but computed different values");
      }
    }
  }
  if (!global_shape.IsArray() || !IsSplit(leaf)) return shards.front();
  Literal global(global_shape);
  for (int64_t device = 0; device < static_cast<int64_t>(shards.size()); ++device) {
    XLITE_ASSIGN_OR_RETURN(auto bounds, leaf.TileBounds(global_shape, device));
    // Copy from the shard (B) into the global array (A): the box with its
    // two sides swapped.
    eval::StridedBox box = TileBox(shards[device].shape(), global_shape, bounds);
    eval::StridedBox into(box.sizes, box.b_offset, box.b_strides, box.a_offset, box.a_strides);
    eval::CopyBox(global, shards[device], into);
  }
  return global;
}

absl::StatusOr<std::vector<Literal>> PartitionArguments(const EntryShardings& entry,
                                                        absl::Span<const Literal> global_args,
                                                        int64_t partition) {
  if (global_args.size() != entry.parameters.size()) {
    return InvalidArgument("the module takes ", entry.parameters.size(), " arguments, got ",
                           global_args.size());
  }
  std::vector<Literal> shards;
  for (size_t i = 0; i < global_args.size(); ++i) {
    if (!global_args[i].shape().SameElementTypeAndDimensions(entry.parameter_shapes[i]) &&
        !global_args[i].shape().IsTuple()) {
      return InvalidArgument("argument ", i, " is ", global_args[i].shape().ToString(false),
                             " but parameter ", i, " is ",
                             entry.parameter_shapes[i].ToString(false));
    }
    XLITE_ASSIGN_OR_RETURN(Literal shard, ShardOf(global_args[i], entry.parameters[i], partition));
    shards.push_back(std::move(shard));
  }
  return shards;
}

absl::StatusOr<std::vector<std::vector<Literal>>> SplitArguments(
    const EntryShardings& entry, absl::Span<const Literal> global_args, int64_t num_partitions) {
  std::vector<std::vector<Literal>> per_device;
  for (int64_t device = 0; device < num_partitions; ++device) {
    XLITE_ASSIGN_OR_RETURN(std::vector<Literal> shards,
                           PartitionArguments(entry, global_args, device));
    per_device.push_back(std::move(shards));
  }
  return per_device;
}

namespace {

using Clock = std::chrono::steady_clock;

// Records one step of the stage as a pass run and checks its result.
absl::Status FinishStep(const HloModule& module, std::string_view step, Clock::time_point began,
                        bool changed, PipelineReport& passes) {
  passes.passes.push_back(PassRecord{std::string(step), "", 0,
                                     std::chrono::duration<double>(Clock::now() - began).count(),
                                     changed});
  absl::Status verified = VerifyModule(module);
  if (!verified.ok()) {
    return absl::InternalError(
        absl::StrCat("the module after ", std::string(step),
                     " does not verify (an xlite bug): ", verified.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SpmdResult> PartitionForExecution(HloModule& module, const SpmdOptions& options) {
  RegisterSpmdPasses();
  SpmdResult result;
  Clock::time_point began = Clock::now();
  XLITE_ASSIGN_OR_RETURN(PropagationResult propagated,
                         PropagateShardings(module, options.propagation));
  XLITE_RETURN_IF_ERROR(
      FinishStep(module, "sharding-propagation", began, propagated.changed, result.passes));
  if (options.after_propagation) {
    XLITE_RETURN_IF_ERROR(options.after_propagation(module, propagated));
  }
  began = Clock::now();
  XLITE_ASSIGN_OR_RETURN(result.report, PartitionModule(module, &result.entry));
  XLITE_RETURN_IF_ERROR(FinishStep(module, "spmd-partitioner", began,
                                   module.config().num_partitions > 1, result.passes));
  XLITE_ASSIGN_OR_RETURN(PassPipeline cleanup, ParsePipelineSpec("spmd-cleanup"));
  XLITE_RETURN_IF_ERROR(cleanup.Run(module, PipelineOptions{}, &result.passes).status());
  absl::Status verified = VerifyModule(module);
  if (!verified.ok()) {
    return absl::InternalError(absl::StrCat(
        "the module after spmd-cleanup does not verify (an xlite bug): ", verified.message()));
  }
  return result;
}

absl::StatusOr<Literal> RunPartitioned(const HloModule& partitioned, const EntryShardings& entry,
                                       absl::Span<const Literal> global_args,
                                       const EvalOptions& options) {
  const int64_t n = partitioned.config().num_partitions;
  if (partitioned.config().replica_count != 1) {
    return Unimplemented("running a partitioned module with replica_count=",
                         partitioned.config().replica_count);
  }
  XLITE_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> args,
                         SplitArguments(entry, global_args, n));
  XLITE_ASSIGN_OR_RETURN(std::vector<Literal> results,
                         EvaluateOnAllDevices(partitioned, args, options));
  return AssembleFromShards(results, entry.result, entry.result_shape);
}

}  // namespace xlite::spmd
