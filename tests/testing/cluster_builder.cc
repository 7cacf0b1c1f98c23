#include "tests/testing/cluster_builder.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "crush/map.h"
#include "crush/model.h"
#include "crush/types.h"

namespace crush_testing {

using crushkit::crush::Bucket;
using crushkit::crush::BucketAlg;
using crushkit::crush::ItemId;
using crushkit::crush::MapModel;
using crushkit::crush::Rule;
using crushkit::crush::RuleOp;
using crushkit::crush::RuleStep;
using crushkit::crush::RuleType;
using crushkit::crush::Weight;

void FinishBucket(Bucket& b) {
  const std::size_t size = b.items.size();
  std::uint64_t total = 0;
  for (const Weight w : b.item_weights) total += w;
  b.sum_weights.clear();
  b.node_weights.clear();
  switch (b.alg) {
    case BucketAlg::kUniform:
      b.uniform_item_weight = b.item_weights.empty() ? 0 : b.item_weights[0];
      b.item_weights.clear();
      b.weight = static_cast<Weight>(std::uint64_t{b.uniform_item_weight} * size);
      return;
    case BucketAlg::kList: {
      Weight sum = 0;
      for (const Weight w : b.item_weights) {
        sum += w;
        b.sum_weights.push_back(sum);
      }
      break;
    }
    case BucketAlg::kTree: {
      // builder.c: depth = 1 + bit length of (size - 1); leaf i at node
      // 2i+1; each inner node of height h sums its two children.
      int depth = 0;
      if (size > 0) {
        depth = 1;
        for (std::size_t t = size - 1; t != 0; t >>= 1) ++depth;
      }
      const std::size_t nodes = depth == 0 ? 0 : std::size_t{1} << depth;
      b.node_weights.assign(nodes, 0);
      for (std::size_t i = 0; i < size; ++i) b.node_weights[2 * i + 1] = b.item_weights[i];
      for (int h = 1; h < depth; ++h) {
        const std::size_t half = std::size_t{1} << (h - 1);
        for (std::size_t n = std::size_t{1} << h; n < nodes; n += std::size_t{2} << h) {
          b.node_weights[n] = b.node_weights[n - half] + b.node_weights[n + half];
        }
      }
      break;
    }
    case BucketAlg::kStraw2:
      break;
    default:
      std::fprintf(stderr, "FinishBucket: unsupported alg %d\n", static_cast<int>(b.alg));
      std::abort();
  }
  b.weight = static_cast<Weight>(total);
}

namespace {

RuleStep Step(RuleOp op, std::int32_t arg1 = 0, std::int32_t arg2 = 0) {
  return RuleStep{op, arg1, arg2};
}

}  // namespace

MapModel MakeClusterModel(const ClusterSpec& spec) {
  MapModel m;
  const int osds = spec.hosts * spec.osds_per_host;
  m.max_devices = osds;
  m.tunables = spec.tunables;
  m.type_names = {{kOsdType, "osd"}, {kHostType, "host"}, {kRackType, "rack"}, {kRootType, "root"}};
  const int racks = spec.racks;
  const int hosts_per_rack = racks > 0 ? (spec.hosts + racks - 1) / racks : 0;
  m.buckets.resize(static_cast<std::size_t>(1 + racks + spec.hosts));
  const auto slot_of = [](ItemId id) { return static_cast<std::size_t>(-1 - id); };
  const ItemId root_id = -1;
  const auto rack_id = [](int r) { return static_cast<ItemId>(-2 - r); };
  const auto host_id = [racks](int h) { return static_cast<ItemId>(-2 - racks - h); };

  for (int i = 0; i < osds; ++i) {
    m.item_names[i] = "osd." + std::to_string(i);
  }
  Bucket& root = m.buckets[slot_of(root_id)];
  root.id = root_id;
  root.type = kRootType;
  root.alg = spec.root_alg;
  m.item_names[root_id] = "default";
  for (int r = 0; r < racks; ++r) {
    Bucket& rack = m.buckets[slot_of(rack_id(r))];
    rack.id = rack_id(r);
    rack.type = kRackType;
    rack.alg = spec.rack_alg;
    m.item_names[rack.id] = "rack" + std::to_string(r);
  }
  for (int h = 0; h < spec.hosts; ++h) {
    Bucket& host = m.buckets[slot_of(host_id(h))];
    host.id = host_id(h);
    host.type = kHostType;
    host.alg = spec.host_alg;
    m.item_names[host.id] = "host" + std::to_string(h);
    for (int k = 0; k < spec.osds_per_host; ++k) {
      const int osd = h * spec.osds_per_host + k;
      host.items.push_back(osd);
      host.item_weights.push_back(static_cast<std::size_t>(osd) < spec.osd_weights.size()
                                      ? spec.osd_weights[static_cast<std::size_t>(osd)]
                                      : crushkit::crush::kWeightOne);
    }
    FinishBucket(host);
    Bucket& parent = racks > 0 ? m.buckets[slot_of(rack_id(h / hosts_per_rack))] : root;
    parent.items.push_back(host.id);
    parent.item_weights.push_back(host.weight);
  }
  for (int r = 0; r < racks; ++r) {
    Bucket& rack = m.buckets[slot_of(rack_id(r))];
    FinishBucket(rack);
    root.items.push_back(rack.id);
    root.item_weights.push_back(rack.weight);
  }
  FinishBucket(root);

  Rule replicated;
  replicated.ruleset = kReplicatedRule;
  replicated.type = RuleType::kReplicated;
  replicated.steps = {Step(RuleOp::kTake, root_id), Step(RuleOp::kChooseleafFirstn, 0, kHostType),
                      Step(RuleOp::kEmit)};
  Rule ec;
  ec.ruleset = kEcRule;
  ec.type = RuleType::kErasure;
  ec.min_size = 3;
  ec.max_size = 20;
  ec.steps = {Step(RuleOp::kSetChooseleafTries, 5), Step(RuleOp::kSetChooseTries, 100),
              Step(RuleOp::kTake, root_id), Step(RuleOp::kChooseleafIndep, 0, kHostType),
              Step(RuleOp::kEmit)};
  m.rules = {replicated, ec};
  m.rule_names = {{kReplicatedRule, "replicated_rule"}, {kEcRule, "ec_rule"}};
  if (racks > 0) {
    Rule rack_rule = replicated;
    rack_rule.ruleset = kRackRule;
    rack_rule.steps[1].arg2 = kRackType;
    m.rules.push_back(rack_rule);
    m.rule_names[kRackRule] = "rack_rule";
  }
  m.rule_exists.assign(m.rules.size(), true);
  return m;
}

crushkit::crush::CrushMap MakeCluster(const ClusterSpec& spec) {
  auto map = crushkit::crush::CrushMap::Build(MakeClusterModel(spec));
  if (!map.ok()) {
    std::fprintf(stderr, "MakeCluster: %s\n", map.status().ToString().c_str());
    std::abort();
  }
  return *std::move(map);
}

crushkit::crush::CrushMap MakeCluster(int osds, int per_host) {
  ClusterSpec spec;
  spec.osds_per_host = per_host;
  spec.hosts = (osds + per_host - 1) / per_host;
  return MakeCluster(spec);
}

const ClusterSpec& TenThousandOsdSpec() {
  static const ClusterSpec* spec = [] {
    auto* s = new ClusterSpec;
    s->hosts = 1000;
    s->osds_per_host = 10;
    s->racks = 50;
    return s;
  }();
  return *spec;
}

const crushkit::crush::CrushMap& TenThousandOsdMap() {
  static const auto* map = new crushkit::crush::CrushMap(MakeCluster(TenThousandOsdSpec()));
  return *map;
}

}  // namespace crush_testing
