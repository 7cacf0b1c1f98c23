#include "crush/ceph_release.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include "crush/codec.h"

namespace crushkit::crush {

std::string_view CephReleaseName(CephRelease release) {
  switch (release) {
    case CephRelease::kPacific:
      return "pacific";
    case CephRelease::kReef:
      return "reef";
    case CephRelease::kTentacle:
      return "tentacle";
  }
  return "?";
}

absl::StatusOr<CephRelease> ParseCephRelease(std::string_view name) {
  for (CephRelease r : {CephRelease::kPacific, CephRelease::kReef, CephRelease::kTentacle}) {
    if (name == CephReleaseName(r)) return r;
  }
  return absl::InvalidArgumentError("unknown Ceph release '" + std::string(name) +
                                    "'; supported: pacific (16.2), reef (18.2), tentacle (20.2)");
}

absl::Status CheckDecodable(const MapModel& map, CephRelease release) {
  if (HasRulesets(release)) return absl::OkStatus();
  for (std::size_t i = 0; i < map.rules.size(); ++i) {
    if (!map.rule_exists[i] || map.rules[i].ruleset == i) continue;
    return absl::InvalidArgumentError("rule " + std::to_string(i) + " has ruleset " +
                                      std::to_string(map.rules[i].ruleset) + ", which " +
                                      std::string(CephReleaseName(release)) +
                                      " refuses (the ruleset must equal the rule id)");
  }
  return absl::OkStatus();
}

void PrepareForEncode(MapModel& map, CephRelease release) {
  if (!HasMsr(release)) {
    map.tail = EncodedTail::kChooseArgs;
    // Releases before Squid neither read nor write the MSR tunables.
    const Tunables defaults;
    map.tunables.msr_descents = defaults.msr_descents;
    map.tunables.msr_collision_tries = defaults.msr_collision_tries;
  } else {
    map.tail = EncodedTail::kMsr;
  }
  if (HasRulesets(release)) return;
  // Quincy+ CrushWrapper::encode: the legacy rule mask is written as
  // (rule id as u8, type, 1, 100) whatever the rule held.
  for (std::size_t i = 0; i < map.rules.size(); ++i) {
    Rule& rule = map.rules[i];
    rule.ruleset = static_cast<std::uint8_t>(i & 0xff);
    rule.min_size = 1;
    rule.max_size = 100;
  }
}

std::string EncodeCrushMapAs(MapModel map, CephRelease release) {
  PrepareForEncode(map, release);
  return EncodeCrushMap(map);
}

}  // namespace crushkit::crush
