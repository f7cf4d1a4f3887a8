#include "xlite/spmd/shardy_import.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "xlite/base/status.h"
#include "xlite/ir/named_sharding.h"
#include "xlite/passes/call_inliner.h"
#include "xlite/passes/instruction_maker.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/spmd/shardy_syntax.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

constexpr std::string_view kMeshesAttr = "xla.sdy.meshes";
constexpr std::string_view kShardingAttr = "xla.sdy.sharding";
constexpr std::string_view kInShardingsAttr = "xla.sdy.in_shardings";
constexpr std::string_view kOutShardingsAttr = "xla.sdy.out_shardings";
constexpr std::string_view kManualAxesAttr = "xla.sdy.manual_axes";
constexpr std::string_view kGlobalToLocal = "xla.sdy.GlobalToLocalShape";
constexpr std::string_view kLocalToGlobal = "xla.sdy.LocalToGlobalShape";
constexpr std::string_view kFuncResultSharding = "xla.sdy.FuncResultSharding";
constexpr std::string_view kBodyPrefix = "xla.sdy.manual_computation_body";

// Manual axis names, in the order the mesh lists them.
using AxisNames = std::vector<std::string>;

bool IsCustomCall(const HloInstruction& inst, std::string_view target) {
  return inst.opcode() == HloOpcode::kCustomCall && inst.attrs<CustomCallAttrs>().target == target;
}

const std::string* Attr(const HloInstruction& inst, std::string_view key) {
  const FrontendAttribute* a = FindFrontendAttribute(inst.frontend_attributes(), key);
  return a == nullptr ? nullptr : &a->value;
}

void EraseAttr(HloInstruction& inst, std::string_view key) {
  FrontendAttributes& attrs = *inst.mutable_frontend_attributes();
  attrs.erase(std::remove_if(attrs.begin(), attrs.end(),
                             [&](const FrontendAttribute& a) { return a.key == key; }),
              attrs.end());
}

// No constraint at all: every dim (at least one) open and unsplit, nothing
// replicated or unreduced explicitly. A rank-0 `[]` is replicated.
bool Unconstrained(const NamedSharding& s) {
  return !s.dims.empty() && s.replicated.empty() && s.unreduced.empty() && s.manual.empty() &&
         std::all_of(s.dims.begin(), s.dims.end(),
                     [](const NamedSharding::Dim& d) { return d.open && d.axes.empty(); });
}

int64_t AxisIndex(const Mesh& mesh, std::string_view name) {
  for (size_t i = 0; i < mesh.axes.size(); ++i) {
    if (mesh.axes[i].name == name) return static_cast<int64_t>(i);
  }
  return -1;
}

// `s` inside a manual region over `manual`: those axes added to its manual
// list (they may not split a dim or be listed otherwise).
absl::Status AddManual(NamedSharding& s, const AxisNames& manual, const HloInstruction& at) {
  for (const std::string& name : manual) {
    const int64_t axis = AxisIndex(s.mesh, name);
    if (axis < 0) {
      return InvalidArgument("%", at.name(), ": manual axis \"", name,
                             "\" is not an axis of the sharding's mesh");
    }
    MeshAxisRef ref;
    ref.axis = axis;
    if (std::find(s.manual.begin(), s.manual.end(), ref) == s.manual.end()) s.manual.push_back(ref);
  }
  std::sort(s.manual.begin(), s.manual.end(),
            [](const MeshAxisRef& a, const MeshAxisRef& b) { return a.axis < b.axis; });
  return absl::OkStatus();
}

// The tile-assignment form of `s`; the mesh form is kept beside it when a
// dim is open, so that propagation sees which dims it may still split.
absl::StatusOr<HloSharding> Lower(const NamedSharding& s, const HloInstruction& at) {
  absl::StatusOr<HloSharding> tiled = ToTiledSharding(s);
  if (!tiled.ok()) {
    return InvalidArgument("%", at.name(), ": Shardy sharding: ", tiled.status().message());
  }
  const bool open =
      std::any_of(s.dims.begin(), s.dims.end(), [](const NamedSharding::Dim& d) { return d.open; });
  if (open && tiled->IsTiled()) tiled->set_named(std::make_shared<const NamedSharding>(s));
  return tiled;
}

class ShardyImporter {
 public:
  explicit ShardyImporter(HloModule& module) : module_(module), make_(module) {}

  absl::StatusOr<bool> Run() {
    const FrontendAttribute* meshes =
        FindFrontendAttribute(module_.config().frontend_attributes, kMeshesAttr);
    if (meshes != nullptr) {
      XLITE_ASSIGN_OR_RETURN(meshes_, ParseSdyMeshes(meshes->value));
    }
    XLITE_RETURN_IF_ERROR(AssignContexts());
    bool changed = false;
    for (const auto& computation : module_.computations()) {
      for (const auto& inst : computation->instructions()) {
        XLITE_ASSIGN_OR_RETURN(bool converted, ConvertAnnotation(*inst));
        changed |= converted;
      }
    }
    // Innermost shard_maps first: inlining an outer body then copies the
    // inner one already in its GSPMD form.
    std::vector<HloInstruction*> entries;
    for (const auto& computation : module_.computations()) {
      for (const auto& inst : computation->instructions()) {
        if (IsCustomCall(*inst, kGlobalToLocal)) entries.push_back(inst.get());
      }
    }
    std::stable_sort(entries.begin(), entries.end(), [&](HloInstruction* a, HloInstruction* b) {
      return context_[a->parent()].size() > context_[b->parent()].size();
    });
    for (HloInstruction* entry : entries) XLITE_RETURN_IF_ERROR(RewriteShardMap(entry));
    make_.Finish();
    module_.RemoveComputationsIf([&](const HloComputation* c) { return inlined_.count(c) != 0; });
    return changed || !entries.empty();
  }

 private:
  // The call a GlobalToLocalShape feeds (directly or through
  // get-tuple-elements), or null.
  static HloInstruction* CallOf(const HloInstruction& entry) {
    for (HloInstruction* user : entry.users()) {
      HloInstruction* candidate = user;
      if (user->opcode() == HloOpcode::kGetTupleElement && user->user_count() == 1) {
        candidate = user->users()[0];
      }
      if (candidate->opcode() == HloOpcode::kCall) return candidate;
    }
    return nullptr;
  }

  // The GlobalToLocalShape feeding a call, or null.
  static const HloInstruction* EntryOf(const HloInstruction& call) {
    if (call.operand_count() == 0) return nullptr;
    const HloInstruction* operand = call.operand(0);
    if (operand->opcode() == HloOpcode::kGetTupleElement) operand = operand->operand(0);
    return IsCustomCall(*operand, kGlobalToLocal) ? operand : nullptr;
  }

  absl::StatusOr<AxisNames> ManualAxesOf(const HloInstruction& inst) const {
    const std::string* text = Attr(inst, kManualAxesAttr);
    if (text == nullptr) return InvalidArgument("%", inst.name(), ": no ", kManualAxesAttr);
    absl::StatusOr<AxisNames> axes = ParseSdyManualAxes(*text);
    if (!axes.ok()) return InvalidArgument("%", inst.name(), ": ", axes.status().message());
    return axes;
  }

  // The manual axes every computation runs under, from the entry down.
  absl::Status AssignContexts() {
    std::vector<const HloComputation*> stack = {module_.entry_computation()};
    context_[module_.entry_computation()] = {};
    while (!stack.empty()) {
      const HloComputation* c = stack.back();
      stack.pop_back();
      const AxisNames ctx = context_[c];
      for (const auto& inst : c->instructions()) {
        AxisNames inner = ctx;
        if (inst->opcode() == HloOpcode::kCall && EntryOf(*inst) != nullptr) {
          XLITE_ASSIGN_OR_RETURN(AxisNames manual, ManualAxesOf(*EntryOf(*inst)));
          for (std::string& axis : manual) {
            if (std::find(inner.begin(), inner.end(), axis) != inner.end()) {
              return InvalidArgument("%", inst->name(), ": shard_map over axis \"", axis,
                                     "\" inside a shard_map that is already manual over it");
            }
            inner.push_back(std::move(axis));
          }
        }
        for (const HloComputation* callee : inst->called_computations()) {
          auto [it, added] = context_.emplace(callee, inner);
          if (added) {
            stack.push_back(callee);
          } else if (it->second.size() != inner.size()) {
            conflicting_.insert(callee);
          }
        }
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<NamedSharding>> Shardings(const HloInstruction& inst,
                                                       std::string_view key, int64_t count) const {
    const std::string* text = Attr(inst, key);
    if (text == nullptr) return InvalidArgument("%", inst.name(), ": no ", key);
    absl::StatusOr<std::vector<NamedSharding>> s = ParseSdyShardings(*text, meshes_);
    if (!s.ok()) return InvalidArgument("%", inst.name(), ": ", key, ": ", s.status().message());
    if (static_cast<int64_t>(s->size()) != count) {
      return InvalidArgument("%", inst.name(), ": ", key, " names ", s->size(), " shardings for ",
                             count, " values");
    }
    return s;
  }

  // An instruction's `xla.sdy.sharding` becomes its sharding.
  absl::StatusOr<bool> ConvertAnnotation(HloInstruction& inst) {
    if (Attr(inst, kShardingAttr) == nullptr) return false;
    if (conflicting_.count(inst.parent()) != 0) {
      return Unimplemented("%", inst.name(), ": a Shardy annotation in computation %",
                           inst.parent()->name(), ", which runs under different manual axes");
    }
    const int64_t leaves = inst.shape().LeafCount();
    XLITE_ASSIGN_OR_RETURN(std::vector<NamedSharding> named,
                           Shardings(inst, kShardingAttr, leaves));
    std::vector<HloSharding> lowered;
    bool any = false;
    for (NamedSharding& s : named) {
      if (Unconstrained(s)) {
        lowered.push_back(HloSharding::Unknown());
        continue;
      }
      XLITE_RETURN_IF_ERROR(AddManual(s, context_[inst.parent()], inst));
      XLITE_ASSIGN_OR_RETURN(HloSharding h, Lower(s, inst));
      lowered.push_back(std::move(h));
      any = true;
    }
    if (!any) {
      inst.clear_sharding();
    } else if (inst.shape().IsTuple()) {
      inst.set_sharding(HloSharding::Tuple(std::move(lowered)));
    } else {
      inst.set_sharding(std::move(lowered[0]));
    }
    if (IsCustomCall(inst, kFuncResultSharding)) {
      inst.mutable_attrs<CustomCallAttrs>()->target = "Sharding";
    }
    EraseAttr(inst, kShardingAttr);
    return true;
  }

  // The full-side and local-side shardings of one shard_map value: `s`
  // under the enclosing manual axes, and `s` without the region's axes,
  // manual over both. Checks that `local` is the manual tile of `global`.
  absl::Status SidesOf(NamedSharding s, const AxisNames& outer, const AxisNames& region,
                       const Shape& global, const Shape& local, const HloInstruction& at,
                       HloSharding* full_side, HloSharding* local_side) {
    if (!global.IsArray() || !local.IsArray() || global.rank() != local.rank() ||
        static_cast<int64_t>(s.dims.size()) != global.rank()) {
      return InvalidArgument("%", at.name(), ": the sharding's rank does not fit ",
                             global.ToString(false), " -> ", local.ToString(false));
    }
    for (const std::string& name : region) {
      if (AxisIndex(s.mesh, name) < 0) {
        return InvalidArgument("%", at.name(), ": manual axis \"", name,
                               "\" is not an axis of the sharding's mesh");
      }
    }
    NamedSharding inner = s;
    for (size_t d = 0; d < s.dims.size(); ++d) {
      std::vector<MeshAxisRef>& axes = inner.dims[d].axes;
      int64_t manual_size = 1;
      for (const MeshAxisRef& ref : s.dims[d].axes) {
        const std::string& name = s.mesh.axes[ref.axis].name;
        if (std::find(region.begin(), region.end(), name) != region.end()) {
          manual_size *= ref.SizeIn(s.mesh);
          axes.erase(std::find(axes.begin(), axes.end(), ref));
        }
      }
      if (global.dimensions(d) != local.dimensions(d) * manual_size) {
        return InvalidArgument("%", at.name(), ": ", local.ToString(false),
                               " is not the manual tile of ", global.ToString(false), " (dim ", d,
                               " is split ", manual_size, " ways by the manual axes)");
      }
    }
    // The region sees the value as its in/out sharding says: a free axis
    // that propagation put on an open dim of the global side would split
    // the local tile too, and the manual side is pinned. So both are closed.
    for (NamedSharding::Dim& dim : s.dims) dim.open = false;
    for (NamedSharding::Dim& dim : inner.dims) dim.open = false;
    XLITE_RETURN_IF_ERROR(AddManual(s, outer, at));
    AxisNames all = outer;
    all.insert(all.end(), region.begin(), region.end());
    XLITE_RETURN_IF_ERROR(AddManual(inner, all, at));
    XLITE_ASSIGN_OR_RETURN(*full_side, Lower(s, at));
    XLITE_ASSIGN_OR_RETURN(*local_side, Lower(inner, at));
    *local_side = local_side->Normalized();
    return absl::OkStatus();
  }

  HloInstruction* Marker(HloComputation& c, std::string_view target, const Shape& shape,
                         HloInstruction* operand, HloSharding sharding,
                         const HloInstruction& like) {
    auto attrs = std::make_unique<CustomCallAttrs>();
    attrs->target = std::string(target);
    HloInstruction* marker =
        make_.Add(c, HloOpcode::kCustomCall, shape, {operand}, std::move(attrs));
    marker->set_sharding(std::move(sharding));
    *marker->mutable_metadata() = like.metadata();
    return marker;
  }

  // The values `inst` produces: its tuple elements through its
  // get-tuple-element users, or itself.
  static std::vector<std::vector<HloInstruction*>> UsesByValue(HloInstruction* inst) {
    if (!inst->shape().IsTuple()) return {{inst}};
    std::vector<std::vector<HloInstruction*>> uses(inst->shape().tuple_shapes().size());
    for (HloInstruction* user : inst->users()) {
      if (user->opcode() == HloOpcode::kGetTupleElement) {
        uses[user->tuple_index()].push_back(user);
      }
    }
    return uses;
  }

  void ReplaceValues(HloInstruction* inst, const std::vector<HloInstruction*>& values) {
    HloComputation& c = *inst->parent();
    if (!inst->shape().IsTuple()) {
      inst->ReplaceAllUsesWith(values[0]);
    } else {
      const std::vector<std::vector<HloInstruction*>> uses = UsesByValue(inst);
      for (size_t v = 0; v < uses.size(); ++v) {
        for (HloInstruction* use : uses[v]) {
          use->ReplaceAllUsesWith(values[v]);
          c.RemoveInstruction(use);
        }
      }
      if (inst->user_count() != 0 || c.root_instruction() == inst) {
        inst->ReplaceAllUsesWith(make_.Add(c, HloOpcode::kTuple, inst->shape(), values));
      }
    }
    c.RemoveInstruction(inst);
  }

  static const Shape& ValueShape(const Shape& shape, size_t v) {
    return shape.IsTuple() ? shape.tuple_shapes()[v] : shape;
  }

  absl::Status RewriteShardMap(HloInstruction* entry) {
    HloComputation& c = *entry->parent();
    if (entry->user_count() == 0 && c.root_instruction() != entry) {
      c.RemoveInstruction(entry);  // a shard_map nothing uses
      return absl::OkStatus();
    }
    HloInstruction* call = CallOf(*entry);
    if (call == nullptr || call->to_apply()->name().rfind(kBodyPrefix, 0) != 0) {
      return Unimplemented("%", entry->name(), ": a ", kGlobalToLocal,
                           " that does not feed a call of ", kBodyPrefix);
    }
    HloInstruction* exit = nullptr;
    for (HloInstruction* user : call->users()) {
      HloInstruction* candidate =
          user->opcode() == HloOpcode::kGetTupleElement && user->user_count() == 1
              ? user->users()[0]
              : user;
      if (IsCustomCall(*candidate, kLocalToGlobal)) exit = candidate;
    }
    if (exit == nullptr) {
      return Unimplemented("%", call->name(), ": a shard_map body whose results do not reach ",
                           kLocalToGlobal);
    }
    const AxisNames& outer = context_[&c];
    XLITE_ASSIGN_OR_RETURN(AxisNames region, ManualAxesOf(*entry));
    XLITE_ASSIGN_OR_RETURN(std::vector<NamedSharding> in,
                           Shardings(*entry, kInShardingsAttr, entry->operand_count()));
    XLITE_ASSIGN_OR_RETURN(std::vector<NamedSharding> out,
                           Shardings(*exit, kOutShardingsAttr, exit->operand_count()));
    std::vector<HloInstruction*> locals;
    for (int64_t i = 0; i < entry->operand_count(); ++i) {
      HloInstruction* operand = entry->operand(i);
      HloSharding full, local;
      XLITE_RETURN_IF_ERROR(SidesOf(in[i], outer, region, operand->shape(),
                                    ValueShape(entry->shape(), i), *entry, &full, &local));
      HloInstruction* constrained = Marker(c, "Sharding", operand->shape(), operand, full, *entry);
      locals.push_back(Marker(c, "SPMDFullToShardShape", ValueShape(entry->shape(), i), constrained,
                              local, *entry));
    }
    ReplaceValues(entry, locals);
    inlined_.insert(call->to_apply());
    InlineCall(call, make_);
    std::vector<HloInstruction*> globals;
    for (int64_t j = 0; j < exit->operand_count(); ++j) {
      HloInstruction* operand = exit->operand(j);
      HloSharding full, local;
      XLITE_RETURN_IF_ERROR(SidesOf(out[j], outer, region, ValueShape(exit->shape(), j),
                                    operand->shape(), *exit, &full, &local));
      HloInstruction* constrained = Marker(c, "Sharding", operand->shape(), operand, local, *exit);
      globals.push_back(Marker(c, "SPMDShardToFullShape", ValueShape(exit->shape(), j), constrained,
                               full, *exit));
    }
    ReplaceValues(exit, globals);
    return absl::OkStatus();
  }

  HloModule& module_;
  InstructionMaker make_;
  SdyMeshes meshes_;
  std::map<const HloComputation*, AxisNames> context_;
  std::set<const HloComputation*> conflicting_;
  std::set<const HloComputation*> inlined_;
};

}  // namespace

absl::StatusOr<bool> ImportShardy(HloModule& module) {
  if (module.entry_computation() == nullptr) return false;
  return ShardyImporter(module).Run();
}

}  // namespace xlite::spmd
