#include "tools/crushtool/tunable_edits.h"

#include <cstdint>

namespace crushkit::tools::crushtool {

bool ApplyTunableEdits(const CrushtoolOptions& o, crush::MapModel& model) {
  crush::Tunables& t = model.tunables;
  bool modified = false;
  // The u32 tunables take the int as is; the u8 ones (vary_r, stable,
  // straw_calc_version) are plain narrowing assignments in CrushWrapper.
  auto set32 = [&modified](int value, std::uint32_t& field) {
    if (value < 0) return;
    field = static_cast<std::uint32_t>(value);
    modified = true;
  };
  auto set8 = [&modified](int value, std::uint8_t& field) {
    if (value < 0) return;
    field = static_cast<std::uint8_t>(value & 0xff);
    modified = true;
  };
  set32(o.choose_local_tries, t.choose_local_tries);
  set32(o.choose_local_fallback_tries, t.choose_local_fallback_tries);
  set32(o.choose_total_tries, t.choose_total_tries);
  set32(o.chooseleaf_descend_once, t.chooseleaf_descend_once);
  set8(o.chooseleaf_vary_r, t.chooseleaf_vary_r);
  set8(o.chooseleaf_stable, t.chooseleaf_stable);
  set8(o.straw_calc_version, t.straw_calc_version);
  set32(o.allowed_bucket_algs, t.allowed_bucket_algs);
  return modified;
}

}  // namespace crushkit::tools::crushtool
