// The `sharding=` grammar (spec §3.1, "V2"): replicated / maximal / manual /
// unknown / unreduced, tiled with explicit or iota device lists, subgroups,
// shard groups, metadata, and tuples (whose elements may also be mesh
// shardings, named_sharding_parser.cc).
#include <numeric>

#include "xlite/base/status.h"
#include "xlite/text/parser_impl.h"

namespace xlite {

absl::Status HloTextParser::ParseSharding(HloSharding* sharding) {
  XLITE_RETURN_IF_ERROR(Enter());
  NestingScope nesting(&depth_);
  if (kind() != TokKind::kLbrace) return Expected("'{' starting a sharding");
  TokKind next = lexer_.Peek().kind;
  if (next != TokKind::kLbrace && next != TokKind::kRbrace) {
    return ParseSingleSharding(sharding);
  }
  std::vector<HloSharding> elements;
  XLITE_RETURN_IF_ERROR(ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&] {
    elements.emplace_back();
    return ParseSingleSharding(&elements.back());
  }));
  *sharding = HloSharding::Tuple(std::move(elements));
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseSingleSharding(HloSharding* sharding) {
  size_t offset = tok().offset;
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' starting a sharding"));
  if (AtIdent("mesh") || AtIdent("maximal_mesh")) return ParseNamedSharding(offset, sharding);
  enum class Type { kNone, kReplicated, kMaximal, kManual, kUnknown, kUnreduced };
  Type type = Type::kNone;
  std::optional<int64_t> device;
  bool has_devices = false, is_iota = false, last_tile_dim_replicate = false;
  std::vector<int64_t> tile_dims, devices, reshape, perm;
  std::vector<OpShardingType> subgroups;
  std::optional<HloSharding::ShardGroup> group;
  std::vector<OpMetadata> metadata;
  auto set_type = [&](Type t) -> absl::Status {
    if (type != Type::kNone) return Error("sharding names more than one kind");
    type = t;
    Advance();
    return absl::OkStatus();
  };
  while (kind() != TokKind::kRbrace) {
    if (kind() == TokKind::kIdent) {
      std::string_view word = tok().text;
      if (word == "replicated") {
        XLITE_RETURN_IF_ERROR(set_type(Type::kReplicated));
      } else if (word == "maximal") {
        XLITE_RETURN_IF_ERROR(set_type(Type::kMaximal));
      } else if (word == "manual") {
        XLITE_RETURN_IF_ERROR(set_type(Type::kManual));
      } else if (word == "unknown") {
        XLITE_RETURN_IF_ERROR(set_type(Type::kUnknown));
      } else if (word == "unreduced") {
        XLITE_RETURN_IF_ERROR(set_type(Type::kUnreduced));
      } else if (word == "last_tile_dim_replicate") {
        last_tile_dim_replicate = true;
        Advance();
      } else if (word == "shard_as" || word == "shard_like") {
        HloSharding::ShardGroup g;
        g.shard_as = word == "shard_as";
        Advance();
        XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&g.id));
        group = g;
      } else {
        return Error(Cat("unknown sharding attribute '", word, "'"));
      }
      continue;
    }
    if (kind() != TokKind::kAttrName) return Expected("a sharding attribute");
    std::string_view name = tok().text;
    Advance();
    if (name == "device") {
      int64_t d = 0;
      XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&d));
      device = d;
    } else if (name == "devices") {
      has_devices = true;
      XLITE_RETURN_IF_ERROR(ParseBracketIntList(&tile_dims));
      if (Consume(TokKind::kLeq)) {
        is_iota = true;
        XLITE_RETURN_IF_ERROR(ParseBracketIntList(&reshape));
        if (AtIdent("T")) {
          Advance();
          XLITE_RETURN_IF_ERROR(ParseParenIntList(&perm));
        }
      } else {
        while (true) {
          int64_t d = 0;
          XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&d));
          devices.push_back(d);
          if (!Consume(TokKind::kComma)) break;
        }
      }
    } else if (name == "last_tile_dims") {
      XLITE_RETURN_IF_ERROR(
          ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
            OpShardingType subgroup;
            XLITE_RETURN_IF_ERROR(ParseEnum(&subgroup));
            subgroups.push_back(subgroup);
            return absl::OkStatus();
          }));
    } else if (name == "metadata") {
      XLITE_RETURN_IF_ERROR(ParseShardingMetadata(&metadata));
    } else {
      return Error(Cat("unknown sharding attribute '", name, "'"));
    }
  }
  Advance();  // '}'

  if (type == Type::kNone) {
    if (!has_devices) return ErrorAt(offset, "sharding has neither a kind nor devices=");
    for (int64_t d : tile_dims) {
      if (d <= 0) return ErrorAt(offset, "tile assignment dimensions must be positive");
    }
    int64_t tiles = 1;
    for (int64_t d : tile_dims) {
      if (tiles > INT64_MAX / d) return ErrorAt(offset, "tile assignment is too large");
      tiles *= d;
    }
    TileAssignment assignment;
    if (is_iota) {
      XLITE_RETURN_IF_ERROR(CheckIotaForm(offset, reshape, &perm, tiles));
      assignment = TileAssignment::Iota(tile_dims, reshape, perm);
    } else {
      if (static_cast<int64_t>(devices.size()) != tiles) {
        return ErrorAt(offset,
                       Cat("tile assignment lists ", devices.size(), " devices, expected ", tiles));
      }
      assignment = TileAssignment::Explicit(tile_dims, devices);
    }
    *sharding =
        HloSharding::Tiled(std::move(assignment), last_tile_dim_replicate, std::move(subgroups));
  } else {
    if (has_devices || last_tile_dim_replicate || !subgroups.empty()) {
      return ErrorAt(offset, "only tiled shardings take devices= or subgroups");
    }
    if ((type == Type::kMaximal) != device.has_value()) {
      return ErrorAt(offset, type == Type::kMaximal
                                 ? "maximal sharding needs device=N"
                                 : "device= is only allowed on maximal shardings");
    }
    switch (type) {
      case Type::kReplicated:
        *sharding = HloSharding::Replicated();
        break;
      case Type::kMaximal:
        *sharding = HloSharding::Maximal(*device);
        break;
      case Type::kManual:
        *sharding = HloSharding::Manual();
        break;
      case Type::kUnknown:
        *sharding = HloSharding::Unknown();
        break;
      case Type::kUnreduced:
        *sharding = HloSharding::Unreduced();
        break;
      case Type::kNone:
        break;
    }
  }
  if (group) sharding->set_shard_group(*group);
  sharding->mutable_metadata() = std::move(metadata);
  return absl::OkStatus();
}

absl::Status HloTextParser::CheckIotaForm(size_t offset, const std::vector<int64_t>& reshape,
                                          std::vector<int64_t>* perm, int64_t devices) {
  int64_t reshape_product = 1;
  for (int64_t d : reshape) {
    if (d <= 0 || reshape_product > INT64_MAX / d) {
      return ErrorAt(offset, "invalid iota reshape dimensions");
    }
    reshape_product *= d;
  }
  if (reshape_product != devices) {
    return ErrorAt(offset, Cat("iota reshape has ", reshape_product, " devices but ", devices,
                               " are needed"));
  }
  if (perm->empty()) {
    perm->resize(reshape.size());
    std::iota(perm->begin(), perm->end(), 0);
  }
  if (perm->size() != reshape.size()) {
    return ErrorAt(offset, "iota transpose permutation length differs from the reshape rank");
  }
  std::vector<bool> seen(reshape.size(), false);
  for (int64_t p : *perm) {
    if (p < 0 || p >= static_cast<int64_t>(reshape.size()) || seen[p]) {
      return ErrorAt(offset, "iota transpose is not a permutation");
    }
    seen[p] = true;
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseShardingMetadata(std::vector<OpMetadata>* metadata) {
  if (kind() != TokKind::kLbrace) return Expected("'{' starting sharding metadata");
  if (lexer_.Peek().kind != TokKind::kLbrace) {
    metadata->emplace_back();
    return ParseMetadata(&metadata->back());
  }
  return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&] {
    metadata->emplace_back();
    return ParseMetadata(&metadata->back());
  });
}

}  // namespace xlite
