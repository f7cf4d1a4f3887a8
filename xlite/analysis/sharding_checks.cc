// Sharding validity. Device count: in a partitioned module (num_partitions >
// 1) tile assignments must cover exactly num_partitions devices and maximal
// devices lie below it. An unpartitioned module does not say how many devices
// its shardings address (pre-partitioning dumps, host/device placement), so
// there only the structure is checked: each tile assignment is validated
// against its own size and maximal devices must be non-negative.
#include "xlite/analysis/verifier_internal.h"
#include "xlite/base/status.h"

namespace xlite::verifier {
namespace {

// A device count under which `s` (a leaf sharding) is checked in an
// unpartitioned module.
int64_t OwnDeviceCount(const HloSharding& s) {
  if (s.kind() == HloSharding::Kind::kTiled) return s.tile_assignment().num_elements();
  if (s.kind() == HloSharding::Kind::kMaximal) return std::max<int64_t>(s.maximal_device() + 1, 1);
  return 1;
}

void CollectLeaves(const Shape& shape, std::vector<const Shape*>* leaves) {
  if (!shape.IsTuple()) {
    leaves->push_back(&shape);
    return;
  }
  for (const Shape& e : shape.tuple_shapes()) CollectLeaves(e, leaves);
}

absl::Status ValidateUnpartitioned(const HloSharding& s, const Shape& shape) {
  if (!s.IsTuple()) return s.Validate(shape, OwnDeviceCount(s));
  std::vector<const Shape*> leaves;
  CollectLeaves(shape, &leaves);
  if (!shape.IsTuple() || leaves.size() != s.tuple_elements().size()) {
    return s.Validate(shape, 1);  // reports the element-count mismatch
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    const HloSharding& e = s.tuple_elements()[i];
    XLITE_RETURN_IF_ERROR(e.Validate(*leaves[i], OwnDeviceCount(e)));
  }
  return absl::OkStatus();
}

}  // namespace

void CheckSharding(const HloInstruction& inst, const ModuleConfig& config, ErrorSink& errors) {
  // An outfeed's sharding covers its data (and token), not its token result.
  Shape outfeed_shape;
  const Shape* shape = &inst.shape();
  if (inst.opcode() == HloOpcode::kOutfeed && inst.sharding().IsTuple()) {
    outfeed_shape = OutfeedShardingShape(inst.sharding(), inst.operand(0)->shape());
    shape = &outfeed_shape;
  }
  absl::Status status = config.num_partitions > 1
                            ? inst.sharding().Validate(*shape, config.num_partitions)
                            : ValidateUnpartitioned(inst.sharding(), *shape);
  if (!status.ok()) {
    errors.Add(inst, absl::StrCat("invalid sharding: ", status.message()));
  }
}

}  // namespace xlite::verifier
