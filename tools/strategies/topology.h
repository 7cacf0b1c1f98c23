// The cluster a placement strategy maps keys onto, derived from a CRUSH map
// model, plus the edits `crushkit strategies` applies to it (add, remove,
// reweight) and the ideal per-node share each strategy is measured against.
//
// A Topology is the set of devices reachable from a rule's `take` root with
// positive CRUSH weight, each tagged with its failure domain (the ancestor
// bucket of the rule's first choose/chooseleaf type). It also keeps the
// (edited) MapModel and rule so CRUSH itself can run on exactly the same
// cluster. Plain values; const access is thread-safe.
#ifndef CRUSHKIT_TOOLS_STRATEGIES_TOPOLOGY_H_
#define CRUSHKIT_TOOLS_STRATEGIES_TOPOLOGY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/model.h"
#include "crush/types.h"

namespace crushkit::strategies {

using crush::ItemId;

struct Node {
  ItemId id = 0;      // the CRUSH device id; stable across edits
  std::string name;   // "osd.N" unless the map names it
  double weight = 0;  // CRUSH weight (16.16 converted), > 0
  int domain = 0;     // index into Topology::domain_names
};

struct Topology {
  std::vector<Node> nodes;  // sorted by id, weight > 0 only
  std::vector<std::string> domain_names;
  std::string domain_type;  // e.g. "host", "rack", "osd"
  // The map CRUSH runs on and the rule used; never null after Make*().
  std::shared_ptr<const crush::MapModel> model;
  int rule = 0;

  double total_weight() const;
  // Index of the node with `id` in `nodes`, or -1.
  int IndexOf(ItemId id) const;
};

// Builds the topology of `model` as seen by rule `rule`. The failure domain
// type is `domain_type` if given (a type name of the map), else the type of
// the rule's first choose/chooseleaf step. Errors: kNotFound for a missing
// rule or type, kInvalidArgument for a rule without `take` or with no
// positive-weight device below its root.
absl::StatusOr<Topology> TopologyFromModel(std::shared_ptr<const crush::MapModel> model, int rule,
                                           const std::optional<std::string>& domain_type = {});

// A map of `n` devices osd.0..osd.{n-1} of weight 1.0 directly under one
// straw2 root, jewel tunables, and rule 0 `choose firstn 0 type osd`: every
// node is its own failure domain. Errors: kInvalidArgument unless 1 <= n <= 1e6.
absl::StatusOr<crush::MapModel> MakeFlatModel(int n);

// Edits, through crush/edit/edit.h (CrushWrapper's insert_item, remove_item and
// adjust_item_weight, so ancestors' weights follow as in Ceph). They are
// limited to all-straw2 maps without device classes or choose_args, the
// maps `crushkit strategies` compares placements on:
// Adds `count` devices with the next free ids and weight `weight` (16.16),
// round-robin over the buckets that directly hold devices of the rule's tree
// (or only into bucket `parent` if given). Returns the new ids.
absl::StatusOr<std::vector<ItemId>> AddDevices(crush::MapModel& model, int rule, int count,
                                               crush::Weight weight,
                                               std::optional<ItemId> parent = {});
// Removes device `id` from every bucket.
absl::Status RemoveDevice(crush::MapModel& model, ItemId id);
// Sets device `id`'s CRUSH weight to `weight` in every bucket holding it.
absl::Status ReweightDevice(crush::MapModel& model, ItemId id, crush::Weight weight);
// Resolves "osd.3", "3" or any item name of the map to a device id.
absl::StatusOr<ItemId> ResolveDevice(const crush::MapModel& model, const std::string& name);

// The share of all replica slots each node ideally holds (sums to 1 over
// `topo.nodes`, same order): weight-proportional, except that no failure
// domain can hold more than 1/replicas of the slots when the rule separates
// replicas (water-filling: capped domains get exactly 1/replicas, the rest is
// spread over the others by weight), and within a domain by node weight. If
// there are fewer domains than replicas, the cap applies per node instead.
std::vector<double> IdealShares(const Topology& topo, int replicas);

}  // namespace crushkit::strategies

#endif  // CRUSHKIT_TOOLS_STRATEGIES_TOPOLOGY_H_
