// osdmaptool's actions on one cluster state, in the order of Ceph's osdmaptool
// main() (src/tools/osdmaptool.cc).
// Long because: one Runner runs every action on one state in Ceph's fixed
// order; the actions share its lazily built mapping, the options and the
// output, and each is a member function of a few dozen lines.
#include "tools/osdmaptool/actions.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "crush/ceph_release.h"
#include "crush/codec.h"
#include "crush/edit/edit.h"
#include "crush/map.h"
#include "crush/util/text_format.h"
#include "osdmap/balancer/read_balancer.h"
#include "osdmap/balancer/upmap_balancer.h"
#include "osdmap/changes/upmap_cleanup.h"
#include "osdmap/formats/osd_tree.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping.h"
#include "tools/common/file_io.h"
#include "tools/crushtool/ceph_formatter.h"

namespace crushkit::tools::osdmaptool {
namespace {

using osdmap::ClusterState;
using osdmap::CrushItemWeight;
using osdmap::CrushPlacement;
using osdmap::FormatOsdList;
using osdmap::kMaxPgOsds;
using osdmap::kOsdExists;
using osdmap::kOsdUp;
using osdmap::OsdList;
using osdmap::PgId;
using osdmap::PgMapper;
using osdmap::PgMapping;
using osdmap::Pool;

using util::FormatCephDouble;
using util::FormatCephFloat;

// osdmaptool's `--tree FORMAT` for the formats other than json: the tree in
// a "tree" section, the formatter's flush, then std::endl.
absl::StatusOr<std::string> FormattedTree(const ClusterState& state, const std::string& format) {
  std::unique_ptr<crushtool::CephFormatter> f = crushtool::CephFormatter::Create(format);
  f->OpenObject("tree");
  if (absl::Status st = osdmap::DumpOsdTree(state, *f); !st.ok()) return st;
  f->Close();
  return f->Flush() + "\n";
}

// pg_t's operator<<: the pool printed as unsigned 64-bit, the seed in hex.
std::string FormatPg(const PgId& pg) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%llu.%x", static_cast<unsigned long long>(pg.pool), pg.ps);
  return buf;
}

// pg_t::parse(): sscanf("%llu.%x"), trailing text ignored.
bool ParsePgLikeCeph(const std::string& s, PgId* pg) {
  unsigned long long pool = 0;
  unsigned int seed = 0;
  if (std::sscanf(s.c_str(), "%llu.%x", &pool, &seed) < 2) return false;
  pg->pool = static_cast<std::int64_t>(pool);
  pg->ps = seed;
  return true;
}

// Lazily built mapping machinery over the (possibly edited) crush model.
class Mapping {
 public:
  explicit Mapping(ClusterState& state) : state_(state) {}

  absl::Status Ensure() {
    if (mapper_) return absl::OkStatus();
    auto built = crush::CrushMap::Build(state_.crush);
    if (!built.ok()) return built.status();
    map_ = std::make_unique<crush::CrushMap>(std::move(*built));
    placement_ = std::make_unique<CrushPlacement>(*map_, state_.ceph_release);
    mapper_ = std::make_unique<PgMapper>(state_, *placement_);
    return absl::OkStatus();
  }

  // Call after the state changed (weights, crush).
  void Invalidate() {
    if (placement_) diverged_ += placement_->DivergedFromCeph();
    mapper_.reset();
    placement_.reset();
    map_.reset();
  }

  PgMapper& mapper() { return *mapper_; }

  // Mappings so far (every placement built) whose result is crushkit's
  // answer where Ceph's is undefined.
  std::uint64_t diverged_from_ceph() const {
    return diverged_ + (placement_ ? placement_->DivergedFromCeph() : 0);
  }

 private:
  ClusterState& state_;
  std::uint64_t diverged_ = 0;
  std::unique_ptr<crush::CrushMap> map_;
  std::unique_ptr<CrushPlacement> placement_;
  std::unique_ptr<PgMapper> mapper_;
};

void SetWeight(ClusterState& state, int osd, crush::Weight w) {
  // OSDMap::set_weight(): a non-zero weight also makes the OSD exist.
  auto& o = state.osds[static_cast<std::size_t>(osd)];
  o.weight = w;
  if (w) o.state |= kOsdExists;
}

// CrushWrapper::get_item_weight() as the int Ceph returns (-ENOENT = -2 if
// absent, weights >= 2^31 negative).
int ItemWeightInt(const crush::MapModel& model, int id) {
  auto w = CrushItemWeight(model, id);
  return w ? static_cast<int>(*w) : -2;
}

class Runner {
 public:
  Runner(ClusterState& state, const OsdmaptoolOptions& opt)
      : state_(state), opt_(opt), mapping_(state) {}

  // Every mapping of the run whose result is crushkit's answer where Ceph's
  // is undefined.
  std::uint64_t diverged_from_ceph() const {
    return mapping_.diverged_from_ceph() + balancer_diverged_;
  }

  OsdmaptoolResult Run() {
    if (!Marks() || !AdjustCrushWeights() || !ClearTemp() || !CleanTemps() || !UpmapCleanup() ||
        !ImportCrush() || !ExportCrush() || !TestMapObject() || !TestMapPg() || !TestMapPgs() ||
        !TestCrush()) {
      return std::move(r_);
    }
    if (opt_.created) r_.modified = true;
    const bool any_action = r_.modified || opt_.print || opt_.health || opt_.export_crush_path ||
                            opt_.import_crush_path || !opt_.test_map_pg.empty() ||
                            !opt_.test_map_object.empty() || opt_.test_map_pgs ||
                            opt_.test_map_pgs_dump || opt_.test_map_pgs_dump_all ||
                            !opt_.adjust_crush_weight.empty() || opt_.tree ||
                            opt_.upmap_cleanup_path.has_value() || opt_.read_path.has_value();
    if (!any_action) {
      r_.err += opt_.me + ": no action specified?\n";
      r_.print_usage = true;
      r_.exit_code = 1;
      return std::move(r_);
    }
    if (r_.modified) ++state_.epoch;
    if (opt_.health) {
      auto text = opt_.health(state_);
      if (!text.ok()) {
        Fail(absl::StrCat("crushkit osdmaptool: --health: ", text.status().message()));
        return std::move(r_);
      }
      r_.out += *text;
    }
    if (opt_.print) {
      auto text = opt_.print(state_, r_.modified);
      if (!text.ok()) {
        Fail(absl::StrCat("crushkit osdmaptool: --print: ", text.status().message()));
        return std::move(r_);
      }
      r_.out += *text;
    }
    Tree();
    return std::move(r_);
  }

 private:
  bool Fail(const std::string& err_line, int code = 1) {
    r_.err += err_line + "\n";
    r_.exit_code = code;
    return false;
  }

  bool StdoutGone() {
    r_.exit_code = 1;
    return false;
  }

  bool Marks() {
    const int n = state_.max_osd();
    if (opt_.mark_up_in) {
      r_.out += "marking all OSDs up and in\n";
      for (int i = 0; i < n; ++i) {
        state_.osds[static_cast<std::size_t>(i)].state |= kOsdUp;
        SetWeight(state_, i, 0x10000);
        if (ItemWeightInt(state_.crush, i) == 0) {
          auto s = crush::AdjustItemWeight(state_.crush, i, 0x10000);
          if (!s.ok()) return Fail(absl::StrCat(opt_.me, ": ", s.status().message()));
        }
      }
    }
    if (opt_.mark_out >= 0 && opt_.mark_out < n) {
      r_.out += absl::StrCat("marking OSD@", opt_.mark_out, " as out\n");
      state_.osds[static_cast<std::size_t>(opt_.mark_out)].state |= kOsdUp;
      SetWeight(state_, opt_.mark_out, 0);
    }
    if (opt_.mark_up >= 0 && opt_.mark_up < n) {
      r_.out += absl::StrCat("marking OSD@", opt_.mark_up, " as up\n");
      state_.osds[static_cast<std::size_t>(opt_.mark_up)].state |= kOsdUp;
    }
    if (opt_.mark_in >= 0 && opt_.mark_in < n) {
      // Pacific's bug, reproduced: the message and the OSD marked in are the
      // --mark-up id. Without a valid --mark-up, Ceph writes weight[-1] (or
      // past the end) and aborts or hangs; we stop with an error instead.
      r_.out += absl::StrCat("marking OSD@", opt_.mark_up, " as up\n");
      if (opt_.mark_up < 0 || opt_.mark_up >= n) {
        return Fail(absl::StrCat(opt_.me,
                                 ": --mark-in marks the --mark-up osd in (Pacific bug); "
                                 "--mark-up ",
                                 opt_.mark_up,
                                 " is not a valid osd id, on which "
                                 "Ceph's osdmaptool crashes"));
      }
      SetWeight(state_, opt_.mark_up, 0x10000);
    }
    return true;
  }

  bool AdjustCrushWeights() {
    if (opt_.adjust_crush_weight.empty()) return true;
    std::size_t start = 0;
    const std::string& s = opt_.adjust_crush_weight;
    while (start <= s.size()) {
      std::size_t comma = s.find(',', start);
      if (comma == std::string::npos) comma = s.size();
      const std::string part = s.substr(start, comma - start);
      start = comma + 1;
      if (part.empty()) {
        if (comma == s.size()) break;
        continue;
      }
      const std::size_t colon = part.find(':');
      if (colon == std::string::npos) {
        r_.err += opt_.me + ": use ':' as separator of osd id and its weight\n";
        r_.print_usage = true;
        r_.exit_code = 1;
        return false;
      }
      char* end = nullptr;
      const std::string id_text = part.substr(0, colon);
      const long id = std::strtol(id_text.c_str(), &end, 10);
      if (end == id_text.c_str())
        return Fail(absl::StrCat(opt_.me, ": invalid osd id '", id_text, "'"));
      const std::string w_text = part.substr(colon + 1);
      const float w = std::strtof(w_text.c_str(), &end);
      if (end == w_text.c_str())
        return Fail(absl::StrCat(opt_.me, ": invalid weight '", w_text, "'"));
      // osdmaptool ignores adjust_item_weightf()'s result: a weight that
      // fails validate_weightf() changes nothing but is still reported.
      auto changed = crush::AdjustItemWeightF(state_.crush, static_cast<crush::ItemId>(id), w);
      if (!changed.ok() && changed.status().code() != absl::StatusCode::kOutOfRange) {
        return Fail(absl::StrCat(opt_.me, ": ", changed.status().message()));
      }
      r_.out += absl::StrCat("Adjusted osd.", id, " CRUSH weight to ", FormatCephFloat(w), "\n");
      if (opt_.save) {
        ++state_.epoch;
        r_.modified = true;
      }
      if (comma == s.size()) break;
    }
    return true;
  }

  bool ClearTemp() {
    if (!opt_.clear_temp) return true;
    r_.out += "clearing pg/primary temp\n";
    state_.pg_temp.clear();
    state_.primary_temp.clear();
    return true;
  }

  // osdmaptool 16.2 --clean-temps runs OSDMap::clean_temps() into an
  // Incremental it then discards: only the line shows, the map is unchanged
  // and it does not count as an action.
  bool CleanTemps() {
    if (opt_.clean_temps) r_.out += "cleaning pg temps\n";
    return true;
  }

  // osdmaptool opens the upmap file (exit 1 if it cannot), prints
  // "checking for upmap cleanups", runs OSDMap::clean_pg_upmaps() and, if
  // anything changed, prints the commands and applies them in memory
  // (apply_incremental: epoch + 1), without marking the map modified: --save
  // alone does not write it. With --upmap the balancer follows (Balance());
  // the file gets both command lists, written once at the end.
  bool UpmapCleanup() {
    if (!opt_.upmap_cleanup_path && !opt_.read_path) return true;
    const std::string& path = opt_.upmap_cleanup_path ? *opt_.upmap_cleanup_path : *opt_.read_path;
    const bool to_file = path != "-";
    if (to_file) {
      if (!opt_.write_file || !opt_.check_output) return Fail(opt_.me + ": cannot write files");
      if (const int e = opt_.check_output(path); e != 0) return FailOpeningUpmapFile(path, e);
      absl::StrAppend(&r_.out, "writing upmap command output to: ", path, "\n");
    }
    if (!EnsureMapping()) return false;
    std::string file;
    std::string* commands = to_file ? &file : &r_.out;
    if (opt_.upmap_cleanup_path) {
      auto cleanup = CheckPgUpmaps(state_, mapping_.mapper());
      if (!cleanup.ok()) {
        return Fail(absl::StrCat(opt_.me, ": upmap cleanup: ", cleanup.status().message()));
      }
      r_.out += "checking for upmap cleanups\n";
      if (cleanup->changed()) {
        AppendUpmapCommands(FormatUpmapCleanupCommands(*cleanup), commands);
        ApplyUpmapCleanup(*cleanup, state_);
        ++state_.epoch;
      }
    }
    const bool ok =
        (!opt_.read_path || ReadBalance(commands)) && (!opt_.upmap || Balance(commands));
    if (to_file) {
      // Written even when the balancer stops on an unknown pool, as
      // osdmaptool has opened (truncated) the file by then.
      std::string log;
      if (const int e = opt_.write_file(path, file, &log); e != 0) {
        if (!first_upmap_write_) return FailOpeningUpmapFile(path, e);
        // osdmaptool writes each command block as it is made
        // (print_inc_upmaps) and exits at the first failed write: what
        // crushkit printed after that point never happens there.
        r_.out.resize(first_upmap_write_->out);
        r_.err.resize(first_upmap_write_->err);
        return Fail("error writing output: " + CppStrerror(e));
      }
    }
    return ok;
  }

  bool FailOpeningUpmapFile(const std::string& path, int e) {
    return Fail(absl::StrCat("error opening ", path, ": ", CppStrerror(e)));
  }

  // Adds one command block (osdmaptool's print_inc_upmaps) to `commands`,
  // noting where the output stood at the first block bound for the file.
  // --vstart starts every line with ./bin/.
  void AppendUpmapCommands(const std::string& block, std::string* commands) {
    if (block.empty()) return;
    if (commands != &r_.out && !first_upmap_write_)
      first_upmap_write_ = OutputMark{r_.out.size(), r_.err.size()};
    if (!opt_.vstart) {
      *commands += block;
      return;
    }
    for (std::size_t start = 0; start < block.size();) {
      std::size_t end = block.find('\n', start);
      end = end == std::string::npos ? block.size() : end + 1;
      absl::StrAppend(commands, "./bin/", block.substr(start, end - start));
      start = end;
    }
  }

  // osdmaptool's --read block (Reef and later): the read balancer on
  // --read-pool, its before/after primaries per OSD and scores, then the
  // pg-upmap-primary commands. The map itself is not changed.
  bool ReadBalance(std::string* commands) {
    const Pool* pool = nullptr;
    for (const auto& [id, p] : state_.pools) {
      if (p.name == opt_.read_pool) pool = &p;
    }
    if (pool == nullptr) return Fail(absl::StrCat(" pool ", opt_.read_pool, " does not exist"));
    if (pool->type != osdmap::PoolType::kReplicated) {
      return Fail(absl::StrCat(opt_.read_pool,
                               " is an erasure coded pool; please try again with a replicated "
                               "pool."));
    }
    if (opt_.osd_size_aware) {
      return Fail(
          absl::StrCat("crushkit osdmaptool: --osd-size-aware is not supported "
                       "(Tentacle's RB_OSDSIZEOPT read balancer)"));
    }
    auto balance = osdmap::BalancePrimaries(state_, pool->id);
    if (balance.ok()) balancer_diverged_ += balance->diverged_from_ceph;
    if (!balance.ok()) {
      return Fail(absl::StrCat("crushkit osdmaptool: --read: ", balance.status().message()));
    }
    if (balance->rc < 0) {
      return Fail(
          "Error balancing primaries. Rerun with at least --debug-osd=10 for more details.");
    }
    if (balance->rc == 0) {
      r_.out += " Unable to find further optimization, or distribution is already perfect\n";
      return true;
    }
    std::string text = " \n---------- BEFORE ------------ \n";
    AppendPrimaries(balance->primaries_before, &text);
    absl::StrAppend(&text, " \nread_balance_score of '", opt_.read_pool,
                    "': ", FormatCephFloat(balance->score_before.info.adjusted_score),
                    "\n\n\n---------- AFTER ------------ \n");
    AppendPrimaries(balance->primaries_after, &text);
    absl::StrAppend(&text, " \nread_balance_score of '", opt_.read_pool,
                    "': ", FormatCephFloat(balance->score_after.info.adjusted_score),
                    "\n\n\nnum changes: ", balance->rc, "\n");
    const std::string block = osdmap::FormatPgUpmapPrimaryCommands(balance->new_pg_upmap_primary);
    if (commands != &r_.out) {
      r_.out += text;
      AppendUpmapCommands(block, commands);
      return true;
    }
    // To stdout: osdmaptool writes the commands straight to fd 1 while this
    // text (no std::endl in it) sits in stdio's buffer, which a pipe or file
    // flushes only when full (4096 bytes, glibc's st_blksize): the commands
    // land after the buffer's last full flush.
    constexpr std::size_t kStdioBuffer = 4096;
    const std::size_t flushed = text.empty() ? 0 : (text.size() - 1) / kStdioBuffer * kStdioBuffer;
    r_.out += text.substr(0, flushed);
    AppendUpmapCommands(block, commands);
    r_.out += text.substr(flushed);
    return true;
  }

  // The " osd.N | primary affinity: A | number of prims: K" lines.
  void AppendPrimaries(const std::map<std::int32_t, std::size_t>& primaries, std::string* text) {
    for (const auto& [osd, count] : primaries) {
      absl::StrAppend(text, " osd.", osd, " | primary affinity: ",
                      FormatCephFloat(osdmap::PrimaryAffinityF(state_, osd)),
                      " | number of prims: ", count, "\n");
    }
  }

  // osdmaptool's --upmap block after the cleanup, with crushkit's balancer
  // in place of calc_pg_upmaps(): all selected pools in one call sharing
  // --upmap-max (Ceph calls it per pool in random order), so the
  // "pools" line lists them in id order. Commands go to `commands`.
  // --upmap-active repeats rounds, applying each one, until a round finds
  // nothing, then lists PGs per OSD; its "Time elapsed" lines differ from
  // run to run, as osdmaptool's do.
  bool Balance(std::string* commands) {
    absl::StrAppend(&r_.out, "upmap, max-count ", opt_.upmap_max, ", max deviation ",
                    opt_.upmap_deviation, "\n");
    osdmap::BalancerOptions options;
    options.max_changes = opt_.upmap_max;
    options.max_deviation = opt_.upmap_deviation;
    options.seed = opt_.upmap_seed;
    options.cleanup_first = false;  // done above
    for (const std::string& name : opt_.upmap_pools) {
      const Pool* found = nullptr;
      for (const auto& [id, pool] : state_.pools) {
        if (pool.name == name) found = &pool;
      }
      if (found == nullptr) return Fail(absl::StrCat(" pool ", name, " does not exist"));
      options.pools.push_back(found->id);
    }
    if (!options.pools.empty()) {
      // set<string> prints without brackets, vector<int64_t> with them.
      absl::StrAppend(&r_.out, " limiting to pools ", absl::StrJoin(opt_.upmap_pools, ","), " ([",
                      absl::StrJoin(options.pools, ","), "])\n");
    } else {
      for (const auto& [id, pool] : state_.pools) options.pools.push_back(id);
    }
    if (options.pools.empty()) {
      r_.out += "No pools available\n";
      return true;
    }
    std::sort(options.pools.begin(), options.pools.end());
    const auto start = std::chrono::steady_clock::now();
    for (int rounds = 0;; ++rounds) {
      bool changed = false;
      if (!BalanceRound(options, commands, &changed)) return false;
      if (!changed) {
        if (opt_.upmap_active) PrintPgsPerOsd(options.pools, SecondsSince(start), rounds);
        return true;
      }
      if (!opt_.upmap_active) return true;
    }
  }

  static float SecondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<float>(std::chrono::steady_clock::now() - t).count();
  }

  // One pass of osdmaptool's do { ... } while (upmap_active) loop.
  bool BalanceRound(const osdmap::BalancerOptions& options, std::string* commands, bool* changed) {
    r_.out += "pools ";
    for (std::int64_t id : options.pools) absl::StrAppend(&r_.out, state_.pools.at(id).name, " ");
    r_.out += "\n";
    const auto begin = std::chrono::steady_clock::now();
    auto result = osdmap::BalanceUpmaps(state_, options);
    if (!result.ok()) return Fail(absl::StrCat(opt_.me, ": upmap: ", result.status().message()));
    balancer_diverged_ += result->diverged_from_ceph;
    absl::StrAppend(&r_.out, "prepared ", result->changes.size(), "/", opt_.upmap_max,
                    " changes\n");
    if (opt_.upmap_active) {
      absl::StrAppend(&r_.out, "Time elapsed ", FormatCephFloat(SecondsSince(begin)), " secs\n");
    }
    if (result->changes.empty()) {
      r_.out += "Unable to find further optimization, or distribution is already perfect\n";
      return true;
    }
    *changed = true;
    AppendUpmapCommands(osdmap::FormatBalanceCommands(*result), commands);
    if (opt_.save || opt_.upmap_active) {
      // apply_incremental(pending_inc) at epoch + 1; Run() adds the --save one.
      state_.pg_upmap_items = std::move(result->state.pg_upmap_items);
      ++state_.epoch;
      if (opt_.save) r_.modified = true;
    }
    return true;
  }

  // --upmap-active's closing lines: every OSD in the up set of a PG of the
  // balanced pools, with how many such PGs it holds, then the totals.
  void PrintPgsPerOsd(const std::vector<std::int64_t>& pools, float seconds, int rounds) {
    std::map<int, int> pgs_by_osd;
    PgMapping m;
    for (std::int64_t id : pools) {
      const Pool& pool = state_.pools.at(id);
      for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
        mapping_.mapper().MapPg(pool, ps, &m);
        std::vector<int> up = m.up.ToVector();
        std::sort(up.begin(), up.end());
        up.erase(std::unique(up.begin(), up.end()), up.end());
        for (int osd : up) {
          if (osd != crush::kItemNone) ++pgs_by_osd[osd];
        }
      }
    }
    for (const auto& [osd, count] : pgs_by_osd) {
      absl::StrAppend(&r_.out, "osd.", osd, " pgs ", count, "\n");
    }
    absl::StrAppend(&r_.out, "Total time elapsed ", FormatCephFloat(seconds), " secs, ", rounds,
                    " rounds\n");
  }

  bool ImportCrush() {
    if (!opt_.import_crush_path) return true;
    auto model = crush::DecodeCrushMap(opt_.import_crush_bytes);
    if (!model.ok()) {
      return Fail(absl::StrCat(opt_.me, ": error decoding crush map from ", *opt_.import_crush_path,
                               ": ", model.status().message()));
    }
    if (model->max_devices > state_.max_osd()) {
      return Fail(absl::StrCat(opt_.me, ": crushmap max_devices ", model->max_devices,
                               " > osdmap max_osd ", state_.max_osd()));
    }
    ++state_.epoch;
    state_.crush = std::move(*model);
    mapping_.Invalidate();
    r_.out += absl::StrCat(opt_.me, ": imported ", opt_.import_crush_bytes.size(),
                           " byte crush map from ", *opt_.import_crush_path, "\n");
    r_.modified = true;
    return true;
  }

  bool ExportCrush() {
    if (!opt_.export_crush_path) return true;
    if (!opt_.write_file) return Fail(opt_.me + ": cannot write files");
    std::string log;
    // Reef and later write their own crush encoding of the map they decoded.
    const std::string bytes =
        !opt_.export_crush_as || *opt_.export_crush_as == crush::CephRelease::kPacific
            ? osdmap::EncodeCrush(state_)
            : crush::EncodeCrushMapAs(state_.crush, *opt_.export_crush_as);
    if (opt_.write_file(*opt_.export_crush_path, bytes, &log) != 0) {
      r_.err += log;
      // osdmaptool 16.2 names the --import-crush file here (empty without
      // one), not the file it failed to write.
      return Fail(absl::StrCat(opt_.me, ": error writing crush map to ",
                               opt_.import_crush_path.value_or("")));
    }
    r_.out += absl::StrCat(opt_.me, ": exported crush map to ", *opt_.export_crush_path, "\n");
    return true;
  }

  bool EnsureMapping() {
    auto s = mapping_.Ensure();
    if (!s.ok()) return Fail(absl::StrCat(opt_.me, ": invalid crush map: ", s.message()));
    return true;
  }

  bool TestMapObject() {
    if (opt_.test_map_object.empty()) return true;
    std::int64_t pool = opt_.pool;
    if (pool == -1) {
      r_.out += opt_.me + ": assuming pool 1 (use --pool to override)\n";
      pool = 1;
    }
    const Pool* p = state_.FindPool(pool);
    if (p == nullptr) return Fail(absl::StrCat("There is no pool ", pool));
    if (!EnsureMapping()) return false;
    PgId raw;
    mapping_.mapper().ObjectToRawPg(pool, opt_.test_map_object, "", &raw);
    const PgId pg{pool, p->FoldPs(raw.ps)};
    PgMapping m;
    mapping_.mapper().PgToUpActing(pg, &m);
    r_.out += absl::StrCat(" object '", opt_.test_map_object, "' -> ", FormatPg(pg), " -> ",
                           FormatOsdList(m.acting.span()), "\n");
    return true;
  }

  bool TestMapPg() {
    if (opt_.test_map_pg.empty()) return true;
    PgId pg;
    if (!ParsePgLikeCeph(opt_.test_map_pg, &pg)) {
      r_.err += absl::StrCat(opt_.me, ": failed to parse pg '", opt_.test_map_pg, "\n");
      r_.print_usage = true;
      r_.exit_code = 1;
      return false;
    }
    r_.out += absl::StrCat(" parsed '", opt_.test_map_pg, "' -> ", FormatPg(pg), "\n");
    if (!EnsureMapping()) return false;
    PgMapping m;
    mapping_.mapper().PgToUpActing(pg, &m);
    r_.out +=
        absl::StrCat(FormatPg(pg), " raw (", FormatOsdList(m.raw.span()), ", p", m.raw_primary,
                     ") up (", FormatOsdList(m.up.span()), ", p", m.up_primary, ") acting (",
                     FormatOsdList(m.acting.span()), ", p", m.acting_primary, ")\n");
    return true;
  }

  // Counts of --test-map-pgs: PGs per OSD as any replica, as the first and
  // as the primary; PGs per acting-set size.
  struct PgCounts {
    std::vector<int> count;
    std::vector<int> first_count;
    std::vector<int> primary_count;
    std::vector<int> size;
    int max_size = 0;
  };

  bool TestMapPgs() {
    if (!opt_.test_map_pgs && !opt_.test_map_pgs_dump && !opt_.test_map_pgs_dump_all) return true;
    if (opt_.pool != -1 && state_.FindPool(opt_.pool) == nullptr) {
      return Fail(absl::StrCat("There is no pool ", opt_.pool));
    }
    if (!EnsureMapping()) return false;
    const auto un = static_cast<std::size_t>(state_.max_osd());
    if (opt_.test_random) ::srandom(static_cast<unsigned>(::getpid()));
    PgCounts c{.count = std::vector<int>(un, 0),
               .first_count = std::vector<int>(un, 0),
               .primary_count = std::vector<int>(un, 0),
               .size = std::vector<int>(kMaxPgOsds + 1, 0),
               .max_size = 0};
    MapEveryPg(c);
    PrintPgCounts(c);
    return true;
  }

  // osdmaptool --test-random: pool.size uniform OSDs (rand() % max_osd after
  // srand(getpid()), so no two runs agree), the first one primary.
  static void RandomActing(std::uint32_t pool_size, int n, PgMapping* m) {
    m->acting.clear();
    const int want = static_cast<int>(std::min<std::uint32_t>(pool_size, kMaxPgOsds));
    for (int i = 0; i < want; ++i) {
      m->acting.push_back(n > 0 ? static_cast<int>(random() % n) : crush::kItemNone);
    }
    m->acting_primary = m->acting.size() ? m->acting[0] : -1;
  }

  // Maps every PG of the selected pools, printing each with
  // --test-map-pgs-dump(-all), and counts it into `c`.
  void MapEveryPg(PgCounts& c) {
    const int n = state_.max_osd();
    PgMapping m;
    std::string& out = r_.out;
    for (auto& [id, pool] : state_.pools) {
      if (opt_.pool != -1 && id != opt_.pool) continue;
      if (opt_.pg_num > 0) pool.pg_num = static_cast<std::uint32_t>(opt_.pg_num);
      absl::StrAppend(&out, "pool ", id, " pg_num ", pool.pg_num, "\n");
      for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
        if (opt_.test_random) {
          RandomActing(pool.size, n, &m);
        } else {
          mapping_.mapper().MapPg(pool, ps, &m);
        }
        const OsdList& osds = m.acting;
        const int primary = m.acting_primary;
        if (opt_.test_map_pgs_dump) {
          absl::StrAppend(&out, FormatPg({id, ps}), "\t", FormatOsdList(osds.span()), "\t", primary,
                          "\n");
        } else if (opt_.test_map_pgs_dump_all) {
          absl::StrAppend(&out, FormatPg({id, ps}), " raw (", FormatOsdList(m.raw.span()), ", p",
                          m.raw_primary, ") up (", FormatOsdList(m.up.span()), ", p", m.up_primary,
                          ") acting (", FormatOsdList(osds.span()), ", p", primary, ")\n");
        }
        CountPg(m, n, c);
      }
    }
  }

  static void CountPg(const PgMapping& m, int n, PgCounts& c) {
    const OsdList& osds = m.acting;
    const int primary = m.acting_primary;
    c.size[static_cast<std::size_t>(osds.size())]++;
    if (c.max_size < osds.size()) c.max_size = osds.size();
    for (int i = 0; i < osds.size(); ++i) {
      if (osds[i] != crush::kItemNone && osds[i] >= 0 && osds[i] < n) {
        c.count[static_cast<std::size_t>(osds[i])]++;
      }
    }
    if (osds.size() && osds[0] != crush::kItemNone && osds[0] >= 0 && osds[0] < n) {
      c.first_count[static_cast<std::size_t>(osds[0])]++;
    }
    if (primary >= 0 && primary < n) c.primary_count[static_cast<std::size_t>(primary)]++;
  }

  // osdmaptool's table of in OSDs with a CRUSH weight, then the spread.
  void PrintPgCounts(const PgCounts& c) {
    const int n = state_.max_osd();
    const std::vector<int>& count = c.count;
    std::string& out = r_.out;
    std::uint64_t total = 0;
    int in = 0;
    int min_osd = -1;
    int max_osd = -1;
    out += "#osd\tcount\tfirst\tprimary\tc wt\twt\n";
    std::vector<char> counted(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
      const auto ui = static_cast<std::size_t>(i);
      if (!state_.IsIn(i)) continue;
      const int cw = ItemWeightInt(state_.crush, i);
      if (cw <= 0) continue;
      counted[ui] = 1;
      ++in;
      const float cwf = static_cast<float>(cw) / static_cast<float>(0x10000);
      const float wf = static_cast<float>(state_.osds[ui].weight) / static_cast<float>(0x10000);
      absl::StrAppend(&out, "osd.", i, "\t", count[ui], "\t", c.first_count[ui], "\t",
                      c.primary_count[ui], "\t", FormatCephFloat(cwf), "\t", FormatCephFloat(wf),
                      "\n");
      total += static_cast<std::uint64_t>(count[ui]);
      if (count[ui] && (min_osd < 0 || count[ui] < count[static_cast<std::size_t>(min_osd)])) {
        min_osd = i;
      }
      if (count[ui] && (max_osd < 0 || count[ui] > count[static_cast<std::size_t>(max_osd)])) {
        max_osd = i;
      }
    }
    PrintSpread(count, counted, total, in, min_osd, max_osd, c);
  }

  void PrintSpread(const std::vector<int>& count, const std::vector<char>& counted,
                   std::uint64_t total, int in, int min_osd, int max_osd, const PgCounts& c) {
    std::string& out = r_.out;
    // Same arithmetic as osdmaptool: unsigned 64-bit differences squared
    // (which wrap to the true square), double accumulation.
    const std::uint64_t avg = in ? (total / static_cast<std::uint64_t>(in)) : 0;
    double dev = 0;
    for (std::size_t i = 0; i < counted.size(); ++i) {
      if (!counted[i]) continue;
      const std::uint64_t d = avg - static_cast<std::uint64_t>(count[i]);
      dev += static_cast<double>(d * d);
    }
    volatile double in_d = in;  // keep 0/0 a runtime NaN (prints "-nan" like Ceph)
    dev /= in_d;
    dev = std::sqrt(dev);
    const double edev = std::sqrt(static_cast<double>(total) / in_d * (1.0 - (1.0 / in_d)));
    const double avg_d = static_cast<double>(avg);
    absl::StrAppend(&out, " in ", in, "\n");
    absl::StrAppend(&out, " avg ", avg, " stddev ", FormatCephDouble(dev), " (",
                    FormatCephDouble(dev / avg_d), "x) (expected ", FormatCephDouble(edev), " ",
                    FormatCephDouble(edev / avg_d), "x))\n");
    if (min_osd >= 0) {
      absl::StrAppend(&out, " min osd.", min_osd, " ", count[static_cast<std::size_t>(min_osd)],
                      "\n");
    }
    if (max_osd >= 0) {
      absl::StrAppend(&out, " max osd.", max_osd, " ", count[static_cast<std::size_t>(max_osd)],
                      "\n");
    }
    for (int i = 0; i <= c.max_size; ++i) {
      if (c.size[static_cast<std::size_t>(i)]) {
        absl::StrAppend(&out, "size ", i, "\t", c.size[static_cast<std::size_t>(i)], "\n");
      }
    }
  }

  // --test-crush: osdmaptool's `while (1)` over passes; each maps every PG's
  // acting set 100 times and aborts if an attempt differs from the first.
  // Only a failed write to stdout ends it.
  bool TestCrush() {
    if (!opt_.test_crush) return true;
    if (!opt_.stream_out)
      return Fail("crushkit osdmaptool: --test-crush needs a stream to write to");
    if (!state_.pools.empty() && !EnsureMapping()) return false;
    std::string out = std::move(r_.out);
    r_.out.clear();
    auto flush = [&](std::size_t at_least) {
      if (out.size() < at_least) return true;
      const bool ok = opt_.stream_out(out);
      out.clear();
      return ok;
    };
    PgMapping m;
    for (std::uint64_t pass = 1;; ++pass) {
      absl::StrAppend(&out, "pass ", pass, "\n");
      for (const auto& [id, pool] : state_.pools) {
        for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
          const std::string pg = FormatPg({id, ps});
          OsdList first;
          for (int i = 0; i < 100; ++i) {
            absl::StrAppend(&out, pg, " attempt ", i, "\n");
            mapping_.mapper().MapPg(pool, ps, &m);
            if (i == 0) {
              first = m.acting;
            } else if (!(m.acting == first)) {
              absl::StrAppend(&out, pg, " had ", FormatOsdList(first.span()), " now ",
                              FormatOsdList(m.acting.span()), "\n");
              opt_.stream_out(out);
              return Fail(
                  "crushkit osdmaptool: --test-crush: the mapping changed between attempts");
            }
          }
          if (!flush(1 << 16)) return StdoutGone();
        }
      }
      if (!flush(1 << 16)) return StdoutGone();
    }
  }

  // osdmaptool prints the tree after every other action, on the modified map.
  void Tree() {
    if (!opt_.tree) return;
    auto tree = !opt_.tree_format.empty() ? FormattedTree(state_, opt_.tree_format)
                : opt_.tree_json_pretty   ? FormatOsdTreeJsonPretty(state_)
                : opt_.tree_json          ? FormatOsdTreeJson(state_)
                                          : FormatOsdTreePlain(state_);
    if (!tree.ok()) {
      Fail(absl::StrCat(opt_.me, ": --tree: ", tree.status().message()));
      return;
    }
    r_.out += *tree;
  }

  // Sizes of r_.out and r_.err.
  struct OutputMark {
    std::size_t out = 0;
    std::size_t err = 0;
  };

  ClusterState& state_;
  const OsdmaptoolOptions& opt_;
  Mapping mapping_;
  OsdmaptoolResult r_;
  // The balancers' mappings whose result is crushkit's answer where Ceph's
  // is undefined (they map on their own placements).
  std::uint64_t balancer_diverged_ = 0;
  // Where the output stood when osdmaptool would first write to the upmap
  // file.
  std::optional<OutputMark> first_upmap_write_;
};

}  // namespace

OsdmaptoolResult RunOsdmaptoolActions(ClusterState& state, const OsdmaptoolOptions& options) {
  Runner runner(state, options);
  OsdmaptoolResult r = runner.Run();
  r.diverged_from_ceph = runner.diverged_from_ceph();
  return r;
}

}  // namespace crushkit::tools::osdmaptool
