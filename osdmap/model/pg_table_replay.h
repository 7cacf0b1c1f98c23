// One state's mapping recorded once and replayed by MANY other states: the
// before state of a change mapped a single time, with every PG's CRUSH
// result, visited-bucket signature and straw2 choices (crush::ChoiceLog) in
// an arena indexed by PG; then each after state (every alternative of a
// comparison, every step of a staged plan) is mapped through it:
// - a PG whose descent visited no bucket the after state changed (and
//   whose pool's CRUSH inputs are unchanged; pg_mapping_incremental.h),
//   or whose recorded choices in the changed buckets all keep their
//   winner there (crush::RecordedChoicesHold; its record complete),
//   takes the recorded CRUSH result, and only the steps after CRUSH run;
// - any other PG goes through CRUSH on the after state replaying its
//   recorded choices (crush::ChoiceDelta): a bucket the after state keeps
//   gives the recorded winner, one whose items changed draws only the
//   changed items against the recorded winner, and only a bucket whose
//   winner changed is drawn in full.
// Same tables as MapAllPgs() of the after state, bit for bit
// (MapAllOptions::verify_incremental / CRUSHKIT_VERIFY_INCREMENTAL=1 map
// every PG in full as well and compare).
//
// Memory: RecordedMapping::bytes(); about 8 bytes per straw2 choice (a
// replicated 3-level descent makes ~9 per PG), plus 4 per CRUSH result
// slot and 13 per PG, besides the before table itself.
//
// Thread-safety: a RecordedMapping is immutable once made; any number of
// threads may map through it at once.
#ifndef CRUSHKIT_OSDMAP_MODEL_PG_TABLE_REPLAY_H_
#define CRUSHKIT_OSDMAP_MODEL_PG_TABLE_REPLAY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "crush/choice_memo.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_table.h"

namespace crushkit::osdmap {

class RecordedMapping {
 public:
  // Maps every PG of `session`'s state (as MapAllPgs(*session, options):
  // options.threads, .acting, .progress; every pool) and records them.
  // Cost: one CRUSH mapping per PG plus the recording; memory as above.
  static std::shared_ptr<const RecordedMapping> Record(
      std::shared_ptr<const MappingSession> session, const MapAllOptions& options = {});

  // Same, over a session of its own: `session`'s state copied, its crush
  // map shared.
  static std::shared_ptr<const RecordedMapping> Record(const MappingSession& session,
                                                       const MapAllOptions& options = {});

  const MappingSession& session() const { return *session_; }

  // The recorded state's table (MapAllPgs; acting sets when acting()).
  const PgTable& table() const { return table_; }

  bool acting() const { return acting_; }

  // True iff `state` maps every PG exactly as the recorded state does
  // (the same crush map, OSDs, pools and upmaps), so that table() is its
  // table.
  bool Records(const ClusterState& state) const;

  // Bytes held beyond table(): CRUSH results, signatures, choices.
  std::size_t bytes() const;

  // Straw2 choices recorded, over all PGs.
  std::uint64_t choices() const;

  // One pool's records, PG by PG.
  struct PoolRecord {
    std::int64_t pool_id = 0;
    std::uint32_t pg_num = 0;
    int width = 0;  // CRUSH result slots per PG
    // The choose_args key every PG was recorded under; replay only when
    // `replayable` (one key for the whole pool).
    std::int64_t args_key = crush::kNoChooseArgsKey;
    bool replayable = true;
    std::vector<std::int32_t> crush;  // pg_num x width
    std::vector<std::uint8_t> crush_len;
    // Workspace::visited_buckets of the PG's descent; all ones when its
    // CRUSH result does not fit `width` (never reused).
    std::vector<std::uint64_t> visited;
    // The choices of PGs [k * chunk_pgs, (k + 1) * chunk_pgs) in arenas[k]
    // (one per recording chunk: nothing is copied after mapping); PG ps's
    // start at choice_at[ps] there, choice_n[ps] of them.
    std::uint32_t chunk_pgs = 1;
    std::vector<std::vector<crush::RecordedChoice>> arenas;
    std::vector<std::uint32_t> choice_at;
    std::vector<std::uint16_t> choice_n;

    std::span<const crush::RecordedChoice> Choices(std::uint32_t ps) const {
      return {arenas[ps / chunk_pgs].data() + choice_at[ps], choice_n[ps]};
    }
  };

  // The pool's records, or nullptr.
  const PoolRecord* Find(std::int64_t pool_id) const;

 private:
  RecordedMapping() = default;

  std::shared_ptr<const MappingSession> session_;
  PgTable table_;
  bool acting_ = false;
  std::vector<PoolRecord> pools_;  // in pool id order, as table_.pools
};

// How a replayed mapping went (MapAllPgsReplayed).
struct ReplayStats {
  std::uint64_t crush_reused = 0;    // PGs that took the recorded CRUSH result
  std::uint64_t crush_replayed = 0;  // PGs mapped through CRUSH replaying choices
  std::uint64_t crush_mapped = 0;    // PGs mapped through CRUSH without a record
  // verify_incremental: PGs whose full mapping differs, and the first.
  std::uint64_t verify_mismatches = 0;
  std::string first_mismatch;
};

// The PGs whose recorded CRUSH result holds on a target state (decided as
// MapAllPgsReplayed decides it, once), so that the states on the way from
// the recorded state to the target (a staged plan's steps, weights walked
// up) need not decide again for each. Exact on a state the target Covers():
// its crush map differs from the target's only in straw2 item weights, each
// lower than the target's and on an item the target changed from the
// recorded map, and its OSDs, pools and release are the target's. There a
// kept PG's descent makes the target's choices: in a bucket the target keeps
// nothing differs either; in a changed one the recorded winner is an item
// the target did not change (so neither does the state) and every other
// item draws at most what it draws in the target, where it lost (a straw2
// draw never decreases as the weight grows; ties go to the lower index in
// both maps alike).
//
// With the target's table (`target_rows`), a kept PG's up set and primary
// on such a state are its row there wherever its upmap entries are the
// target's (the steps after CRUSH read only the PG's CRUSH result, upmaps,
// pool and the OSDs, all equal): MapAllPgsReplayed() copies that row
// instead of mapping the PG from its CRUSH result.
//
// Memory: a byte per PG. Thread-safety: immutable once made.
class KeptPgs {
 public:
  // Decides every recorded PG on `target` (options.threads; the rest of
  // `options` is ignored). `target_rows`, when not null, is MapAllPgs() of
  // `target`'s state (up sets; acting ignored), shared with the caller.
  // Cost: as the decision part of one MapAllPgsReplayed() call (no
  // descents, no tables).
  static std::shared_ptr<const KeptPgs> Find(std::shared_ptr<const RecordedMapping> recorded,
                                             std::shared_ptr<const MappingSession> target,
                                             const MapAllOptions& options = {},
                                             std::shared_ptr<const PgTable> target_rows = nullptr);

  // The KeptPgs Find() makes, from the decisions a mapping of `target`
  // through `recorded` made already: `held` as MapAllPgsReplayed(*recorded,
  // *target, options, stats, nullptr, &held) leaves it (no only_pool).
  // nullptr when `held` does not fit target's pools. Cost: none beyond
  // the moves.
  static std::shared_ptr<const KeptPgs> FromHeld(std::shared_ptr<const RecordedMapping> recorded,
                                                 std::shared_ptr<const MappingSession> target,
                                                 std::vector<std::vector<std::uint8_t>> held,
                                                 std::shared_ptr<const PgTable> target_rows);

  // True iff the kept PGs keep their recorded CRUSH result on `state` too
  // (see above), for a mapping through `recorded`. Cost: linear in the
  // crush maps.
  bool Covers(const RecordedMapping& recorded, const ClusterState& state) const;

  // One byte per PG of pool `pool_id` (non-zero: kept), or nullptr.
  const std::vector<std::uint8_t>* ForPool(std::int64_t pool_id) const;

  // Kept PGs, over all pools.
  std::uint64_t count() const;

  // The target's table of pool `pool_id` (Find's `target_rows`), or
  // nullptr (none given, or not of the target's pg_num).
  const PoolPgTable* RowsForPool(std::int64_t pool_id) const;

  // The state the kept PGs were decided on.
  const ClusterState& target() const { return target_->state(); }

 private:
  KeptPgs() = default;

  std::shared_ptr<const RecordedMapping> recorded_;
  std::shared_ptr<const MappingSession> target_;
  std::vector<std::int64_t> pool_ids_;
  std::vector<std::vector<std::uint8_t>> kept_;  // parallel to pool_ids_
  std::shared_ptr<const PgTable> rows_;          // Find's target_rows; may be null
};

// MapAllPgs(after, options) through `recorded` (see above): the same table,
// bit for bit. options.recorded is ignored. Pools or PGs the record lacks
// are mapped in full. `stats` may be nullptr. With
// options.verify_incremental (or CRUSHKIT_VERIFY_INCREMENTAL=1, fatal as
// in MapAllPgsPaired) every PG is also mapped in full and compared.
// Cost: per PG a CRUSH descent whose straw2 draws come from the record
// (changed items only), or no descent at all. With `kept` (found for
// `recorded`) where kept->Covers() `after`, its kept PGs take the recorded
// CRUSH result without a decision, and those whose upmaps are the
// target's copy its row (KeptPgs::RowsForPool; not with options.acting);
// otherwise it is ignored. With `held`, *held is set to one vector per
// pool mapped (in id order) of a byte per PG, 1 where the PG took its
// recorded CRUSH result (KeptPgs::FromHeld). With `earlier_held`, the
// `held` of a mapping through `recorded` of a state on the way from the
// recorded one to `after` (CRUSH weights only raised since; a staged plan's
// previous step), a PG it marks 0 is replayed without deciding whether its
// recorded result holds (it did not hold there): the table is the same
// either way; ignored unless it has `held`'s shape.
PgTable MapAllPgsReplayed(const RecordedMapping& recorded, const MappingSession& after,
                          const MapAllOptions& options, ReplayStats* stats = nullptr,
                          const KeptPgs* kept = nullptr,
                          std::vector<std::vector<std::uint8_t>>* held = nullptr,
                          const std::vector<std::vector<std::uint8_t>>* earlier_held = nullptr);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_PG_TABLE_REPLAY_H_
