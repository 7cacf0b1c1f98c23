#include "tests/testing/ceph_mapper.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

#include "crush/hash.h"
#include "crush/mapper.h"

namespace crush_testing {

namespace {

// Ceph's structs are opaque here; only pointers cross the boundary.
struct CephMap;
struct CephBucket;
struct CephRule;

}  // namespace

// Pacific 16.2's signatures (src/crush/builder.h, mapper.h).
struct CephMapper::Api {
  CephMap* (*create)();
  void (*finalize)(CephMap*);
  void (*destroy)(CephMap*);
  CephRule* (*make_rule)(int len, int ruleset, int type, int minsize, int maxsize);
  void (*rule_set_step)(CephRule*, int pos, int op, int arg1, int arg2);
  int (*add_rule)(CephMap*, CephRule*, int ruleno);
  CephBucket* (*make_bucket)(CephMap*, int alg, int hash, int type, int size, int* items,
                             int* weights);
  int (*add_bucket)(CephMap*, int bucketno, CephBucket*, int* idout);
  void (*init_workspace)(const CephMap*, void* work);
  int (*do_rule)(const CephMap*, int ruleno, int x, int* result, int result_max,
                 const std::uint32_t* weights, int weight_max, void* cwin, const void* choose_args);
};

std::string CephCommonLibraryPath() {
  const char* env = std::getenv("CRUSHKIT_CEPH_COMMON_LIB");
  if (env != nullptr && *env != '\0') return env;
  return "/usr/lib/x86_64-linux-gnu/ceph/libceph-common.so.2";
}

namespace {

// The library stays loaded for the life of the process: Ceph's static
// destructors run at exit as in any Ceph tool.
absl::StatusOr<void*> LibraryHandle() {
  static void* handle = nullptr;
  static std::string error;
  static const bool loaded = [] {
    // "self": Ceph's mapper is linked into this program (its symbols
    // exported), as bench/mapper_vs_ceph_static.sh builds it.
    const std::string path = CephCommonLibraryPath();
    handle = ::dlopen(path == "self" ? nullptr : path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) error = ::dlerror();
    return handle != nullptr;
  }();
  if (!loaded) return absl::NotFoundError(absl::StrCat("cannot load Ceph's mapper: ", error));
  return handle;
}

template <typename Fn>
absl::Status Resolve(void* handle, const char* name, Fn& fn) {
  void* sym = ::dlsym(handle, name);
  if (sym == nullptr) return absl::NotFoundError(absl::StrCat("no ", name, " in Ceph's library"));
  fn = reinterpret_cast<Fn>(sym);
  return absl::OkStatus();
}

absl::Status CheckExpressible(const crushkit::crush::MapModel& model) {
  using crushkit::crush::TunablesFor;
  using crushkit::crush::TunablesProfile;
  if (!(model.tunables == TunablesFor(TunablesProfile::kJewel))) {
    return absl::InvalidArgumentError("Ceph's crush_create() gives jewel tunables only");
  }
  if (!model.choose_args.empty()) return absl::InvalidArgumentError("choose_args not supported");
  for (const auto& rule : model.rules) {
    if (rule.type != crushkit::crush::RuleType::kReplicated &&
        rule.type != crushkit::crush::RuleType::kErasure) {
      return absl::InvalidArgumentError("Pacific's mapper has no MSR rules");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<CephMapper>> CephMapper::Load(
    const crushkit::crush::MapModel& model) {
  if (absl::Status s = CheckExpressible(model); !s.ok()) return s;
  absl::StatusOr<void*> handle = LibraryHandle();
  if (!handle.ok()) return handle.status();
  auto api = std::make_unique<Api>();
  for (absl::Status s : {Resolve(*handle, "crush_create", api->create),
                         Resolve(*handle, "crush_finalize", api->finalize),
                         Resolve(*handle, "crush_destroy", api->destroy),
                         Resolve(*handle, "crush_make_rule", api->make_rule),
                         Resolve(*handle, "crush_rule_set_step", api->rule_set_step),
                         Resolve(*handle, "crush_add_rule", api->add_rule),
                         Resolve(*handle, "crush_make_bucket", api->make_bucket),
                         Resolve(*handle, "crush_add_bucket", api->add_bucket),
                         Resolve(*handle, "crush_init_workspace", api->init_workspace),
                         Resolve(*handle, "crush_do_rule", api->do_rule)}) {
    if (!s.ok()) return s;
  }

  std::unique_ptr<CephMapper> mapper(new CephMapper());
  mapper->api_ = std::move(api);
  const Api& a = *mapper->api_;
  CephMap* map = a.create();
  mapper->map_ = map;
  // crush_work + one pointer per bucket slot (crush_add_bucket doubles the
  // slot array, so at most twice ours, at least 8) + per bucket its perm
  // state (two u32 and a pointer) and size u32s: finalize's working_size,
  // rounded up.
  std::size_t bytes = 64 + 8 * std::max<std::size_t>(8, 2 * model.buckets.size());
  for (const auto& b : model.buckets) {
    if (b.alg == crushkit::crush::BucketAlg::kNone) continue;
    std::vector<int> items(b.items.begin(), b.items.end());
    std::vector<int> weights(b.items.size());
    for (std::size_t i = 0; i < weights.size(); ++i) {
      weights[i] =
          static_cast<int>(b.alg == crushkit::crush::BucketAlg::kUniform ? b.uniform_item_weight
                                                                         : b.item_weights[i]);
    }
    CephBucket* bucket =
        a.make_bucket(map, static_cast<int>(b.alg), b.hash, b.type, static_cast<int>(items.size()),
                      items.data(), weights.data());
    int id = 0;
    if (bucket == nullptr || a.add_bucket(map, b.id, bucket, &id) != 0 || id != b.id) {
      return absl::InternalError(absl::StrCat("Ceph's builder refused bucket ", b.id));
    }
    bytes += 32 + 4 * b.items.size();
  }
  for (std::size_t r = 0; r < model.rules.size(); ++r) {
    if (!model.rule_exists[r]) continue;
    const auto& rule = model.rules[r];
    CephRule* ceph_rule = a.make_rule(static_cast<int>(rule.steps.size()), rule.ruleset,
                                      static_cast<int>(rule.type), rule.min_size, rule.max_size);
    for (std::size_t s = 0; s < rule.steps.size(); ++s) {
      const auto& step = rule.steps[s];
      a.rule_set_step(ceph_rule, static_cast<int>(s), static_cast<int>(step.op), step.arg1,
                      step.arg2);
    }
    if (a.add_rule(map, ceph_rule, static_cast<int>(r)) != static_cast<int>(r)) {
      return absl::InternalError(absl::StrCat("Ceph's builder refused rule ", r));
    }
  }
  a.finalize(map);
  mapper->work_words_ = (bytes + 7) / 8;
  return mapper;
}

CephMapper::~CephMapper() {
  if (map_ != nullptr) api_->destroy(static_cast<CephMap*>(map_));
}

CephWorkspace::CephWorkspace(const CephMapper& mapper, int result_max) {
  // crush_do_rule keeps three result_max-long int arrays after working_size.
  const std::size_t words =
      mapper.work_words_ + (3 * 4 * static_cast<std::size_t>(result_max) + 7) / 8;
  words_ = std::make_unique<std::uint64_t[]>(words);  // zeroed
  mapper.api_->init_workspace(static_cast<const CephMap*>(mapper.map_), words_.get());
}

int CephMapper::DoRule(int rule, int x, std::span<const std::uint32_t> weights, CephWorkspace& ws,
                       std::span<int> out) const {
  return api_->do_rule(static_cast<const CephMap*>(map_), rule, x, out.data(),
                       static_cast<int>(out.size()), weights.data(),
                       static_cast<int>(weights.size()), ws.words_.get(), nullptr);
}

int CountDifferencesFromCeph(const crushkit::crush::CrushMap& map, const CephMapper& ceph, int rule,
                             int result_max, std::span<const crushkit::crush::Weight> reweights,
                             int inputs, std::uint32_t seed,
                             std::vector<std::uint32_t>* first_differences) {
  constexpr std::size_t kReported = 3;
  crushkit::crush::Workspace ws(map, result_max);
  CephWorkspace ceph_ws(ceph, result_max);
  std::vector<crushkit::crush::ItemId> ours(static_cast<std::size_t>(result_max));
  std::vector<int> theirs(static_cast<std::size_t>(result_max));
  int differences = 0;
  std::uint32_t x = seed;
  for (int i = 0; i < inputs; ++i) {
    x = crushkit::crush::Hash32_1(x);
    const int n = crushkit::crush::DoRule(map, rule, x, reweights, ws, ours);
    const int m = ceph.DoRule(rule, static_cast<int>(x), reweights, ceph_ws, theirs);
    if (n == m && std::equal(ours.begin(), ours.begin() + n, theirs.begin())) continue;
    ++differences;
    if (first_differences != nullptr && first_differences->size() < kReported) {
      first_differences->push_back(x);
    }
  }
  return differences;
}

}  // namespace crush_testing
