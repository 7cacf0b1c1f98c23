// Ceph's own compiled CRUSH mapper, as an in-process oracle and benchmark
// baseline. ceph-base installs libceph-common.so.2, which exports the C API
// of Ceph's src/crush (builder.c, mapper.c, hash.c) as the daemons run it.
// This loads it with dlopen (nothing of Ceph is built or linked into the
// project), rebuilds a crushkit MapModel with Ceph's own builder calls and
// maps through Ceph's crush_do_rule.
//
// Only the functions' signatures are declared here (Pacific 16.2's
// builder.h / mapper.h); Ceph's structs stay opaque. Tunables come from
// crush_create(), which sets Ceph's optimal (jewel) profile, so the model
// must use jewel tunables.
// Thread-safety: a CephMapper is immutable after Load(); MapX() uses the
// caller's CephWorkspace, one per thread.
#ifndef CRUSHKIT_TESTS_TESTING_CEPH_MAPPER_H_
#define CRUSHKIT_TESTS_TESTING_CEPH_MAPPER_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/map.h"
#include "crush/model.h"
#include "crush/types.h"

namespace crush_testing {

// Where ceph-base puts the library; CRUSHKIT_CEPH_COMMON_LIB overrides it
// ("self": the running program, linked with Ceph's crush sources and
// exporting their symbols).
std::string CephCommonLibraryPath();

class CephMapper;

// Scratch memory for Ceph's crush_do_rule (its `cwin`), sized for one map.
class CephWorkspace {
 public:
  CephWorkspace(const CephMapper& mapper, int result_max);

 private:
  friend class CephMapper;
  std::unique_ptr<std::uint64_t[]> words_;
};

class CephMapper {
 public:
  // Loads Ceph's library and builds `model` with crush_create /
  // crush_make_bucket / crush_add_bucket / crush_make_rule / crush_add_rule /
  // crush_finalize. kNotFound if the library is not installed;
  // kInvalidArgument for models Ceph's builder cannot express here
  // (non-jewel tunables, choose_args, MSR rules).
  static absl::StatusOr<std::unique_ptr<CephMapper>> Load(const crushkit::crush::MapModel& model);

  ~CephMapper();
  CephMapper(const CephMapper&) = delete;
  CephMapper& operator=(const CephMapper&) = delete;

  // Ceph's crush_do_rule(map, rule, x, out, out.size(), weights, ...,
  // ws, NULL); returns the result length.
  int DoRule(int rule, int x, std::span<const std::uint32_t> weights, CephWorkspace& ws,
             std::span<int> out) const;

 private:
  friend class CephWorkspace;
  struct Api;
  CephMapper() = default;

  std::unique_ptr<Api> api_;
  void* map_ = nullptr;         // Ceph's struct crush_map *
  std::size_t work_words_ = 0;  // an upper bound of map->working_size, in words
};

// Maps `inputs` x values (x = Hash32_1 of the previous one, starting from
// `seed`) through `rule` on crushkit's DoRule and on `ceph`, built from
// `map`'s model. Returns how many results differ; the first few differing
// x go to *first_differences if given.
int CountDifferencesFromCeph(const crushkit::crush::CrushMap& map, const CephMapper& ceph, int rule,
                             int result_max, std::span<const crushkit::crush::Weight> reweights,
                             int inputs, std::uint32_t seed,
                             std::vector<std::uint32_t>* first_differences = nullptr);

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_CEPH_MAPPER_H_
