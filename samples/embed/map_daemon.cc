// A storage daemon's placement loop with map hot-swap, built against the
// installed package only (find_package(crushkit), crushkit::crush).
//
// N reader threads map PGs for as long as the daemon runs, each with its own
// Workspace, while a control thread publishes new map versions (epochs) as a
// monitor would send them: each epoch halves the CRUSH weight of one more
// OSD of the pool (AdjustItemWeight, crush/edit/edit.h: the edit `ceph osd crush
// reweight` makes), so PGs really move between epochs.
//
// Epoch semantics: a reader takes the current version at the start of a
// batch of PGs and maps the whole batch on it, even if a newer version is
// published meanwhile (VersionSlot says why a mutex-guarded shared_ptr); a version is freed when
// the last reader holding it lets go. Every answer is checked against a single-threaded reference
// that the control thread computed for that epoch before publishing it, so a reader that mixed
// maps, or used a freed one, shows up as a mismatch (and ThreadSanitizer, in CI, reports any data
// race).
//
// Prints throughput, the answers served per epoch and the PGs each epoch
// moved. Exit status: 0 ok, 1 a mismatch (or an epoch that moved nothing, or
// a version that was never freed), 2 bad arguments or an unreadable/invalid
// map.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/edit/edit.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "crush/types.h"
#include "sample_util.h"

namespace {

namespace crush = crushkit::crush;

struct Options {
  std::string map_path;
  std::optional<int> rule;
  int size = 3;
  std::int64_t pool = 1;
  std::uint32_t pgs = 4096;
  int threads = 4;
  int epochs = 8;
  std::uint32_t batch = 64;
};

constexpr std::string_view kUsage =
    "usage: crush_map_daemon MAP [--rule N] [--size N] [--pool N] [--pgs N] [--threads N]\n"
    "                            [--epochs N] [--batch N]\n"
    "  MAP          binary crush map (crushtool -c / ceph osd getcrushmap)\n"
    "  --rule N     rule id (default: the first rule of the map)\n"
    "  --size N     replicas / EC shards per PG (default 3)\n"
    "  --pool N     pool id: hash seed and choose_args index (default 1)\n"
    "  --pgs N      pg_num = pgp_num (default 4096)\n"
    "  --threads N  reader threads, one Workspace each (default 4)\n"
    "  --epochs N   map versions published after the first (default 8)\n"
    "  --batch N    PGs a reader maps on one version before looking for a newer one\n"
    "               (default 64)\n";

bool ParseArgs(int argc, char** argv, Options& opt, std::string& error) {
  const crush_sample::IntFlag flags[] = {
      {"--rule", 0, 0x7ffffffe, [&](std::int64_t v) { opt.rule = static_cast<int>(v); }},
      {"--size", 1, 255, [&](std::int64_t v) { opt.size = static_cast<int>(v); }},
      {"--pool", 0, 0x7fffffff, [&](std::int64_t v) { opt.pool = v; }},
      {"--pgs", 1, 1 << 20, [&](std::int64_t v) { opt.pgs = static_cast<std::uint32_t>(v); }},
      {"--threads", 1, 256, [&](std::int64_t v) { opt.threads = static_cast<int>(v); }},
      {"--epochs", 1, 1000, [&](std::int64_t v) { opt.epochs = static_cast<int>(v); }},
      {"--batch", 1, 1 << 20, [&](std::int64_t v) { opt.batch = static_cast<std::uint32_t>(v); }},
  };
  return crush_sample::ParseMapArgs(argc, argv, flags, opt.map_path, error);
}

// Versions alive right now: incremented when one is published, decremented
// by its destructor, which runs in whichever thread drops the last reference.
std::atomic<int> g_live_versions{0};

// One published map version: the validated map, what a reader needs to map
// on it, and the single-threaded reference answers for every PG.
struct MapVersion {
  int epoch = 0;
  crush::CrushMap map;
  crush::ChooseArgsRef choose_args;
  std::vector<crush::ItemId> expected;  // opt.size slots per PG
  std::vector<int> expected_length;
  // Answers readers served on this version (one relaxed add per batch).
  mutable std::atomic<std::uint64_t> served{0};

  MapVersion(int e, crush::CrushMap m) : epoch(e), map(std::move(m)) { ++g_live_versions; }

  MapVersion(const MapVersion&) = delete;
  MapVersion& operator=(const MapVersion&) = delete;

  ~MapVersion() { --g_live_versions; }
};

// Every OSD "in" (OSDMap's osd_weight 0x10000); shared, never written.
struct Pool {
  int rule = 0;
  int size = 3;
  std::int64_t id = 1;
  std::uint32_t pgs = 0;
  std::uint32_t pgp_mask = 0;
  std::vector<crush::Weight> reweights;
};

int MapPg(const crush::CrushMap& map, crush::ChooseArgsRef args, const Pool& pool, std::uint32_t ps,
          crush::Workspace& ws, std::span<crush::ItemId> out) {
  return crush::DoRule(map, pool.rule, crush_sample::PgToPps(ps, pool.pgs, pool.pgp_mask, pool.id),
                       pool.reweights, ws, out, args);
}

// Builds version `epoch` from `model`: validates it, then maps every PG once
// on this thread as the reference readers are checked against.
absl::StatusOr<std::shared_ptr<const MapVersion>> MakeVersion(int epoch,
                                                              const crush::MapModel& model,
                                                              const Pool& pool) {
  absl::StatusOr<crush::CrushMap> built = crush::CrushMap::Build(model);
  if (!built.ok()) return built.status();
  auto version = std::make_shared<MapVersion>(epoch, *std::move(built));
  version->choose_args = version->map.ResolveChooseArgs(pool.id);
  const auto size = static_cast<std::size_t>(pool.size);
  version->expected.assign(pool.pgs * size, crush::kItemNone);
  version->expected_length.assign(pool.pgs, 0);
  crush::Workspace ws(version->map, pool.size);
  for (std::uint32_t ps = 0; ps < pool.pgs; ++ps) {
    version->expected_length[ps] =
        MapPg(version->map, version->choose_args, pool, ps, ws,
              std::span<crush::ItemId>(version->expected).subspan(ps * size, size));
  }
  return std::shared_ptr<const MapVersion>(std::move(version));
}

// The first weight device `osd` has in a bucket, or nullopt if it is in none.
std::optional<crush::Weight> DeviceWeight(const crush::MapModel& model, crush::ItemId osd) {
  for (const crush::Bucket& b : model.buckets) {
    const auto it = std::find(b.items.begin(), b.items.end(), osd);
    if (it == b.items.end()) continue;
    if (b.item_weights.empty()) return b.uniform_item_weight;
    return b.item_weights[static_cast<std::size_t>(it - b.items.begin())];
  }
  return std::nullopt;
}

// The OSD the next epoch reweights: the first OSD of PG `ps` in `version`,
// so the change touches the pool (an OSD of another device class would move
// nothing). kItemNone if that PG mapped to nothing.
crush::ItemId OsdOfPg(const MapVersion& version, std::uint32_t ps, int size) {
  const auto at = static_cast<std::size_t>(ps) * static_cast<std::size_t>(size);
  for (int i = 0; i < version.expected_length[ps]; ++i) {
    const crush::ItemId osd = version.expected[at + static_cast<std::size_t>(i)];
    if (osd != crush::kItemNone) return osd;
  }
  return crush::kItemNone;
}

// The next epoch's map: `osd`'s CRUSH weight halved (`ceph osd crush
// reweight`), in every bucket holding it, ancestors' weights updated.
absl::Status HalveOsdWeight(crush::MapModel& model, crush::ItemId osd) {
  const std::optional<crush::Weight> w = DeviceWeight(model, osd);
  if (!w) return absl::NotFoundError("osd." + std::to_string(osd) + " is in no bucket");
  absl::StatusOr<int> changed = crush::AdjustItemWeight(model, osd, *w / 2);
  return changed.ok() ? absl::OkStatus() : changed.status();
}

// What one reader saw; merged after the threads join (no sharing while running).
struct ReaderTally {
  std::vector<std::uint64_t> per_epoch;
  std::uint64_t mismatches = 0;
  std::uint64_t answers = 0;
};

// The publication point: readers Load() the current version at the start of
// a batch, the control thread Store()s new ones; the shared_ptr reference
// count frees a version when its last holder drops it.
//
// Why a mutex around a shared_ptr rather than an RCU/epoch scheme: it is the
// simplest design that is obviously correct (no grace periods, no per-reader
// registration, no deferred free list) and its cost, one uncontended lock
// and a reference-count update per Load(), is paid once per batch of PGs, not
// per PG, where DoRule's microsecond dominates. C++20's
// std::atomic<std::shared_ptr> says the same thing with no visible lock, but
// libstdc++ 12 implements it with a lock bit that ThreadSanitizer does not
// understand (it reports a race between load() and store()), and the lock
// it hides is no faster. A daemon mapping single PGs at tens of millions per
// second per core would want hazard pointers or RCU instead.
class VersionSlot {
 public:
  explicit VersionSlot(std::shared_ptr<const MapVersion> v) : version_(std::move(v)) {}

  std::shared_ptr<const MapVersion> Load() const {
    const std::lock_guard<std::mutex> lock(mu_);
    return version_;
  }

  // Publishes `v`. The previous version is released after the lock is
  // dropped, so freeing it (if no reader holds it) never blocks readers.
  void Store(std::shared_ptr<const MapVersion> v) {
    {
      const std::lock_guard<std::mutex> lock(mu_);
      version_.swap(v);
    }
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const MapVersion> version_;
};

void Reader(const VersionSlot& current, const std::atomic<bool>& stop, const Pool& pool,
            std::uint32_t first_pg, std::uint32_t batch, ReaderTally& tally) {
  const auto size = static_cast<std::size_t>(pool.size);
  std::vector<crush::ItemId> out(size);
  std::shared_ptr<const MapVersion> version;
  std::optional<crush::Workspace> ws;  // belongs to `version`'s map
  std::uint32_t ps = first_pg % pool.pgs;
  while (!stop.load(std::memory_order_acquire)) {
    std::shared_ptr<const MapVersion> latest = current.Load();
    if (latest != version) {
      ws.emplace(latest->map, pool.size);  // a Workspace is made for one map
      version = std::move(latest);         // the previous version may be freed right here
    }
    for (std::uint32_t i = 0; i < batch; ++i, ps = ps + 1 == pool.pgs ? 0 : ps + 1) {
      const int n = MapPg(version->map, version->choose_args, pool, ps, *ws, out);
      const auto expected = std::span(version->expected).subspan(ps * size, size);
      if (n != version->expected_length[ps] ||
          !std::equal(out.begin(), out.begin() + n, expected.begin())) {
        if (tally.mismatches++ < 5) {
          std::cerr << "crush_map_daemon: pg " << pool.id << "." << std::hex << ps << std::dec
                    << " on epoch " << version->epoch << " differs from the reference\n";
        }
      }
    }
    version->served.fetch_add(batch, std::memory_order_relaxed);
    tally.per_epoch[static_cast<std::size_t>(version->epoch)] += batch;
    tally.answers += batch;
  }
}

// PGs whose placement differs between two versions' references.
std::uint32_t MovedPgs(const MapVersion& a, const MapVersion& b) {
  std::uint32_t moved = 0;
  const std::size_t size = a.expected.size() / a.expected_length.size();
  for (std::size_t ps = 0; ps < a.expected_length.size(); ++ps) {
    if (a.expected_length[ps] != b.expected_length[ps] ||
        !std::equal(a.expected.begin() + static_cast<std::ptrdiff_t>(ps * size),
                    a.expected.begin() + static_cast<std::ptrdiff_t>((ps + 1) * size),
                    b.expected.begin() + static_cast<std::ptrdiff_t>(ps * size))) {
      ++moved;
    }
  }
  return moved;
}

int Run(const Options& opt) {
  absl::StatusOr<crush::CrushMap> initial = crush_sample::LoadCrushMap(opt.map_path);
  if (!initial.ok()) {
    std::cerr << "crush_map_daemon: " << initial.status().message() << "\n";
    return 2;
  }
  Pool pool;
  pool.rule = opt.rule ? *opt.rule : crush_sample::FirstRule(*initial);
  if (!initial->RuleExists(pool.rule)) {
    std::cerr << "crush_map_daemon: " << opt.map_path << ": no rule "
              << (opt.rule ? std::to_string(*opt.rule) : std::string("at all")) << "\n";
    return 2;
  }
  pool.size = opt.size;
  pool.id = opt.pool;
  pool.pgs = opt.pgs;
  pool.pgp_mask = crush_sample::PgpNumMask(opt.pgs);
  pool.reweights.assign(static_cast<std::size_t>(initial->max_devices()), crush::kWeightOne);

  crush::MapModel model = initial->model();
  absl::StatusOr<std::shared_ptr<const MapVersion>> first = MakeVersion(0, model, pool);
  if (!first.ok()) {
    std::cerr << "crush_map_daemon: " << first.status().message() << "\n";
    return 2;
  }
  std::cout << "map " << opt.map_path << ": " << initial->max_devices() << " devices, rule "
            << pool.rule << ", size " << pool.size << ", pool " << pool.id << ", " << pool.pgs
            << " pgs; " << opt.threads << " readers, " << opt.epochs << " new epochs\n";

  VersionSlot current(*first);
  std::atomic<bool> stop{false};
  std::vector<ReaderTally> tallies(static_cast<std::size_t>(opt.threads));
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> readers;
  for (int t = 0; t < opt.threads; ++t) {
    ReaderTally& tally = tallies[static_cast<std::size_t>(t)];
    tally.per_epoch.assign(static_cast<std::size_t>(opt.epochs) + 1, 0);
    const auto first_pg =
        static_cast<std::uint32_t>(std::uint64_t{opt.pgs} * static_cast<std::uint64_t>(t) /
                                   static_cast<std::uint64_t>(opt.threads));
    readers.emplace_back(Reader, std::cref(current), std::cref(stop), std::cref(pool), first_pg,
                         opt.batch, std::ref(tally));
  }

  // Control thread (this one): let readers serve each version for about one
  // pass over the pool, then publish the next. Waiting on answers served
  // rather than on a clock keeps every epoch busy under ThreadSanitizer's
  // slowdown as well.
  int status = 0;
  std::vector<std::uint32_t> moved(static_cast<std::size_t>(opt.epochs) + 1, 0);
  std::shared_ptr<const MapVersion> previous = *first;
  first->reset();  // `current` and `previous` own version 0 now
  for (int epoch = 1; epoch <= opt.epochs && status == 0; ++epoch) {
    const crush::ItemId osd =
        OsdOfPg(*previous, static_cast<std::uint32_t>(epoch) % pool.pgs, pool.size);
    const absl::Status edited = osd == crush::kItemNone
                                    ? absl::FailedPreconditionError("no osd to reweight")
                                    : HalveOsdWeight(model, osd);
    if (!edited.ok()) {
      std::cerr << "crush_map_daemon: epoch " << epoch << ": " << edited.message() << "\n";
      status = 2;
      break;
    }
    absl::StatusOr<std::shared_ptr<const MapVersion>> next = MakeVersion(epoch, model, pool);
    if (!next.ok()) {
      std::cerr << "crush_map_daemon: epoch " << epoch << ": " << next.status().message() << "\n";
      status = 2;
      break;
    }
    while (previous->served.load(std::memory_order_relaxed) < pool.pgs) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    moved[static_cast<std::size_t>(epoch)] = MovedPgs(*previous, **next);
    current.Store(*next);
    previous = *std::move(next);  // drops the control thread's hold on the old version
  }
  while (status == 0 && previous->served.load(std::memory_order_relaxed) < pool.pgs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  stop.store(true, std::memory_order_release);
  for (std::thread& r : readers) r.join();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  previous.reset();
  if (status != 0) return status;

  ReaderTally total;
  total.per_epoch.assign(static_cast<std::size_t>(opt.epochs) + 1, 0);
  for (const ReaderTally& t : tallies) {
    for (std::size_t e = 0; e < t.per_epoch.size(); ++e) total.per_epoch[e] += t.per_epoch[e];
    total.mismatches += t.mismatches;
    total.answers += t.answers;
  }
  std::cout << "epoch  answers  pgs moved vs previous epoch\n";
  for (std::size_t e = 0; e < total.per_epoch.size(); ++e) {
    std::cout << "  " << e << "  " << total.per_epoch[e] << "  "
              << (e == 0 ? std::string("-") : std::to_string(moved[e])) << "\n";
    if (e > 0 && moved[e] == 0) {
      std::cerr << "crush_map_daemon: FAILED: epoch " << e << " moved no pg\n";
      status = 1;
    }
  }
  std::cout << total.answers << " answers in " << elapsed.count()
            << " s: " << static_cast<double>(total.answers) / elapsed.count() / 1e6
            << " M pg mappings/s on " << opt.threads << " readers\n";
  // Only the version still published may be alive: every older one must
  // have been freed by the last reader that left it.
  const int live = g_live_versions.load();
  if (live != 1) {
    std::cerr << "crush_map_daemon: FAILED: " << live << " map versions alive, expected 1\n";
    status = 1;
  }
  if (total.mismatches > 0) {
    std::cerr << "crush_map_daemon: FAILED: " << total.mismatches
              << " answers differ from their epoch's reference\n";
    status = 1;
  }
  if (status == 0) {
    std::cout << "ok: every answer matched its epoch's single-threaded reference; "
              << "old versions freed\n";
  }
  return status;
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
    std::cerr << "crush_map_daemon: " << error << "\n" << kUsage;
    return 2;
  }
  return Run(opt);
}
