// The bytes phase of the upmap balancer (upmap_balancer_bytes.h): per device
// class, the fullest OSD's shards go to the emptiest OSDs that fit the rule
// and the PG count window, or are swapped for smaller shards of theirs.
#include "osdmap/balancer/upmap_balancer_bytes.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include "osdmap/model/crush_placement.h"

namespace crushkit::osdmap::internal {
namespace {

// The emptiest (or fullest) OSDs of a class a shard may go to (or come
// from): nearly every useful move lands on the first few, and the swap
// search is quadratic in shards per OSD for each of them.
constexpr std::size_t kFirstPartners = 6;
constexpr std::size_t kPartners = 64;
// Back-shards tried per shard in a swap, either side of the ideal size.
constexpr std::ptrdiff_t kSwapNeighbours = 3;
// Candidates tried against the rule per search (each a failure-domain
// check, then CrushWrapper::verify_upmap); past this the class is stuck.
constexpr std::size_t kMaxChecks = 4000;
constexpr double kTiB = 1024.0 * 1024 * 1024 * 1024;
// Moves with the other end of the class tried against the rule when a
// search fails, to tell "too few PGs" from "rule constraint".
constexpr int kMaxClassifyChecks = 32;
// Gains below this many percentage points are noise, not moves.
constexpr double kMinGain = 1e-6;

std::string OsdName(std::int32_t osd) { return absl::StrCat("osd.", osd); }

std::string Size(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t u = 0;
  while (bytes >= 1024 && u + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++u;
  }
  return absl::StrFormat("%.1f %s", bytes, kUnits[u]);
}

}  // namespace

BytesBalancer::BytesBalancer(const ClusterState& state, std::vector<PoolBalancer*> pools,
                             std::vector<std::vector<double>> shard_bytes, double max_deviation,
                             double max_spread)
    : state_(state),
      pools_(std::move(pools)),
      shard_bytes_(std::move(shard_bytes)),
      max_deviation_(std::max(1.0, max_deviation)),
      max_spread_(max_spread) {
  const auto n = static_cast<std::size_t>(state.max_osd());
  capacity_.assign(n, 0);
  used_.assign(n, 0);
  from_osd_df_ = !state.osd_usage.empty();
  if (from_osd_df_) {
    base_usage_ = state.osd_usage;
  } else {
    // No `ceph osd df`: a CRUSH weight of 1.0 is 1 TiB (as the planner
    // reads it), and an OSD holds the shards of the balanced pools.
    const std::vector<std::optional<crush::Weight>> weights = DeviceCrushWeights(state.crush);
    std::vector<double> held(n, 0);
    for (std::size_t i = 0; i < pools_.size(); ++i) {
      for (std::size_t o = 0; o < n; ++o) {
        for (std::uint32_t ps : pools_[i]->PgsOf(static_cast<std::int32_t>(o))) {
          held[o] += shard_bytes_[i][ps];
        }
      }
    }
    for (std::size_t o = 0; o < n && o < weights.size(); ++o) {
      if (!weights[o] || *weights[o] == 0 || !state.Exists(static_cast<std::int32_t>(o))) continue;
      OsdUsage u;
      u.kb = static_cast<std::uint64_t>(static_cast<double>(*weights[o]) / 65536.0 * kTiB / 1024);
      u.kb_used = std::min(u.kb, static_cast<std::uint64_t>(std::llround(held[o] / 1024)));
      u.kb_avail = u.kb - u.kb_used;
      base_usage_[static_cast<std::int32_t>(o)] = u;
    }
  }
  // A class's OSDs: up, in, with a capacity, and a target of a balanced
  // pool (so a move can reach them).
  std::map<std::string, std::vector<std::int32_t>> by_class;
  const crush::MapModel& map = state.crush;
  for (const auto& [osd, u] : base_usage_) {
    if (osd < 0 || static_cast<std::size_t>(osd) >= n || u.kb == 0) continue;
    if (!state.IsUp(osd) || !state.IsIn(osd)) continue;
    const bool reachable = std::any_of(pools_.begin(), pools_.end(),
                                       [&](const PoolBalancer* p) { return p->CanTarget(osd); });
    if (!reachable) continue;
    capacity_[Idx(osd)] = static_cast<double>(u.kb) * 1024;
    used_[Idx(osd)] = static_cast<double>(std::min(u.kb_used, u.kb)) * 1024;
    std::string name;
    if (auto it = map.class_map.find(osd); it != map.class_map.end()) {
      if (auto nt = map.class_names.find(it->second); nt != map.class_names.end()) {
        name = nt->second;
      }
    }
    by_class[name].push_back(osd);
  }
  used_start_ = used_;
  for (auto& [name, osds] : by_class) {
    ClassState& c = classes_.emplace_back();
    c.name = name;
    c.osds = std::move(osds);
    c.before = Spread(c);
  }
}

double BytesBalancer::Pct(std::int32_t osd) const {
  return used_[Idx(osd)] / capacity_[Idx(osd)] * 100;
}

FillSpread BytesBalancer::Spread(const ClassState& c) const {
  FillSpread s;
  for (std::int32_t o : c.osds) {
    const double p = Pct(o);
    if (s.osds == 0 || p > s.fullest_pct) {
      s.fullest_pct = p;
      s.fullest_osd = o;
    }
    if (s.osds == 0 || p < s.emptiest_pct) {
      s.emptiest_pct = p;
      s.emptiest_osd = o;
    }
    ++s.osds;
  }
  return s;
}

std::vector<BytesBalancer::Shard> BytesBalancer::ShardsOf(std::int32_t osd) const {
  std::vector<Shard> out;
  for (std::size_t i = 0; i < pools_.size(); ++i) {
    for (std::uint32_t ps : pools_[i]->PgsOf(osd)) {
      const double b = shard_bytes_[i][ps];
      if (b <= 0 || !pools_[i]->Movable(ps)) continue;
      const int pos = pools_[i]->PositionOf(ps, osd);
      if (pos >= 0) out.push_back(Shard{static_cast<int>(i), ps, pos, b});
    }
  }
  return out;
}

bool BytesBalancer::CountsAllow(int pool, std::int32_t from, std::int32_t to) const {
  const PoolBalancer& p = *pools_[static_cast<std::size_t>(pool)];
  // Ceph's calc_pg_upmaps leaves a pool alone while every OSD is within
  // max_deviation of its target (|PGs - target| <= deviation).
  return p.Dev(to) + 1 <= max_deviation_ + 1e-9 && p.Dev(from) - 1 >= -max_deviation_ - 1e-9;
}

bool BytesBalancer::Improve(const ClassState& c, std::int32_t anchor, bool lower, Block* why,
                            int budget, int* moves) {
  // Partners: the emptiest OSDs below the anchor (lowering) or the fullest
  // above it (raising), closest to the other end first; a few at first, all
  // the head when those give nothing.
  const double x_anchor = Pct(anchor);
  std::vector<std::pair<double, std::int32_t>> ranked;  // (%USE, OSD)
  for (std::int32_t o : c.osds) {
    const double p = Pct(o);
    if (o != anchor && (lower ? p < x_anchor : p > x_anchor)) ranked.emplace_back(p, o);
  }
  const auto closer_to_end = [&](const std::pair<double, std::int32_t>& a,
                                 const std::pair<double, std::int32_t>& b) {
    if (a.first != b.first) return lower ? a.first < b.first : a.first > b.first;
    return a.second < b.second;
  };
  const std::size_t head = std::min(kPartners, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(head),
                    ranked.end(), closer_to_end);
  std::vector<std::int32_t> partners(head);
  for (std::size_t i = 0; i < head; ++i) partners[i] = ranked[i].second;
  const std::vector<Shard> anchor_shards = ShardsOf(anchor);
  Block worst = Block::kSinglePg;
  std::size_t done = 0;
  for (const std::size_t tier : {kFirstPartners, kPartners}) {
    const std::size_t upto = std::min(tier, partners.size());
    if (upto <= done) break;
    Block w = Block::kSinglePg;
    if (TryPartners(std::span(partners).subspan(done, upto - done), anchor, anchor_shards, lower,
                    budget, moves, &w)) {
      return true;
    }
    worst = std::max(worst, w);
    done = upto;
  }
  *why = worst;
  return false;
}

void BytesBalancer::CollectCandidates(std::span<const std::int32_t> partners, std::int32_t anchor,
                                      const std::vector<Shard>& anchor_shards, bool lower) {
  const double x_anchor = Pct(anchor);
  // How much the anchor gets closer to the middle when `bytes` go from src
  // to dst, without the partner passing the anchor's old fill.
  const auto gain = [&](std::int32_t src, std::int32_t dst, double bytes) {
    const double xs = Pct(src) - bytes / capacity_[Idx(src)] * 100;
    const double xd = Pct(dst) + bytes / capacity_[Idx(dst)] * 100;
    return lower ? x_anchor - std::max(xs, xd) : std::min(xs, xd) - x_anchor;
  };
  std::vector<Candidate>& cands = cands_;
  cands.clear();
  std::vector<Shard> dst_shards;
  for (std::int32_t partner : partners) {
    const std::int32_t src = lower ? anchor : partner;
    const std::int32_t dst = lower ? partner : anchor;
    std::vector<Shard> partner_shards = ShardsOf(partner);
    const std::vector<Shard>& src_shards = lower ? anchor_shards : partner_shards;
    for (const Shard& s : src_shards) {
      if (!pools_[static_cast<std::size_t>(s.pool)]->CanTarget(dst)) continue;
      const double g = gain(src, dst, s.bytes);
      if (g > kMinGain) cands.push_back(Candidate{g, s, src, dst, false, Shard{}});
    }
    // Swaps: a big shard out, a smaller one back, so PG counts hold (same
    // pool) while bytes move. The best difference evens the two OSDs out;
    // only the few back-shards nearest to it are tried.
    if (lower) {
      dst_shards = std::move(partner_shards);
    } else {
      dst_shards = anchor_shards;
    }
    std::sort(dst_shards.begin(), dst_shards.end(),
              [](const Shard& a, const Shard& b) { return a.bytes < b.bytes; });
    const double ideal =
        (Pct(src) - Pct(dst)) / 100 / (1 / capacity_[Idx(src)] + 1 / capacity_[Idx(dst)]);
    for (const Shard& p : src_shards) {
      if (!pools_[static_cast<std::size_t>(p.pool)]->CanTarget(dst)) continue;
      const auto mid =
          std::lower_bound(dst_shards.begin(), dst_shards.end(), p.bytes - ideal,
                           [](const Shard& q, double bytes) { return q.bytes < bytes; });
      const std::ptrdiff_t at = mid - dst_shards.begin();
      const std::ptrdiff_t lo = std::max<std::ptrdiff_t>(0, at - kSwapNeighbours);
      const std::ptrdiff_t hi =
          std::min<std::ptrdiff_t>(std::ssize(dst_shards), at + kSwapNeighbours);
      for (std::ptrdiff_t k = lo; k < hi; ++k) {
        const Shard& q = dst_shards[static_cast<std::size_t>(k)];
        if (q.bytes >= p.bytes || (q.pool == p.pool && q.ps == p.ps)) continue;
        if (!pools_[static_cast<std::size_t>(q.pool)]->CanTarget(src)) continue;
        const double g = gain(src, dst, p.bytes - q.bytes);
        if (g > kMinGain) cands.push_back(Candidate{g, p, src, dst, true, q});
      }
    }
  }
}

bool BytesBalancer::FitsRule(const Candidate& cand) const {
  return pools_[static_cast<std::size_t>(cand.out.pool)]->CanMove(cand.out.ps, cand.out.pos,
                                                                  cand.dst) &&
         (!cand.swap || pools_[static_cast<std::size_t>(cand.back.pool)]->CanMove(
                            cand.back.ps, cand.back.pos, cand.src));
}

bool BytesBalancer::TryPartners(std::span<const std::int32_t> partners, std::int32_t anchor,
                                const std::vector<Shard>& anchor_shards, bool lower, int budget,
                                int* moves, Block* why) {
  CollectCandidates(partners, anchor, anchor_shards, lower);
  std::vector<Candidate>& cands = cands_;
  if (cands.empty()) {
    *why = Block::kSinglePg;
    return false;
  }
  // Best gain first; a single move before a swap of equal gain (it moves
  // less); then ids, so the order does not depend on the container. Taken
  // from a heap: one of the first few candidates nearly always fits, and
  // sorting them all cost more than the search.
  const auto key = [](const Candidate& x) {
    return std::make_tuple(-x.gain, x.swap, x.src, x.dst, x.out.pool, x.out.ps, x.back.pool,
                           x.back.ps);
  };
  const auto before = [&](const Candidate& a, const Candidate& b) { return key(a) < key(b); };
  // The heap holds (gain, index): gains rarely tie, so most compares and
  // every swap stay small.
  order_.clear();
  for (std::size_t i = 0; i < cands.size(); ++i) order_.emplace_back(cands[i].gain, i);
  const auto after = [&](const std::pair<double, std::size_t>& a,
                         const std::pair<double, std::size_t>& b) {
    if (a.first != b.first) return a.first < b.first;
    return before(cands[b.second], cands[a.second]);
  };
  std::make_heap(order_.begin(), order_.end(), after);
  // The PG counts first (cheap), then the rule.
  std::size_t checks = 0;
  for (auto end = order_.end(); end != order_.begin() && checks < kMaxChecks; --end) {
    std::pop_heap(order_.begin(), end, after);
    const Candidate& cand = cands[(end - 1)->second];
    if (cand.swap && budget < 2) continue;
    const bool counts_ok =
        cand.swap && cand.out.pool == cand.back.pool
            ? true
            : CountsAllow(cand.out.pool, cand.src, cand.dst) &&
                  (!cand.swap || CountsAllow(cand.back.pool, cand.dst, cand.src));
    if (!counts_ok) continue;
    ++checks;
    if (FitsRule(cand) && Make(cand, moves)) return true;
  }
  // What stops the moves to (or from) the other end of the class: the
  // rule, else the counts.
  std::sort(cands.begin(), cands.end(), before);
  const std::int32_t far = partners.front();
  int tried = 0;
  bool far_fits = false;
  for (const Candidate& cand : cands) {
    if ((lower ? cand.dst : cand.src) != far) continue;
    if (FitsRule(cand)) {
      far_fits = true;
      break;
    }
    if (++tried == kMaxClassifyChecks) break;
  }
  if (tried == 0 && !far_fits) far_fits = FitsRule(cands.front());
  *why = far_fits ? Block::kFewPgs : Block::kRule;
  return false;
}

bool BytesBalancer::Make(const Candidate& cand, int* moves) {
  const auto move = [&](const Shard& s, std::int32_t from, std::int32_t to) {
    if (!pools_[static_cast<std::size_t>(s.pool)]->MovePg(s.ps, s.pos, from, to)) return false;
    used_[Idx(from)] -= s.bytes;
    used_[Idx(to)] += s.bytes;
    ++*moves;
    return true;
  };
  if (!move(cand.out, cand.src, cand.dst)) return false;
  if (cand.swap) move(cand.back, cand.dst, cand.src);
  return true;
}

std::string BytesBalancer::Describe(Block why, std::int32_t osd, bool lower) const {
  const std::string at = absl::StrFormat("%s at %.1f%%", OsdName(osd), Pct(osd));
  switch (why) {
    case Block::kSinglePg: {
      double smallest = 0;
      double largest = 0;
      for (std::size_t p = 0; p < pools_.size(); ++p) {
        for (std::uint32_t ps : pools_[p]->PgsOf(osd)) {
          const double b = shard_bytes_[p][ps];
          if (smallest == 0 || b < smallest) smallest = b;
          largest = std::max(largest, b);
        }
      }
      if (largest == 0) return absl::StrCat(at, ": no PG shard the balancer may move");
      return absl::StrFormat(
          "%s: its PG shards (%s to %s, up to %.2f points of it) overshoot wherever they "
          "go: every move or swap would leave the %s OSD it could reach %s than this one",
          at, Size(smallest), Size(largest), largest / capacity_[Idx(osd)] * 100,
          lower ? "emptiest" : "fullest", lower ? "fuller" : "emptier");
    }
    case Block::kFewPgs:
      return absl::StrFormat(
          "%s: every move that helps would take a pool's PG count past --deviation %g on "
          "%s or its partner, and no swap within one pool helps",
          at, max_deviation_, OsdName(osd));
    case Block::kRule:
      return absl::StrFormat(
          "%s: the moves that help break the pool's rule (failure domain, device class or "
          "upmap slots)",
          at);
    case Block::kNone:
      break;
  }
  return at;
}

int BytesBalancer::Step(int budget) {
  if (budget <= 0) return 0;
  // The class furthest past its spread first.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < classes_.size(); ++i) {
    if (!classes_[i].done) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const double sa = Spread(classes_[a]).spread();
    const double sb = Spread(classes_[b]).spread();
    return sa != sb ? sa > sb : a < b;
  });
  for (std::size_t i : order) {
    ClassState& c = classes_[i];
    const FillSpread s = Spread(c);
    if (s.osds < 2 || s.spread() <= max_spread_) {
      c.done = true;
      c.stop_reason = "balanced";
      continue;
    }
    int moves = 0;
    if (c.top_stuck != s.fullest_osd) {
      Block why = Block::kNone;
      if (Improve(c, s.fullest_osd, /*lower=*/true, &why, budget, &moves)) {
        c.moves += moves;
        c.top_stuck = -1;
        return moves;
      }
      c.top_stuck = s.fullest_osd;
      c.top_block = why;
    }
    Block why = Block::kNone;
    if (Improve(c, s.emptiest_osd, /*lower=*/false, &why, budget, &moves)) {
      c.moves += moves;
      // A move from the fullest unblocks it (its counts changed).
      if (c.top_stuck >= 0 && Pct(c.top_stuck) != s.fullest_pct) c.top_stuck = -1;
      return moves;
    }
    c.done = true;
    // One shard that is half the spread or more is the imbalance itself:
    // wherever it goes, that OSD is the fullest.
    double largest = 0;
    for (std::size_t p = 0; p < pools_.size(); ++p) {
      for (std::uint32_t ps : pools_[p]->PgsOf(s.fullest_osd)) {
        largest = std::max(largest, shard_bytes_[p][ps]);
      }
    }
    if (largest / capacity_[Idx(s.fullest_osd)] * 100 >= s.spread() / 2) {
      c.top_block = Block::kSinglePg;
    }
    static constexpr const char* kReason[] = {"no improving move", "a single large PG",
                                              "too few PGs", "rule constraint"};
    c.stop_reason = kReason[static_cast<int>(c.top_block)];
    c.detail = Describe(c.top_block, s.fullest_osd, /*lower=*/true);
    if (c.top_block == Block::kNone) {
      c.stop_reason = kReason[static_cast<int>(why)];
      c.detail = Describe(why, s.emptiest_osd, /*lower=*/false);
    }
  }
  return 0;
}

void BytesBalancer::BudgetSpent() {
  for (ClassState& c : classes_) {
    if (c.done) continue;
    c.done = true;
    const bool balanced = Spread(c).osds < 2 || Spread(c).spread() <= max_spread_;
    c.stop_reason = balanced ? "balanced" : "max changes";
  }
}

std::vector<ClassBalance> BytesBalancer::Classes() const {
  std::vector<ClassBalance> out;
  for (const ClassState& c : classes_) {
    ClassBalance b;
    b.device_class = c.name;
    b.before = c.before;
    b.after = Spread(c);
    b.moves = c.moves;
    b.stop_reason = c.stop_reason;
    b.detail = c.detail;
    out.push_back(std::move(b));
  }
  return out;
}

std::map<std::int32_t, std::int64_t> BytesBalancer::DeltaBytes() const {
  std::map<std::int32_t, std::int64_t> out;
  for (std::size_t o = 0; o < used_.size(); ++o) {
    const double d = used_[o] - used_start_[o];
    if (d != 0) out[static_cast<std::int32_t>(o)] = std::llround(d);
  }
  return out;
}

void BytesBalancer::Record(int pool, std::uint32_t ps, std::int32_t from, std::int32_t to) {
  const double b = shard_bytes_[static_cast<std::size_t>(pool)][ps];
  if (capacity_[Idx(from)] > 0) used_[Idx(from)] -= b;
  if (capacity_[Idx(to)] > 0) used_[Idx(to)] += b;
}

}  // namespace crushkit::osdmap::internal
