// The generated alternatives of plan_compare.h: --place-hosts (each bucket
// of the hosts' parent type, and a new one) and --drain-order (orders of
// draining hosts).
#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "crush/edit/display.h"
#include "crush/edit/edit.h"
#include "osdmap/planning/plan_compare.h"

namespace crushkit::osdmap {

namespace {

std::string TypeName(const crush::MapModel& map, int type) {
  const auto it = map.type_names.find(type);
  return it == map.type_names.end() ? absl::StrCat("type", type) : it->second;
}

std::string ItemName(const crush::MapModel& map, crush::ItemId id) {
  const auto it = map.item_names.find(id);
  return it == map.item_names.end() ? absl::StrCat(id) : it->second;
}

// Non-shadow buckets of `type`, in id order (descending slot: -1 first).
std::vector<const crush::Bucket*> BucketsOfType(const crush::MapModel& map, int type) {
  std::vector<const crush::Bucket*> out;
  for (const crush::Bucket& b : map.buckets) {
    if (b.alg == crush::BucketAlg::kNone || b.type != type) continue;
    if (crush::IsShadowItem(map, b.id)) continue;
    out.push_back(&b);
  }
  return out;
}

absl::StatusOr<ChangeList> Parsed(const std::string& text, const std::string& name) {
  absl::StatusOr<ChangeList> c = ParseChange(text, name);
  if (!c.ok()) return c.status();
  return c;
}

// The add-host line of `op` with its location replaced by `where`.
std::string AddHostLine(const ChangeOp& op, const std::string& where) {
  std::string line = absl::StrCat(
      "add-host ", op.name.text, " osds=", op.osd_count,
      " weight=", op.weight_word.present() ? op.weight_word.text : absl::StrCat(op.weight));
  if (op.device_class.present()) absl::StrAppend(&line, " class=", op.device_class.text);
  return absl::StrCat(line, " ", where);
}

}  // namespace

absl::StatusOr<std::vector<PlanAlternative>> PlaceHostsAlternatives(const ClusterState& state,
                                                                    const ChangeList& hosts) {
  const crush::MapModel& map = state.crush;
  if (std::none_of(hosts.ops.begin(), hosts.ops.end(),
                   [](const ChangeOp& op) { return op.kind == ChangeOpKind::kAddHost; })) {
    return absl::InvalidArgumentError(absl::StrCat(
        hosts.file_name, ": --place-hosts needs add-host operations (the hosts to place)"));
  }
  // The type of the buckets that hold the state's hosts, from the first
  // host that has a parent.
  int host_type = -1;
  for (const auto& [id, name] : map.type_names) {
    if (name == "host") host_type = id;
  }
  const crush::Bucket* domain_example = nullptr;
  if (host_type >= 0) {
    for (const crush::Bucket* h : BucketsOfType(map, host_type)) {
      domain_example = crush::ImmediateParent(map, h->id);
      if (domain_example != nullptr) break;
    }
  }
  if (domain_example == nullptr) {
    return absl::InvalidArgumentError(
        "--place-hosts: the state's hosts are in no bucket (no type above 'host' to choose "
        "from)");
  }
  const std::string type = TypeName(map, domain_example->type);
  const crush::Bucket* top = crush::ImmediateParent(map, domain_example->id);
  std::vector<std::string> names;
  for (const crush::Bucket* b : BucketsOfType(map, domain_example->type)) {
    names.push_back(ItemName(map, b->id));
  }
  std::sort(names.begin(), names.end());
  // A name for the new bucket: TYPE + the first number not taken.
  std::string fresh;
  for (int n = 0;; ++n) {
    fresh = absl::StrCat(type, n);
    bool taken = false;
    for (const auto& [id, name] : map.item_names) taken = taken || name == fresh;
    if (!taken) break;
  }
  auto lines_for = [&](const std::string& where) {
    std::string text;
    for (const ChangeOp& op : hosts.ops) {
      absl::StrAppend(&text, op.kind == ChangeOpKind::kAddHost ? AddHostLine(op, where) : op.text,
                      "\n");
    }
    return text;
  };
  std::vector<PlanAlternative> out;
  for (const std::string& name : names) {
    absl::StatusOr<ChangeList> c = Parsed(lines_for(absl::StrCat(type, "=", name)),
                                          absl::StrCat(hosts.file_name, " in ", name));
    if (!c.ok()) return c.status();
    out.push_back(PlanAlternative{.name = name, .stages = {*std::move(c)}, .max_misplaced = {}});
  }
  std::string add = absl::StrCat("osd crush add-bucket ", fresh, " ", type);
  if (top != nullptr) {
    absl::StrAppend(&add, " ", TypeName(map, top->type), "=", ItemName(map, top->id));
  }
  absl::StatusOr<ChangeList> c =
      Parsed(absl::StrCat(add, "\n", lines_for(absl::StrCat(type, "=", fresh))),
             absl::StrCat(hosts.file_name, " in new ", type, " ", fresh));
  if (!c.ok()) return c.status();
  out.push_back(PlanAlternative{.name = absl::StrCat("new ", type, " ", fresh),
                                .stages = {*std::move(c)},
                                .max_misplaced = {}});
  return out;
}

absl::StatusOr<std::vector<PlanAlternative>> DrainOrderAlternatives(
    const ClusterState& state, const std::vector<std::string>& hosts) {
  if (hosts.size() < 2) {
    return absl::InvalidArgumentError("--drain-order needs at least two hosts to order");
  }
  for (const std::string& h : hosts) {
    bool found = false;
    for (const auto& [id, name] : state.crush.item_names) found = found || (id < 0 && name == h);
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrCat("--drain-order: '", h.substr(0, 80), "' is not a bucket of the state"));
    }
  }
  std::vector<std::vector<std::size_t>> orders;
  std::vector<std::size_t> order(hosts.size());
  std::iota(order.begin(), order.end(), 0);
  if (hosts.size() <= 4) {
    do orders.push_back(order);
    while (std::next_permutation(order.begin(), order.end()));
  } else {
    for (std::size_t first = 0; first < hosts.size(); ++first) {
      std::vector<std::size_t> o = {first};
      for (std::size_t i = 0; i < hosts.size(); ++i) {
        if (i != first) o.push_back(i);
      }
      orders.push_back(std::move(o));
    }
  }
  std::vector<PlanAlternative> out;
  for (const std::vector<std::size_t>& o : orders) {
    PlanAlternative a;
    std::vector<std::string> names;
    for (std::size_t i : o) {
      names.push_back(hosts[i]);
      absl::StatusOr<ChangeList> c =
          Parsed(absl::StrCat("drain ", hosts[i], "\n"), absl::StrCat("drain ", hosts[i]));
      if (!c.ok()) return c.status();
      a.stages.push_back(*std::move(c));
    }
    a.name = absl::StrJoin(names, ", ");
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace crushkit::osdmap
