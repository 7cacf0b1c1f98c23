// `crushkit strategies`: compares CRUSH straw2 with six other placement
// strategies on one cluster (a crush map, or --nodes N) before and after one
// change. Parses options, builds the two topologies and prints
// strategies::CompareStrategies(); the metrics are defined in
// tools/strategies/README.md.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include <CLI/CLI.hpp>

#include "compiler/compile.h"
#include "crush/codec.h"
#include "crush/status_macros.h"
#include "tools/common/file_io.h"
#include "tools/crushkit/commands.h"
#include "tools/strategies/compare.h"
#include "tools/strategies/topology.h"

namespace crushkit::tools {
namespace {

using strategies::Topology;

struct StrategiesOptions {
  std::string map;
  int nodes = 0;
  std::string rule;
  std::string failure_domain;
  int add = 0;
  double add_weight = 0;
  std::string add_to;
  std::vector<std::string> remove;
  std::vector<std::pair<std::string, double>> reweight;
  std::string to;
  std::int64_t keys = 100000;
  int replicas = 3;
  int vnodes = 256;
  std::uint32_t maglev_size = 65537;
  int partitions = 4096;
  std::uint64_t seed = 0;
  std::string only;
  bool json = false;
  std::string output;
};

constexpr char kHelpFooter[] = R"(
Cluster: a crush map (binary, or text compiled by crushkit's compiler) and
its rule (--rule, default the lowest rule id), or --nodes N equal devices
under one straw2 root. Every strategy places on the devices the rule can
reach, weighted by CRUSH weight; failure domain = the rule's first
choose/chooseleaf type (or --failure-domain).
Change: --add/--remove/--reweight (may be combined; applied in that order;
all-straw2 maps without device classes only), or --to MAP2 (devices matched
by id). Without a change, moved fractions are 0.
Metrics (keys are KEYS hashed with SEED; details in tools/strategies/README.md):
  moved     replica slots whose old node is no longer in the key's new replica
            set (a copy must be made), / (keys x replicas); reordering a
            key's replicas is not a move
  minimum   the weight shift: sum over nodes of max(0, new share - old share),
            shares = ideal fraction of replica slots (by weight, each failure
            domain capped at 1/replicas): what a strategy that keeps the ideal
            distribution must move, on average
  max/mean  max over nodes of load / ideal load (1.0 = perfect), after
  stddev    RMS over nodes of (load / ideal load - 1), after
  domain violations  keys with two replicas in one failure domain, after
            (--json also gives the three figures before the change)
  ns/key    mean CPU time to look up all replicas of one key, before
  memory    bytes of the lookup structures, before)";

absl::StatusOr<crush::MapModel> LoadMap(const std::string& path) {
  CRUSH_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path));
  if (crush::HasCrushMagic(bytes)) return crush::DecodeCrushMap(bytes);
  const compiler::SourceFile src(path, std::move(bytes));
  compiler::DiagnosticSink sink;
  auto model = compiler::Compile(src, &sink);
  if (!model.ok()) {
    return absl::InvalidArgumentError(
        sink.diagnostics().empty() ? std::string(model.status().message()) : sink.Format(src));
  }
  return model;
}

absl::StatusOr<int> ResolveRule(const crush::MapModel& m, const std::string& rule) {
  if (rule.empty()) {
    for (int i = 0; i < m.max_rules(); ++i) {
      if (m.rule_exists[static_cast<std::size_t>(i)]) return i;
    }
    return absl::InvalidArgumentError("the map has no rules");
  }
  for (const auto& [id, name] : m.rule_names) {
    if (name == rule) return id;
  }
  int id = 0;
  if (absl::SimpleAtoi(rule, &id)) return id;
  return absl::NotFoundError(absl::StrCat("no rule named '", rule, "'"));
}

absl::StatusOr<crush::Weight> ToWeight(double w, const std::string& what) {
  if (!(w >= 0 && w < 65535)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be in [0, 65535), got ", w));
  }
  return static_cast<crush::Weight>(w * 65536.0);
}

absl::StatusOr<std::string> Run(const StrategiesOptions& o) {
  if (o.map.empty() == (o.nodes == 0)) {
    return absl::InvalidArgumentError("give exactly one of MAP or --nodes N");
  }
  const bool edits = o.add != 0 || !o.remove.empty() || !o.reweight.empty();
  if (!o.to.empty() && edits) {
    return absl::InvalidArgumentError("--to cannot be combined with --add/--remove/--reweight");
  }
  crush::MapModel before_model;
  if (o.nodes != 0) {
    CRUSH_ASSIGN_OR_RETURN(before_model, strategies::MakeFlatModel(o.nodes));
  } else {
    auto loaded = LoadMap(o.map);
    if (!loaded.ok()) {
      return absl::Status(loaded.status().code(),
                          absl::StrCat("cannot load ", o.map, ": ", loaded.status().message()));
    }
    before_model = *std::move(loaded);
  }
  CRUSH_ASSIGN_OR_RETURN(const int rule, ResolveRule(before_model, o.rule));
  const std::optional<std::string> domain =
      o.failure_domain.empty() ? std::nullopt : std::optional<std::string>(o.failure_domain);
  auto before_ptr = std::make_shared<const crush::MapModel>(before_model);
  CRUSH_ASSIGN_OR_RETURN(const Topology before,
                         strategies::TopologyFromModel(before_ptr, rule, domain));

  crush::MapModel after_model = before_model;
  if (!o.to.empty()) {
    auto loaded = LoadMap(o.to);
    if (!loaded.ok()) {
      return absl::Status(loaded.status().code(),
                          absl::StrCat("cannot load ", o.to, ": ", loaded.status().message()));
    }
    after_model = *std::move(loaded);
  }
  if (o.add != 0) {
    const double w = o.add_weight > 0
                         ? o.add_weight
                         : before.total_weight() / static_cast<double>(before.nodes.size());
    CRUSH_ASSIGN_OR_RETURN(const crush::Weight weight, ToWeight(w, "--add-weight"));
    std::optional<crush::ItemId> parent;
    if (!o.add_to.empty()) {
      for (const auto& [id, name] : after_model.item_names) {
        if (id < 0 && name == o.add_to) parent = id;
      }
      if (!parent.has_value()) {
        return absl::NotFoundError(absl::StrCat("--add-to: no bucket named '", o.add_to, "'"));
      }
    }
    CRUSH_RETURN_IF_ERROR(
        strategies::AddDevices(after_model, rule, o.add, weight, parent).status());
  }
  for (const std::string& name : o.remove) {
    CRUSH_ASSIGN_OR_RETURN(const crush::ItemId id, strategies::ResolveDevice(after_model, name));
    CRUSH_RETURN_IF_ERROR(strategies::RemoveDevice(after_model, id));
  }
  for (const auto& [name, w] : o.reweight) {
    CRUSH_ASSIGN_OR_RETURN(const crush::ItemId id, strategies::ResolveDevice(after_model, name));
    CRUSH_ASSIGN_OR_RETURN(const crush::Weight weight, ToWeight(w, "--reweight weight"));
    CRUSH_RETURN_IF_ERROR(strategies::ReweightDevice(after_model, id, weight));
  }
  CRUSH_ASSIGN_OR_RETURN(
      const Topology after,
      strategies::TopologyFromModel(std::make_shared<const crush::MapModel>(std::move(after_model)),
                                    rule, domain));

  strategies::CompareOptions co;
  co.keys = o.keys;
  co.strategy.replicas = o.replicas;
  co.strategy.vnodes = o.vnodes;
  co.strategy.maglev_size = o.maglev_size;
  co.strategy.partitions = o.partitions;
  co.strategy.seed = o.seed;
  if (!o.only.empty()) co.only = absl::StrSplit(o.only, ',', absl::SkipEmpty());
  CRUSH_ASSIGN_OR_RETURN(const strategies::ComparisonReport report,
                         strategies::CompareStrategies(before, after, co));
  return o.json ? strategies::FormatJson(report) : strategies::FormatTable(report);
}

int RunStrategies(const StrategiesOptions& o) {
  absl::StatusOr<std::string> text = Run(o);
  if (!text.ok()) {
    std::cerr << "crushkit strategies: error: " << text.status().message() << "\n";
    return 1;
  }
  if (o.output.empty()) {
    std::cout << *text;
    return 0;
  }
  if (absl::Status s = WriteFileAtomically(o.output, *text); !s.ok()) {
    std::cerr << "crushkit strategies: error: cannot write " << o.output << ": " << s.message()
              << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void AddStrategiesCommand(CLI::App& app) {
  auto o = std::make_shared<StrategiesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "strategies",
      "Compare CRUSH straw2 with mod-N, ring, jump, rendezvous, Maglev and fixed partitions on "
      "one cluster and one change: data moved, balance, failure-domain violations, lookup time, "
      "memory\n"
      "  example: crushkit strategies map.bin --add 4 --add-weight 7.3");
  cmd->footer(kHelpFooter);
  cmd->add_option("map", o->map, "crush map (binary or text)");
  cmd->add_option("--nodes", o->nodes, "use N equal devices instead of a map")
      ->check(CLI::Range(1, 50000));
  cmd->add_option("--rule", o->rule, "rule id or name (default: lowest rule id)");
  cmd->add_option("--failure-domain", o->failure_domain,
                  "type name replicas must not share (default: the rule's)");
  cmd->add_option("--add", o->add, "change: add N devices")->check(CLI::Range(1, 50000));
  cmd->add_option("--add-weight", o->add_weight,
                  "weight of added devices (default: mean device weight)");
  cmd->add_option("--add-to", o->add_to,
                  "bucket to add devices to (default: round-robin over buckets holding devices)");
  cmd->add_option("--remove", o->remove, "change: remove device NODE (osd.N, N or name)")
      ->take_all();
  cmd->add_option("--reweight", o->reweight, "change: set NODE's CRUSH weight to W")
      ->type_name("NODE W");
  cmd->add_option("--to", o->to, "change: the cluster after is this second map");
  cmd->add_option("--keys", o->keys, "keys to place (default 100000)");
  cmd->add_option("--replicas", o->replicas, "replicas per key (default 3)");
  cmd->add_option("--vnodes", o->vnodes, "ring: virtual nodes per mean-weight node (default 256)");
  cmd->add_option("--maglev-size", o->maglev_size, "Maglev table size, a prime (default 65537)");
  cmd->add_option("--partitions", o->partitions, "fixed partitions (default 4096)");
  cmd->add_option("--seed", o->seed, "hash seed for keys and node hashes (default 0)");
  cmd->add_option("--only", o->only, "comma-separated strategies to run (default all)");
  cmd->add_flag("--json", o->json, "print JSON instead of a table");
  cmd->add_option("-o,--output", o->output, "write the report to FILE (atomically)");
  cmd->callback([o] {
    if (const int rc = RunStrategies(*o); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
