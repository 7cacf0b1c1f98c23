// Invariants every DoRule() result must satisfy on any valid CrushMap,
// shared by the decode and mapper fuzz targets.
#ifndef CRUSHKIT_TESTS_FUZZ_MAP_INVARIANTS_H_
#define CRUSHKIT_TESTS_FUZZ_MAP_INVARIANTS_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"
#include "tests/fuzz/fuzz_check.h"

namespace crushkit::fuzz {

// Maps `x` through `rule` with a small result span and checks that:
//   - the count is within [0, min(out.size(), max_result)];
//   - every item is kItemNone, a device below max_devices (Ceph never emits
//     devices outside that range: crush_choose_* rejects them as bad items
//     and TAKE ignores them), or an existing bucket;
//   - nothing past the returned count was written;
//   - the same call with the same workspace, and with a fresh workspace,
//     gives the same result (no state leaks between calls).
// Returns the result.
inline std::vector<crush::ItemId> MapAndCheck(const crush::CrushMap& map, int rule, std::uint32_t x,
                                              std::span<const crush::Weight> reweights,
                                              int max_result, std::size_t out_size,
                                              crush::ChooseArgsRef choose_args,
                                              std::uint64_t budget) {
  constexpr crush::ItemId kCanary = -0x7fff0000;
  crush::Workspace ws(map, max_result);
  ws.set_budget(budget);
  std::vector<crush::ItemId> out(out_size, kCanary);
  const int n = crush::DoRule(map, rule, x, reweights, ws, out, choose_args);
  const std::string where = "rule " + std::to_string(rule) + " x " + std::to_string(x);
  FUZZ_CHECK(n >= 0, where);
  FUZZ_CHECK(static_cast<std::size_t>(n) <= out_size, where);
  FUZZ_CHECK(n <= std::max(max_result, 0), where);
  for (int i = 0; i < n; ++i) {
    const crush::ItemId item = out[static_cast<std::size_t>(i)];
    const bool ok = item == crush::kItemNone || (item >= 0 && item < map.max_devices()) ||
                    map.BucketExists(item);
    FUZZ_CHECK(ok, where + ": item " + std::to_string(item) + " at " + std::to_string(i));
  }
  for (std::size_t i = static_cast<std::size_t>(n); i < out_size; ++i) {
    FUZZ_CHECK(out[i] == kCanary, where + ": wrote past the returned count");
  }
  out.resize(static_cast<std::size_t>(n));

  if (!ws.budget_exhausted()) {
    std::vector<crush::ItemId> again(out_size, kCanary);
    const int n2 = crush::DoRule(map, rule, x, reweights, ws, again, choose_args);
    again.resize(static_cast<std::size_t>(std::max(n2, 0)));
    FUZZ_CHECK(again == out, where + ": reused workspace changed the result");
  }
  return out;
}

}  // namespace crushkit::fuzz

#endif  // CRUSHKIT_TESTS_FUZZ_MAP_INVARIANTS_H_
