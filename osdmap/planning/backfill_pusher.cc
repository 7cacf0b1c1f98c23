#include "osdmap/planning/backfill_pusher.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

#include "crush/status_macros.h"
#include "crush/types.h"
#include "osdmap/changes/apply_change.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_table.h"

namespace crushkit::osdmap {
namespace {

bool Holds(std::span<const std::int32_t> before, std::int32_t osd) {
  return crush::IsDevice(osd) && std::find(before.begin(), before.end(), osd) != before.end();
}

// PeeringState::find_best_info over the holders that are up, all with the
// same last_update (the PG was clean): the oldest log_tail ("prefer longer
// tail"), then `current` (the OSD running peering: "prefer current
// primary"), then the first in pg_shard_t order (the lowest id). `tail`
// null: every tail taken as equal.
std::int32_t BestInfo(std::span<const std::int32_t> before,
                      const std::function<bool(std::int32_t)>& is_up,
                      const std::function<std::optional<LogVersion>(std::int32_t)>* tail,
                      std::int32_t current) {
  // A peer's tail in `pg query` is the primary's peer_info, set when the
  // PG last peered and not moved by the trims since (merge_new_log_entries
  // advances peer_info's last_update only). 0'0 there while another holder
  // has trimmed means the PG peered before its first trim: every replica
  // has trimmed with the primary since (each repop carries pg_trim_to), so
  // it counts as the newest tail given, the primary's own.
  std::optional<LogVersion> newest;
  if (tail != nullptr) {
    for (std::int32_t o : before) {
      if (!crush::IsDevice(o) || !is_up(o)) continue;
      const std::optional<LogVersion> t = (*tail)(o);
      if (!t) return BestInfo(before, is_up, nullptr, current);
      if (!newest || *t > *newest) newest = t;
    }
  }
  std::int32_t best = crush::kItemNone;
  LogVersion best_tail;
  for (std::int32_t o : before) {
    if (!crush::IsDevice(o) || !is_up(o)) continue;
    LogVersion t;
    if (newest) {
      t = *(*tail)(o);
      if (t == LogVersion{}) t = *newest;
    }
    const bool better = best == crush::kItemNone || t < best_tail ||
                        (t == best_tail && best != current && (o == current || o < best));
    if (better) {
      best = o;
      best_tail = t;
    }
  }
  return best;
}

std::int32_t Pusher(std::span<const std::int32_t> before, std::span<const std::int32_t> after_up,
                    const std::function<bool(std::int32_t)>& is_up,
                    const std::function<std::optional<LogVersion>(std::int32_t)>* tail,
                    std::int32_t current) {
  const auto first_up = std::find_if(after_up.begin(), after_up.end(), crush::IsDevice);
  if (first_up == after_up.end()) return crush::kItemNone;
  // select_replicated_primary keeps the up primary when its own info is
  // complete, which a clean holder's is.
  if (Holds(before, *first_up) && is_up(*first_up)) return *first_up;
  return BestInfo(before, is_up, tail, current);
}

}  // namespace

std::int32_t ReplicatedBackfillPusher(std::span<const std::int32_t> before,
                                      std::span<const std::int32_t> after_up,
                                      const std::function<bool(std::int32_t)>& is_up) {
  return Pusher(before, after_up, is_up, nullptr, crush::kItemNone);
}

std::int32_t ReplicatedBackfillPusher(
    std::span<const std::int32_t> before, std::span<const std::int32_t> after_up,
    const std::function<bool(std::int32_t)>& is_up,
    const std::function<std::optional<LogVersion>(std::int32_t)>& log_tail,
    std::int32_t current_primary) {
  return Pusher(before, after_up, is_up, &log_tail, current_primary);
}

std::int32_t ReplicatedBackfillPusherInSteps(
    std::span<const std::int32_t> before, std::span<const std::vector<std::int32_t>> steps,
    const std::function<bool(std::int32_t)>& is_up,
    const std::function<std::optional<LogVersion>(std::int32_t)>& log_tail) {
  if (steps.empty()) return crush::kItemNone;
  std::int32_t current = crush::kItemNone;
  for (std::size_t k = 0; k + 1 < steps.size() && current == crush::kItemNone; ++k) {
    const std::span<const std::int32_t> up = steps[k];
    if (std::equal(up.begin(), up.end(), before.begin(), before.end())) continue;
    // The first interval whose up set changed peers before the next command's
    // map is acted on: its primary asks for a pg_temp headed by the one it
    // chose (choose_acting), unless its up set already holds every copy.
    const std::int32_t chosen = Pusher(before, up, is_up, &log_tail, crush::kItemNone);
    const auto first_up = std::find_if(up.begin(), up.end(), crush::IsDevice);
    const bool all_hold = std::all_of(up.begin(), up.end(), [&](std::int32_t o) {
      return !crush::IsDevice(o) || Holds(before, o);
    });
    if (chosen != crush::kItemNone && !(all_hold && chosen == *first_up)) current = chosen;
  }
  return Pusher(before, steps.back(), is_up, &log_tail, current);
}

const std::vector<std::vector<std::int32_t>>* PgStepUps::Find(const PgId& pg) const {
  const auto it = ups.find(pg);
  return it == ups.end() ? nullptr : &it->second;
}

absl::StatusOr<PgStepUps> MapPusherSteps(const ClusterState& before, const ChangeList& change,
                                         int threads) {
  PgStepUps out;
  if (change.ops.size() < 2) return out;
  std::uint64_t pgs = 0;
  for (const auto& [id, pool] : before.pools) pgs += pool.pg_num;
  if (change.ops.size() > kMaxPusherSteps || pgs * change.ops.size() > kMaxPusherStepPgs) {
    out.not_mapped = absl::StrCat(
        "pushers from the change at once, not command by command (", change.ops.size(),
        " commands x ", pgs, " PGs is over the cap of ", kMaxPusherSteps, " commands or ",
        kMaxPusherStepPgs,
        " PG mappings): a PG that moves at an earlier command may be pushed by another OSD");
    return out;
  }
  MapAllOptions mo;
  mo.threads = threads;
  mo.acting = false;
  CRUSH_ASSIGN_OR_RETURN(std::unique_ptr<MappingSession> bs, MappingSession::Create(before));
  const PgTable tb = MapAllPgs(*bs, mo);
  const std::size_t n = change.ops.size();
  for (std::size_t k = 1; k < n; ++k) {
    ChangeList prefix = change;
    prefix.ops.resize(k);
    CRUSH_ASSIGN_OR_RETURN(AppliedChange applied, ApplyChangeBuilt(before, prefix));
    CRUSH_ASSIGN_OR_RETURN(
        std::unique_ptr<MappingSession> session,
        MappingSession::Create(std::move(applied.state), std::move(applied.crush_map)));
    const PgTable tk = MapAllPgs(*session, mo);
    for (const PoolPgTable& pb : tb.pools) {
      const Pool* pool = before.FindPool(pb.pool_id);
      const PoolPgTable* pk = tk.Find(pb.pool_id);
      if (pool == nullptr || pool->type != PoolType::kReplicated || pk == nullptr ||
          pk->pg_num != pb.pg_num) {
        continue;
      }
      for (std::uint32_t ps = 0; ps < pb.pg_num; ++ps) {
        const std::span<const std::int32_t> b = pb.Up(ps);
        const std::span<const std::int32_t> u = pk->Up(ps);
        const PgId pg{pb.pool_id, ps};
        auto it = out.ups.find(pg);
        if (it == out.ups.end()) {
          if (std::equal(b.begin(), b.end(), u.begin(), u.end())) continue;
          // The steps before this one kept the before set.
          it = out.ups
                   .emplace(pg, std::vector<std::vector<std::int32_t>>(
                                    k - 1, std::vector<std::int32_t>(b.begin(), b.end())))
                   .first;
        }
        it->second.emplace_back(u.begin(), u.end());
      }
    }
  }
  return out;
}

std::int32_t ReplicatedPusherOf(const PgId& pg, std::span<const std::int32_t> before,
                                std::span<const std::int32_t> after_up,
                                const std::function<bool(std::int32_t)>& is_up,
                                const PgLogTails* tails, const PgStepUps* steps) {
  const std::function<std::optional<LogVersion>(std::int32_t)> tail =
      [&](std::int32_t o) -> std::optional<LogVersion> {
    if (tails == nullptr) return std::nullopt;
    return tails->Find(pg, o);
  };
  const std::vector<std::vector<std::int32_t>>* ups = steps != nullptr ? steps->Find(pg) : nullptr;
  if (ups == nullptr) return ReplicatedBackfillPusher(before, after_up, is_up, tail);
  std::vector<std::vector<std::int32_t>> all = *ups;
  all.emplace_back(after_up.begin(), after_up.end());
  return ReplicatedBackfillPusherInSteps(before, all, is_up, tail);
}

std::int32_t ErasureBackfillPusher(std::span<const std::int32_t> before,
                                   std::span<const std::int32_t> after_up,
                                   const std::function<bool(std::int32_t)>& is_up) {
  // The acting primary is the first real member.
  for (std::size_t i = 0; i < after_up.size(); ++i) {
    const std::int32_t member = ErasureActingMember(before, after_up, i, is_up);
    if (crush::IsDevice(member)) return member;
  }
  return crush::kItemNone;
}

std::int32_t ErasureActingMember(std::span<const std::int32_t> before,
                                 std::span<const std::int32_t> after_up, std::size_t i,
                                 const std::function<bool(std::int32_t)>& is_up) {
  const std::int32_t up = i < after_up.size() ? after_up[i] : crush::kItemNone;
  const std::int32_t held = i < before.size() ? before[i] : crush::kItemNone;
  if (crush::IsDevice(up) && up == held && is_up(up)) return up;
  if (crush::IsDevice(held) && is_up(held)) return held;
  return crush::kItemNone;
}

// Log tails (planner input).
namespace log_tails_json {

using google::protobuf::Struct;
using google::protobuf::Value;

constexpr std::int64_t kMaxTailOsdId = std::int64_t{1} << 24;
constexpr std::size_t kQuoteMax = 40;

// Input text in an error message: at most kQuoteMax characters, control
// bytes and non-ASCII replaced, so a message stays one printable line.
std::string Quote(absl::string_view text) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kQuoteMax; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  if (text.size() > kQuoteMax) out += "...";
  return out + "'";
}

// 1 to 20 decimal digits and nothing else (SimpleAtoi also takes signs and
// spaces).
bool AllDigits(absl::string_view text) {
  if (text.empty() || text.size() > 20) return false;
  for (const char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

absl::Status Error(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("log tails: ", what));
}

// "5" or "3(1)" (an EC shard): the OSD id.
absl::StatusOr<std::int32_t> ParseOsd(absl::string_view text) {
  const std::size_t paren = text.find('(');
  std::int64_t id = -1;
  if (!AllDigits(text.substr(0, paren)) || !absl::SimpleAtoi(text.substr(0, paren), &id) ||
      id > kMaxTailOsdId || (paren != absl::string_view::npos && text.back() != ')')) {
    return Error(absl::StrCat(Quote(text), " is not an OSD id (0..", kMaxTailOsdId, ")"));
  }
  return static_cast<std::int32_t>(id);
}

absl::StatusOr<std::int32_t> OsdOfValue(const Value& v) {
  if (v.has_string_value()) return ParseOsd(v.string_value());
  if (v.has_number_value()) {
    const double d = v.number_value();
    if (d >= 0 && d <= static_cast<double>(kMaxTailOsdId) && d == std::floor(d)) {
      return static_cast<std::int32_t>(d);
    }
  }
  return Error("an OSD id is not a number 0..2^24 or a string such as \"3\" or \"3(1)\"");
}

absl::StatusOr<PgId> PgOf(absl::string_view text) {
  std::optional<PgId> pg = ParsePgId(std::string(text));
  if (!pg)
    return Error(absl::StrCat(Quote(text), " is not a PG id (expected POOL.HEX, e.g. 2.1f)"));
  return *pg;
}

absl::Status AddTail(const PgId& pg, std::int32_t osd, const Value& tail, PgLogTails* out) {
  if (!tail.has_string_value()) {
    return Error(absl::StrCat("pg ", FormatPgId(pg), " osd.", osd,
                              ": log_tail is not a string such as \"46'50\""));
  }
  absl::StatusOr<LogVersion> v = ParseLogVersion(tail.string_value());
  if (!v.ok()) {
    return Error(absl::StrCat("pg ", FormatPgId(pg), " osd.", osd, ": ", v.status().message()));
  }
  out->tails[pg][osd] = *v;
  return absl::OkStatus();
}

// {"2.17": {"5": "46'50", ...}, ...}
absl::Status AddMap(const Struct& pgs, PgLogTails* out) {
  for (const auto& [key, holders] : pgs.fields()) {
    CRUSH_ASSIGN_OR_RETURN(const PgId pg, PgOf(key));
    if (!holders.has_struct_value()) {
      return Error(absl::StrCat("pg ", FormatPgId(pg), ": expected an object OSD -> log_tail"));
    }
    for (const auto& [osd_text, tail] : holders.struct_value().fields()) {
      CRUSH_ASSIGN_OR_RETURN(const std::int32_t osd, ParseOsd(osd_text));
      CRUSH_RETURN_IF_ERROR(AddTail(pg, osd, tail, out));
    }
  }
  return absl::OkStatus();
}

const Value* Field(const Struct& s, const char* name) {
  const auto it = s.fields().find(name);
  return it == s.fields().end() ? nullptr : &it->second;
}

// One `ceph pg PGID query` output.
absl::Status AddQuery(const Struct& q, PgLogTails* out) {
  const Value* info = Field(q, "info");
  if (info == nullptr || !info->has_struct_value()) {
    return Error("a pg query output without an \"info\" object");
  }
  const Value* pgid = Field(info->struct_value(), "pgid");
  if (pgid == nullptr || !pgid->has_string_value()) {
    return Error("a pg query output without info.pgid");
  }
  // An EC PG's pgid carries its shard ("3.5s0").
  std::string pg_text = pgid->string_value();
  if (const std::size_t s = pg_text.find('s'); s != std::string::npos) pg_text.resize(s);
  CRUSH_ASSIGN_OR_RETURN(const PgId pg, PgOf(pg_text));
  const Value* primary = Field(q, "acting_primary");
  if (primary == nullptr) {
    const Value* acting = Field(q, "acting");
    if (acting != nullptr && acting->has_list_value() && acting->list_value().values_size() > 0) {
      primary = &acting->list_value().values(0);
    }
  }
  if (primary == nullptr) {
    return Error(absl::StrCat("pg ", FormatPgId(pg), ": no acting_primary or acting in the query"));
  }
  CRUSH_ASSIGN_OR_RETURN(const std::int32_t primary_osd, OsdOfValue(*primary));
  const Value* own = Field(info->struct_value(), "log_tail");
  if (own == nullptr) return Error(absl::StrCat("pg ", FormatPgId(pg), ": no info.log_tail"));
  CRUSH_RETURN_IF_ERROR(AddTail(pg, primary_osd, *own, out));
  const Value* peers = Field(q, "peer_info");
  if (peers == nullptr) return absl::OkStatus();
  if (!peers->has_list_value()) {
    return Error(absl::StrCat("pg ", FormatPgId(pg), ": peer_info is not a list"));
  }
  for (const Value& p : peers->list_value().values()) {
    if (!p.has_struct_value()) {
      return Error(absl::StrCat("pg ", FormatPgId(pg), ": a peer_info entry is not an object"));
    }
    const Value* peer = Field(p.struct_value(), "peer");
    const Value* tail = Field(p.struct_value(), "log_tail");
    if (peer == nullptr || tail == nullptr) {
      return Error(
          absl::StrCat("pg ", FormatPgId(pg), ": a peer_info entry without peer or log_tail"));
    }
    CRUSH_ASSIGN_OR_RETURN(const std::int32_t osd, OsdOfValue(*peer));
    CRUSH_RETURN_IF_ERROR(AddTail(pg, osd, *tail, out));
  }
  return absl::OkStatus();
}

}  // namespace log_tails_json

std::optional<LogVersion> PgLogTails::Find(const PgId& pg, std::int32_t osd) const {
  const auto p = tails.find(pg);
  if (p == tails.end()) return std::nullopt;
  const auto o = p->second.find(osd);
  if (o == p->second.end()) return std::nullopt;
  return o->second;
}

absl::StatusOr<LogVersion> ParseLogVersion(absl::string_view text) {
  const std::size_t quote = text.find('\'');
  const absl::string_view epoch_text = text.substr(0, quote);
  const absl::string_view version_text =
      quote == absl::string_view::npos ? absl::string_view() : text.substr(quote + 1);
  std::uint64_t epoch = 0;
  LogVersion v;
  if (!log_tails_json::AllDigits(epoch_text) || !log_tails_json::AllDigits(version_text) ||
      !absl::SimpleAtoi(epoch_text, &epoch) || epoch > std::numeric_limits<std::uint32_t>::max() ||
      !absl::SimpleAtoi(version_text, &v.version)) {
    return absl::InvalidArgumentError(absl::StrCat("log version ", log_tails_json::Quote(text),
                                                   ": expected EPOCH'VERSION, e.g. 46'50"));
  }
  v.epoch = static_cast<std::uint32_t>(epoch);
  return v;
}

absl::StatusOr<PgLogTails> ParseLogTailsJson(absl::string_view json) {
  google::protobuf::Value root;
  const auto parsed = google::protobuf::util::JsonStringToMessage(std::string(json), &root);
  if (!parsed.ok()) {
    return log_tails_json::Error(
        absl::StrCat("not JSON (", log_tails_json::Quote(std::string(parsed.message())), ")"));
  }
  PgLogTails out;
  if (root.has_list_value()) {
    for (const google::protobuf::Value& q : root.list_value().values()) {
      if (!q.has_struct_value())
        return log_tails_json::Error("a list entry is not a pg query object");
      CRUSH_RETURN_IF_ERROR(log_tails_json::AddQuery(q.struct_value(), &out));
    }
    return out;
  }
  if (!root.has_struct_value()) {
    return log_tails_json::Error(
        "expected an object PG -> {OSD -> log_tail}, a result.json, or pg query output");
  }
  const google::protobuf::Struct& s = root.struct_value();
  if (const google::protobuf::Value* inner = log_tails_json::Field(s, "log_tails");
      inner != nullptr) {
    if (!inner->has_struct_value()) return log_tails_json::Error("\"log_tails\" is not an object");
    CRUSH_RETURN_IF_ERROR(log_tails_json::AddMap(inner->struct_value(), &out));
    return out;
  }
  if (log_tails_json::Field(s, "info") != nullptr) {
    CRUSH_RETURN_IF_ERROR(log_tails_json::AddQuery(s, &out));
    return out;
  }
  CRUSH_RETURN_IF_ERROR(log_tails_json::AddMap(s, &out));
  return out;
}

}  // namespace crushkit::osdmap
