// The staged plan's weights and commands (staged_plan_internal.h), and the
// shortest weight texts Ceph reads back to the same value (staged_plan.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "crush/edit/edit.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/planning/staged_plan_internal.h"

namespace crushkit::osdmap {
namespace {

// Ceph's conversions of a typed weight (ParseCrushWeight / AdjustItemWeightF,
// OSDMonitor "osd reweight").
crush::Weight CrushWeightOf(double x) {
  return static_cast<crush::Weight>(
      static_cast<int>(static_cast<float>(x) * static_cast<float>(0x10000)));
}

crush::Weight ReweightOf(double x) {
  return static_cast<crush::Weight>(static_cast<int>(static_cast<double>(0x10000) * x));
}

// Shortest fixed-point text whose conversion gives `w`; candidates are the
// value rounded at each precision and nudged up by one unit of it (the
// conversions truncate).
std::string ShortestText(crush::Weight w, crush::Weight (*convert)(double)) {
  const double v = static_cast<double>(w) / 0x10000;
  for (int digits = 0; digits <= 9; ++digits) {
    const double unit = std::pow(10.0, -digits);
    for (double candidate : {std::round(v / unit) * unit, std::round(v / unit) * unit + unit}) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*f", digits, candidate);
      double parsed = 0;
      if (absl::SimpleAtod(buf, &parsed) && convert(parsed) == w) return buf;
    }
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9f", v);
  return buf;
}

// "osd.188-199" for consecutive ids, else "osd.3, osd.7, ...".
std::string FormatOsdRange(const std::vector<std::int32_t>& ids) {
  if (ids.empty()) return "no OSDs";
  bool consecutive = true;
  for (std::size_t i = 1; i < ids.size(); ++i)
    consecutive = consecutive && ids[i] == ids[i - 1] + 1;
  if (consecutive && ids.size() > 1) return absl::StrCat("osd.", ids.front(), "-", ids.back());
  std::vector<std::string> names;
  for (std::int32_t id : ids) names.push_back(absl::StrCat("osd.", id));
  return absl::StrJoin(names, ", ");
}

}  // namespace

std::string CrushWeightText(crush::Weight w) { return ShortestText(w, CrushWeightOf); }

std::string ReweightText(crush::Weight w) { return ShortestText(w, ReweightOf); }

namespace internal {

crush::Weight Interpolate(crush::Weight from, crush::Weight to, double f) {
  if (f >= 1) return to;
  const double d = static_cast<double>(to) - static_cast<double>(from);
  return static_cast<crush::Weight>(std::llround(static_cast<double>(from) + f * d));
}

// Every OSD whose CRUSH weight or reweight the change sets: from its value
// in `before` (CRUSH weight 0 for a device new to the map) to its value in
// `target`. Devices the change unlinks, and reweights of OSDs it creates,
// are not walked.
std::vector<Staged> FindStaged(const ClusterState& before, const ClusterState& target) {
  std::vector<Staged> out;
  const std::vector<std::optional<crush::Weight>> w0 = DeviceCrushWeights(before.crush);
  const std::vector<std::optional<crush::Weight>> w1 = DeviceCrushWeights(target.crush);
  auto at = [](const std::vector<std::optional<crush::Weight>>& w, std::size_t i) {
    return i < w.size() ? w[i] : std::nullopt;
  };
  const std::size_t n = std::max(before.osds.size(), target.osds.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto id = static_cast<std::int32_t>(i);
    Staged s;
    s.osd = id;
    auto name = target.crush.item_names.find(id);
    s.name = name != target.crush.item_names.end() ? name->second : absl::StrCat("osd.", id);
    const std::optional<crush::Weight> c1 = at(w1, i);
    const crush::Weight c0 = at(w0, i).value_or(0);
    if (c1 && name != target.crush.item_names.end() && c0 != *c1) {
      s.crush = true;
      s.crush_from = c0;
      s.crush_to = *c1;
    }
    if (i < before.osds.size() && i < target.osds.size() && before.Exists(id) &&
        target.Exists(id) && before.osds[i].weight != target.osds[i].weight) {
      s.reweight = true;
      s.reweight_from = before.osds[i].weight;
      s.reweight_to = target.osds[i].weight;
    }
    if (s.crush || s.reweight) out.push_back(std::move(s));
  }
  return out;
}

// The commands that take the staged OSDs from fraction `from` to `to`
// (only those whose value changes).
std::vector<std::string> StepCommands(const std::vector<Staged>& staged, double from, double to) {
  std::vector<std::string> out;
  for (const Staged& s : staged) {
    if (s.crush) {
      const crush::Weight w = Interpolate(s.crush_from, s.crush_to, to);
      if (w != Interpolate(s.crush_from, s.crush_to, from)) {
        out.push_back(absl::StrCat("ceph osd crush reweight ", s.name, " ", CrushWeightText(w)));
      }
    }
    if (s.reweight) {
      const crush::Weight r = Interpolate(s.reweight_from, s.reweight_to, to);
      if (r != Interpolate(s.reweight_from, s.reweight_to, from)) {
        out.push_back(absl::StrCat("ceph osd reweight ", s.osd, " ", ReweightText(r)));
      }
    }
  }
  return out;
}

std::vector<StepOsdWeight> StepWeights(const std::vector<Staged>& staged,
                                       const ClusterState& state) {
  std::vector<StepOsdWeight> out;
  const std::vector<std::optional<crush::Weight>> weights = DeviceCrushWeights(state.crush);
  for (const Staged& s : staged) {
    StepOsdWeight w;
    w.osd = s.osd;
    const auto d = static_cast<std::size_t>(s.osd);
    w.crush_weight = d < weights.size() ? weights[d].value_or(0) : 0;
    w.reweight = d < state.osds.size() ? state.osds[d].weight : 0;
    out.push_back(w);
  }
  return out;
}

// Ceph CLI lines for a step-0 operation. crushkit's own add-host becomes
// the host bucket plus a comment on deploying its OSDs (Ceph creates OSDs
// from a disk, not from a command); `osd up` (crushkit's) a comment.
void AppendCephCommands(const ChangeOp& op, const ClusterState& start,
                        std::vector<std::string>* out) {
  if (op.kind == ChangeOpKind::kAddHost) {
    std::string loc;
    for (const LocationWord& l : op.location)
      absl::StrAppend(&loc, " ", l.type.text, "=", l.name.text);
    out->push_back(absl::StrCat("ceph osd crush add-bucket ", op.name.text, " host", loc));
    std::vector<std::int32_t> ids;
    if (absl::StatusOr<crush::ItemId> host = crush::FindItem(start.crush, op.name.text);
        host.ok()) {
      if (const crush::Bucket* b = start.crush.FindBucket(*host)) ids = b->items;
    }
    out->push_back(
        absl::StrCat("# deploy ", op.osd_count, " OSDs on ", op.name.text,
                     op.device_class.present() ? " (class " + op.device_class.text + ")" : "",
                     " with `ceph config set osd osd_crush_initial_weight 0` set: they "
                     "join at CRUSH weight 0 as ",
                     FormatOsdRange(ids)));
    return;
  }
  if (op.kind == ChangeOpKind::kMarkUp) {
    out->push_back("# " + DescribeChangeOp(op) + " (start the OSDs)");
    return;
  }
  out->push_back("ceph " + DescribeChangeOp(op));
}

}  // namespace internal
}  // namespace crushkit::osdmap
