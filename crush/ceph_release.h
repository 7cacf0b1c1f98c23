// The Ceph releases whose tools crushkit reproduces, and what each release's
// CrushWrapper::encode() writes for the same map.
//
// Pacific (16.2) keeps a ruleset byte and min_size/max_size per rule and
// writes the tunables up to choose_args. Reef (18.2) removed rulesets (the
// byte must equal the rule id on decode) and writes min/max as 1/100.
// Tentacle (20.2) also appends the MSR tunables (Squid's CRUSH_MSR feature).
// Placements are the same in all three for rules all three know.
// Thread-safety: plain values and pure functions.
#ifndef CRUSHKIT_CRUSH_CEPH_RELEASE_H_
#define CRUSHKIT_CRUSH_CEPH_RELEASE_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

#include "crush/model.h"

namespace crushkit::crush {

enum class CephRelease { kPacific, kReef, kTentacle };

// The current release: what crushkit behaves as unless told otherwise.
inline constexpr CephRelease kDefaultCephRelease = CephRelease::kTentacle;

// "pacific", "reef", "tentacle".
std::string_view CephReleaseName(CephRelease release);

// Parses a release name (lower case, as CephReleaseName prints it). An
// unknown name is kInvalidArgument whose message lists the supported ones.
absl::StatusOr<CephRelease> ParseCephRelease(std::string_view name);

// True when the release still has rulesets and per-rule min_size/max_size
// (Pacific); Quincy and later dropped them.
constexpr bool HasRulesets(CephRelease release) { return release == CephRelease::kPacific; }

// True when the release knows MSR rules and tunables (Squid and later).
constexpr bool HasMsr(CephRelease release) { return release == CephRelease::kTentacle; }

// Whether `release`'s decoder accepts a map decoded as `map`: Quincy and
// later refuse a rule whose ruleset byte is not its id (so no rule id above
// 255 survives a round trip through them); Pacific accepts anything the
// codec decodes. The error names the first offending rule. Cost: O(rules).
absl::Status CheckDecodable(const MapModel& map, CephRelease release);

// Rewrites `map` into what `release`'s encoder writes for it, so that
// EncodeCrushMap(map) gives that release's bytes: Pacific writes the tail up
// to choose_args and drops MSR tunables (it neither reads nor writes them);
// Reef also sets every rule's ruleset byte to its id (mod 256) and
// min/max_size to 1/100; Tentacle in addition always writes the MSR tail.
// Cost: O(rules).
void PrepareForEncode(MapModel& map, CephRelease release);

// The bytes `release` writes for `map` (`crushtool -c`, `crushtool -i in
// -o out`): PrepareForEncode on a copy, then EncodeCrushMap.
std::string EncodeCrushMapAs(MapModel map, CephRelease release);

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_CEPH_RELEASE_H_
