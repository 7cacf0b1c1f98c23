#include "osdmap/planning/fill_capacity.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include "osdmap/model/crush_placement.h"
#include "osdmap/planning/movement_report.h"

namespace crushkit::osdmap {
namespace {

std::string ClassOf(const crush::MapModel& map, std::int32_t osd) {
  auto c = map.class_map.find(osd);
  if (c == map.class_map.end()) return "";
  auto n = map.class_names.find(c->second);
  return n == map.class_names.end() ? "" : n->second;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

std::vector<EstimatedCapacity> EstimateUnreportedCapacity(ClusterState* state) {
  std::vector<EstimatedCapacity> out;
  const std::vector<std::optional<crush::Weight>> weights = DeviceCrushWeights(state->crush);
  auto weight_of = [&](std::int32_t osd) {
    const auto d = static_cast<std::size_t>(osd);
    return d < weights.size() && weights[d] ? *weights[d] / 65536.0 : 0.0;
  };
  // KiB per CRUSH weight unit of every OSD with a size, by device class.
  std::map<std::string, std::vector<double>> per_class;
  std::vector<double> all;
  for (const auto& [osd, u] : state->osd_usage) {
    const double w = weight_of(osd);
    if (u.kb == 0 || w <= 0) continue;
    const double r = static_cast<double>(u.kb) / w;
    per_class[ClassOf(state->crush, osd)].push_back(r);
    all.push_back(r);
  }
  if (all.empty()) return out;
  for (std::int32_t osd = 0; osd < state->max_osd(); ++osd) {
    if (!state->IsIn(osd)) continue;
    auto it = state->osd_usage.find(osd);
    if (it != state->osd_usage.end() && it->second.kb > 0) continue;
    const double w = weight_of(osd);
    if (w <= 0) continue;
    EstimatedCapacity e;
    e.osd = osd;
    e.crush_weight = w;
    e.device_class = ClassOf(state->crush, osd);
    auto peers = per_class.find(e.device_class);
    e.peers_of_class = peers != per_class.end();
    const std::vector<double>& ratios = e.peers_of_class ? peers->second : all;
    e.peers = static_cast<std::uint32_t>(ratios.size());
    e.kb_per_weight = Median(ratios);
    e.kb = static_cast<std::uint64_t>(std::llround(w * e.kb_per_weight));
    state->osd_usage[osd] = OsdUsage{e.kb, 0, e.kb};
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

// "osd.3", "osd.188-199, osd.205": consecutive ids as one range, at most
// eight ranges (then "... N OSDs in all").
std::string OsdIdList(const std::vector<std::int32_t>& ids) {
  std::vector<std::string> ranges;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (ranges.size() == 8) {
      ranges.push_back("...");
      break;
    }
    ranges.push_back(j == i ? absl::StrCat("osd.", ids[i])
                            : absl::StrCat("osd.", ids[i], "-", ids[j]));
    i = j + 1;
  }
  return absl::StrJoin(ranges, ", ");
}

std::string DescribeGroup(const EstimatedCapacity& e, const std::vector<std::int32_t>& ids,
                          bool is_new) {
  const std::string peers =
      e.peers_of_class && !e.device_class.empty()
          ? absl::StrCat(e.peers, " ", e.device_class, " OSDs")
          : absl::StrCat(e.peers, " OSDs", e.device_class.empty() ? "" : " (none of its class)");
  const bool one = ids.size() == 1;
  const std::string who =
      one ? OsdIdList(ids)
          : absl::StrCat(OsdIdList(ids), " (", ids.size(), is_new ? " new" : "", " OSDs)");
  const std::string why = is_new ? "new: not in the cluster before the change"
                                 : "out: the mgr zeroes an out OSD's stats";
  return absl::StrFormat(
      "%s %s no size in `ceph osd df` (%s): %s%s assumed, %s CRUSH weight %.4g x %s per weight "
      "unit (the median of %s), nothing used",
      who, one ? "shows" : "show", why, FormatBytes(static_cast<double>(e.kb) * 1024),
      one ? "" : " each", one ? "its" : "their", e.crush_weight,
      FormatBytes(e.kb_per_weight * 1024), peers);
}

}  // namespace

std::vector<std::string> DescribeEstimates(const std::vector<EstimatedCapacity>& estimates,
                                           const ClusterState& before) {
  // Estimates made alike (new or out, class, peers, weight) share a line.
  using Key = std::tuple<bool, std::string, bool, std::uint32_t, double, double>;
  std::map<Key, std::pair<const EstimatedCapacity*, std::vector<std::int32_t>>> groups;
  for (const EstimatedCapacity& e : estimates) {
    const Key key{!before.Exists(e.osd), e.device_class, e.peers_of_class, e.peers,
                  e.kb_per_weight,       e.crush_weight};  // e.kb follows from these two
    auto& g = groups[key];
    if (g.first == nullptr) g.first = &e;
    g.second.push_back(e.osd);
  }
  std::vector<std::pair<std::int32_t, std::string>> lines;  // by first OSD id
  for (auto& [key, g] : groups) {
    std::sort(g.second.begin(), g.second.end());
    lines.emplace_back(g.second.front(), DescribeGroup(*g.first, g.second, std::get<0>(key)));
  }
  std::sort(lines.begin(), lines.end());
  std::vector<std::string> out;
  for (auto& l : lines) out.push_back(std::move(l.second));
  return out;
}

}  // namespace crushkit::osdmap
