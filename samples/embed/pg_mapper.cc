// A storage-daemon-style use of crushkit's embeddable CRUSH library, built
// against the installed package only (find_package(crushkit), crushkit::crush).
//
// What a daemon does with CRUSH, in miniature:
//   1. read the binary crush map it was sent (as `ceph osd getcrushmap` or
//      `crushtool -c` writes it) and validate it once: DecodeCrushMap() +
//      CrushMap::Build() give an immutable CrushMap, shared by every thread;
//   2. give each worker thread its own Workspace (the only mutable state);
//   3. map placement groups: pg -> pps (Ceph's hashpspool seed) -> DoRule(),
//      with no allocation, lock or error path per call.
// It then checks that the threaded run equals a single-threaded one and
// prints a few mappings. With --crushtool-mappings MAX_X it instead prints
// raw mappings for x = 0..MAX_X in `crushtool --test --show-mappings` form,
// so a script can diff them against Ceph's crushtool.
//
// Exit status: 0 ok, 1 threaded and single-threaded results differ,
// 2 bad arguments or an unreadable/invalid map.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "crush/types.h"
#include "sample_util.h"

namespace {

namespace crush = crushkit::crush;
using crush_sample::PgToPps;

struct Options {
  std::string map_path;
  std::optional<int> rule;
  int size = 3;
  std::int64_t pool = 1;
  std::uint32_t pgs = 4096;
  int threads = 4;
  int show = 8;
  std::optional<std::uint32_t> crushtool_max_x;
};

constexpr std::string_view kUsage =
    "usage: crush_pg_mapper MAP [--rule N] [--size N] [--pool N] [--pgs N] [--threads N]\n"
    "                           [--show N] [--crushtool-mappings MAX_X]\n"
    "  MAP                 binary crush map (crushtool -c / ceph osd getcrushmap)\n"
    "  --rule N            rule id (default: the first rule of the map)\n"
    "  --size N            replicas / EC shards per PG (default 3)\n"
    "  --pool N            pool id: hash seed and choose_args index (default 1)\n"
    "  --pgs N             pg_num = pgp_num (default 4096)\n"
    "  --threads N         worker threads, one Workspace each (default 4)\n"
    "  --show N            mappings to print (default 8)\n"
    "  --crushtool-mappings MAX_X\n"
    "                      print 'CRUSH rule R x X [..]' for x = 0..MAX_X, as\n"
    "                      crushtool --test --show-mappings --num-rep SIZE does\n";

bool ParseArgs(int argc, char** argv, Options& opt, std::string& error) {
  const crush_sample::IntFlag flags[] = {
      {"--rule", 0, 0x7ffffffe, [&](std::int64_t v) { opt.rule = static_cast<int>(v); }},
      {"--size", 1, 255, [&](std::int64_t v) { opt.size = static_cast<int>(v); }},
      {"--pool", 0, 0x7fffffff, [&](std::int64_t v) { opt.pool = v; }},
      {"--pgs", 1, 1 << 24, [&](std::int64_t v) { opt.pgs = static_cast<std::uint32_t>(v); }},
      {"--threads", 1, 256, [&](std::int64_t v) { opt.threads = static_cast<int>(v); }},
      {"--show", 0, 1 << 24, [&](std::int64_t v) { opt.show = static_cast<int>(v); }},
      {"--crushtool-mappings", 0, (1 << 24) - 1,
       [&](std::int64_t v) { opt.crushtool_max_x = static_cast<std::uint32_t>(v); }},
  };
  return crush_sample::ParseMapArgs(argc, argv, flags, opt.map_path, error);
}

std::string Format(const crush::ItemId* v, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) {
    if (i > 0) s += ",";
    s += v[i] == crush::kItemNone ? std::string("NONE") : std::to_string(v[i]);
  }
  return s + "]";
}

// Results of mapping PGs [begin, end): `size` slots per PG plus its length.
struct Placements {
  int size = 0;
  std::vector<crush::ItemId> items;
  std::vector<int> lengths;

  Placements(std::uint32_t pgs, int s)
      : size(s),
        items(static_cast<std::size_t>(pgs) * static_cast<std::size_t>(s), -1),
        lengths(pgs, 0) {}
};

// One worker: maps PGs [begin, end) with its own Workspace into `out`
// (disjoint ranges, so no synchronisation is needed).
void MapRange(const crush::CrushMap& map, int rule, std::int64_t pool, std::uint32_t pgs,
              std::uint32_t pgp_mask, std::span<const crush::Weight> reweights,
              crush::ChooseArgsRef choose_args, std::uint32_t begin, std::uint32_t end,
              Placements& out) {
  crush::Workspace ws(map, out.size);  // per thread; allocation happens here only
  for (std::uint32_t ps = begin; ps < end; ++ps) {
    const std::span<crush::ItemId> slots(
        out.items.data() + static_cast<std::size_t>(ps) * static_cast<std::size_t>(out.size),
        static_cast<std::size_t>(out.size));
    out.lengths[ps] = crush::DoRule(map, rule, PgToPps(ps, pgs, pgp_mask, pool), reweights, ws,
                                    slots, choose_args);
  }
}

int Run(const Options& opt) {
  absl::StatusOr<crush::CrushMap> built = crush_sample::LoadCrushMap(opt.map_path);
  if (!built.ok()) {
    std::cerr << "crush_pg_mapper: " << built.status().message() << "\n";
    return 2;
  }
  // Validated once; from here on the map is immutable and shared.
  const auto map = std::make_shared<const crush::CrushMap>(*std::move(built));

  const int rule = opt.rule ? *opt.rule : crush_sample::FirstRule(*map);
  if (!map->RuleExists(rule)) {
    std::cerr << "crush_pg_mapper: " << opt.map_path << ": no rule "
              << (opt.rule ? std::to_string(*opt.rule) : std::string("at all")) << "\n";
    return 2;
  }

  // Every device "in" (OSDMap's osd_weight 0x10000).
  const std::vector<crush::Weight> reweights(static_cast<std::size_t>(map->max_devices()),
                                             crush::kWeightOne);

  if (opt.crushtool_max_x) {
    // crushtool --test asks for choose_args 0 (falling back to the compat set).
    const crush::ChooseArgsRef args = map->ResolveChooseArgs(0);
    crush::Workspace ws(*map, opt.size);
    std::vector<crush::ItemId> out(static_cast<std::size_t>(opt.size));
    std::string text;
    for (std::uint32_t x = 0; x <= *opt.crushtool_max_x; ++x) {
      const int n = crush::DoRule(*map, rule, x, reweights, ws, out, args);
      text += "CRUSH rule " + std::to_string(rule) + " x " + std::to_string(x) + " [";
      for (int i = 0; i < n; ++i) {
        if (i > 0) text += ",";
        text += std::to_string(out[static_cast<std::size_t>(i)]);
      }
      text += "]\n";
    }
    std::cout << text;
    return 0;
  }

  const std::uint32_t pgp_mask = crush_sample::PgpNumMask(opt.pgs);
  // OSDMap selects choose_args by pool id (falling back to the compat set).
  const crush::ChooseArgsRef args = map->ResolveChooseArgs(opt.pool);

  Placements single(opt.pgs, opt.size);
  MapRange(*map, rule, opt.pool, opt.pgs, pgp_mask, reweights, args, 0, opt.pgs, single);

  Placements threaded(opt.pgs, opt.size);
  {
    std::vector<std::thread> workers;
    const auto n = static_cast<std::uint32_t>(opt.threads);
    for (std::uint32_t t = 0; t < n; ++t) {
      const std::uint32_t begin = static_cast<std::uint32_t>(std::uint64_t{opt.pgs} * t / n);
      const std::uint32_t end = static_cast<std::uint32_t>(std::uint64_t{opt.pgs} * (t + 1) / n);
      workers.emplace_back([&, begin, end] {
        MapRange(*map, rule, opt.pool, opt.pgs, pgp_mask, reweights, args, begin, end, threaded);
      });
    }
    for (std::thread& w : workers) w.join();
  }

  const auto name_it = map->model().rule_names.find(rule);
  const std::string name = name_it == map->model().rule_names.end() ? "" : name_it->second;
  std::cout << "map " << opt.map_path << ": " << map->max_devices() << " devices, rule " << rule
            << " '" << name << "', size " << opt.size << ", pool " << opt.pool << ", " << opt.pgs
            << " pgs\n";
  std::uint64_t short_pgs = 0;
  for (std::uint32_t ps = 0; ps < opt.pgs; ++ps) {
    if (single.lengths[ps] < opt.size) ++short_pgs;
    if (static_cast<int>(ps) < opt.show) {
      std::ostringstream pg;
      pg << opt.pool << "." << std::hex << ps;
      std::cout << "pg " << pg.str() << " -> "
                << Format(single.items.data() +
                              static_cast<std::size_t>(ps) * static_cast<std::size_t>(opt.size),
                          single.lengths[ps])
                << "\n";
    }
  }
  if (short_pgs > 0) std::cout << short_pgs << " pgs got fewer than " << opt.size << " items\n";

  std::uint32_t differing = 0;
  for (std::uint32_t ps = 0; ps < opt.pgs; ++ps) {
    const auto at = static_cast<std::size_t>(ps) * static_cast<std::size_t>(opt.size);
    if (single.lengths[ps] != threaded.lengths[ps] ||
        !std::equal(single.items.begin() + static_cast<std::ptrdiff_t>(at),
                    single.items.begin() + static_cast<std::ptrdiff_t>(at) + opt.size,
                    threaded.items.begin() + static_cast<std::ptrdiff_t>(at))) {
      if (differing < 5) {
        std::cerr << "crush_pg_mapper: pg " << opt.pool << "." << std::hex << ps << std::dec
                  << " differs between the single-threaded and the threaded run\n";
      }
      ++differing;
    }
  }
  if (differing > 0) {
    std::cerr << "crush_pg_mapper: FAILED: " << differing << " of " << opt.pgs
              << " pgs differ with " << opt.threads << " threads\n";
    return 1;
  }
  std::cout << "ok: " << opt.threads << " threads (one Workspace each) agree with the "
            << "single-threaded run on all " << opt.pgs << " pgs\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::string error;
  if (!ParseArgs(argc, argv, opt, error)) {
    if (error.empty()) {  // --help
      std::cout << kUsage;
      return 0;
    }
    std::cerr << "crush_pg_mapper: " << error << "\n" << kUsage;
    return 2;
  }
  return Run(opt);
}
