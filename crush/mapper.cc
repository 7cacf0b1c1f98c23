// DoRule() (crush/mapper.h): crush_do_rule's conventional path, its bucket
// choices and the firstn/indep descents. The straw2 choice is in
// internal/mapper_straw2.h (inlined here), its memo paths in
// mapper_straw2_memo.cc, the Workspace in mapper_workspace.cc, the MSR
// rules in mapper_msr.cc.
#include "crush/mapper.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>

#include "crush/choice_memo.h"
#include "crush/hash.h"
#include "crush/internal/map_access.h"
#include "crush/internal/mapper_impl.h"
#include "crush/internal/mapper_straw2.h"
#include "crush/internal/straw2_draw.h"
#include "crush/internal/straw2_key_winner.h"
#include "crush/ln.h"
#include "crush/map.h"
#include "crush/types.h"

namespace crushkit::crush {

namespace {
// Ceph's perm_n marker: "only perm[0] is valid, from the r=0 shortcut".
constexpr std::uint32_t kPermShortcut = 0xffff;
}  // namespace

// PLACEMENT-STABLE: mapper.c bucket_perm_choose(), including the r == 0
// shortcut (perm_n = 0xffff) and the lazily extended Fisher-Yates shuffle
// whose state persists for the whole DoRule() call.
ItemId MapperImpl::PermChoose(const internal::FlatBucket& b, std::uint32_t r) {
  Workspace::PermState& st = ws_.perm_state_[static_cast<std::size_t>(BucketSlot(b.id))];
  std::uint32_t* perm = ws_.perm_.data() + b.perm;
  const ItemId* items = items_ + b.items;
  const std::uint32_t size = b.size;
  const auto id = static_cast<std::uint32_t>(b.id);
  if (st.generation != ws_.generation_) {  // crush_init_workspace(): perm_x = perm_n = 0
    st.generation = ws_.generation_;
    st.x = 0;
    st.n = 0;
  }
  const std::uint32_t pr = r % size;
  if (st.x != x_ || st.n == 0) {
    st.x = x_;
    if (pr == 0) {
      const std::uint32_t s = Hash32_3(x_, id, 0) % size;
      perm[0] = s;
      st.n = kPermShortcut;
      return items[s];
    }
    Spend(size);
    for (std::uint32_t i = 0; i < size; ++i) perm[i] = i;
    st.n = 0;
  } else if (st.n == kPermShortcut) {
    Spend(size);
    for (std::uint32_t i = 1; i < size; ++i) perm[i] = i;
    perm[perm[0]] = 0;
    st.n = 1;
  }
  while (st.n <= pr) {
    const std::uint32_t p = st.n;
    if (p < size - 1) {
      const std::uint32_t i = Hash32_3(x_, id, p) % (size - p);
      if (i != 0) std::swap(perm[p + i], perm[p]);
    }
    ++st.n;
  }
  return items[perm[pr]];
}

// PLACEMENT-STABLE: mapper.c bucket_list_choose().
ItemId MapperImpl::ListChoose(const internal::FlatBucket& b, std::uint32_t r) const {
  const ItemId* items = items_ + b.items;
  const Weight* item_weights = weights_ + b.weights;
  const Weight* sum_weights = weights_ + b.aux;
  const auto id = static_cast<std::uint32_t>(b.id);
  for (std::uint32_t i = b.size; i-- > 0;) {
    std::uint64_t w = Hash32_4(x_, static_cast<std::uint32_t>(items[i]), r, id) & 0xffffu;
    w = (w * sum_weights[i]) >> 16;
    if (w < item_weights[i]) return items[i];
  }
  return items[0];
}

// PLACEMENT-STABLE: mapper.c bucket_tree_choose(). Build() guarantees a
// power-of-two node count, so the descent stays inside node_weights.
ItemId MapperImpl::TreeChoose(const internal::FlatBucket& b, std::uint32_t r) const {
  const Weight* node_weights = weights_ + b.weights;
  const auto id = static_cast<std::uint32_t>(b.id);
  std::uint32_t n = b.num_nodes >> 1;
  while ((n & 1u) == 0) {
    const std::uint32_t w = node_weights[n];
    const std::uint64_t t =
        (static_cast<std::uint64_t>(Hash32_4(x_, n, r, id)) * std::uint64_t{w}) >> 32;
    const std::uint32_t half = 1u << (std::countr_zero(n) - 1);
    const std::uint32_t left = n - half;
    n = t < node_weights[left] ? left : n + half;
  }
  const std::uint32_t leaf = n >> 1;
  // Ceph reads past items[] here (only reachable with all-zero weights);
  // report "no item", which the callers treat as a bad item.
  if (leaf >= b.size) {
    ws_.tree_out_of_range_ = true;
    return kItemNone;
  }
  return items_[b.items + leaf];
}

// PLACEMENT-STABLE: mapper.c bucket_straw_choose(); ties keep the lower index.
ItemId MapperImpl::StrawChoose(const internal::FlatBucket& b, std::uint32_t r) const {
  const ItemId* items = items_ + b.items;
  const Weight* straws = weights_ + b.aux;
  std::uint32_t high = 0;
  std::uint64_t high_draw = 0;
  for (std::uint32_t i = 0; i < b.size; ++i) {
    std::uint64_t draw = Hash32_3(x_, static_cast<std::uint32_t>(items[i]), r) & 0xffffu;
    draw *= straws[i];
    if (i == 0 || draw > high_draw) {
      high = i;
      high_draw = draw;
    }
  }
  return items[high];
}

ItemId MapperImpl::Straw2Choose(const internal::FlatBucket& b, std::uint32_t r, int position) {
  if (memo_) [[unlikely]]
    return MemoStraw2Choose(b, r, position);
  return PlainStraw2Choose(b, r, position);
}

// mapper.c crush_bucket_choose(). REQUIRES: b.size > 0.
ItemId MapperImpl::BucketChoose(const internal::FlatBucket& b, std::uint32_t r, int position) {
  switch (b.alg) {
    case BucketAlg::kUniform:
      Spend(kChooseCost);
      return PermChoose(b, r);
    case BucketAlg::kList:
      Spend(kChooseCost + b.size);
      return ListChoose(b, r);
    case BucketAlg::kTree:
      Spend(kChooseCost);
      return TreeChoose(b, r);
    case BucketAlg::kStraw:
      Spend(kChooseCost + b.size);
      return StrawChoose(b, r);
    case BucketAlg::kStraw2:
      Spend(kChooseCost + b.size);
      return Straw2Choose(b, r, position);
    case BucketAlg::kNone:
      break;
  }
  return items_[b.items];
}

// PLACEMENT-STABLE: mapper.c is_out(). REQUIRES: item >= 0.
bool MapperImpl::IsOut(ItemId item) const {
  if (item >= weight_max_) return true;
  if (item < 0) {
    // A bucket of type 0 reached as a leaf: Ceph indexes weight[] with the
    // negative id (out of bounds). crushkit keeps it "in" and says so.
    ws_.tree_out_of_range_ = true;
    return false;
  }
  const Weight w = reweights_[item];
  if (w >= kWeightOne) return false;
  if (w == 0) return true;
  return (Hash32_2(x_, static_cast<std::uint32_t>(item)) & 0xffffu) >= w;
}

// PLACEMENT-STABLE: mapper.c crush_choose_firstn(). Matches its retry order
// (local collision retries, local fallback via the permutation, then a new
// descent from `bucket`) and its unsigned arithmetic; do not simplify.
// Mirrors Ceph's crush_choose_firstn() (src/crush/mapper.c) line by line.
int MapperImpl::ChooseFirstn(const internal::FlatBucket& bucket, int numrep, int type, ItemId* out,
                             int outpos, int out_size, std::uint32_t tries,
                             std::uint32_t recurse_tries, std::uint32_t local_retries,
                             std::uint32_t local_fallback_retries, bool recurse_to_leaf,
                             std::uint32_t vary_r, std::uint32_t stable, ItemId* out2,
                             int parent_r) {
  int count = out_size;
  // Once the budget is spent every remaining rep is skipped: stop instead of
  // counting up to an absurd numrep.
  for (int rep = stable != 0 ? 0 : outpos; rep < numrep && count > 0 && !ws_.exhausted_; ++rep) {
    std::uint32_t ftotal = 0;
    bool skip_rep = false;
    bool retry_descent = false;
    ItemId item = 0;
    do {
      retry_descent = false;
      const internal::FlatBucket* in = &bucket;
      std::uint32_t flocal = 0;
      bool retry_bucket = false;
      do {
        bool collide = false;
        bool reject = false;
        retry_bucket = false;
        if (ws_.exhausted_) {
          skip_rep = true;
          break;
        }
        const auto r = static_cast<std::int32_t>(static_cast<std::uint32_t>(rep) +
                                                 static_cast<std::uint32_t>(parent_r) + ftotal);
        Visit(*in);
        if (in->size == 0) {
          // An empty bucket costs nothing in Ceph but still burns a try;
          // charge it so huge try counts cannot stall (see mapper.h).
          Spend(kChooseCost);
          reject = true;
        } else {
          if (local_fallback_retries > 0 && flocal >= (in->size >> 1) &&
              flocal > local_fallback_retries) {
            Spend(
                kChooseCost);  // as BucketChoose charges a uniform draw: huge local tries must end
            item = PermChoose(*in, static_cast<std::uint32_t>(r));
          } else {
            item = BucketChoose(*in, static_cast<std::uint32_t>(r), outpos);
          }
          if (item >= max_devices_) {
            skip_rep = true;
            break;
          }
          const int itemtype = item < 0 ? BucketOf(item).type : 0;
          if (itemtype != type) {
            if (item >= 0) {
              skip_rep = true;
              break;
            }
            in = &BucketOf(item);
            retry_bucket = true;
            continue;
          }
          for (int i = 0; i < outpos; ++i) {
            if (out[i] == item) {
              collide = true;
              break;
            }
          }
          if (!collide && recurse_to_leaf) {
            if (item < 0) {
              const std::int32_t sub_r = vary_r != 0 ? (r >> ((vary_r - 1) & 31u)) : 0;
              if (ChooseFirstn(BucketOf(item), stable != 0 ? 1 : outpos + 1, 0, out2, outpos, count,
                               recurse_tries, 0, local_retries, local_fallback_retries, false,
                               vary_r, stable, nullptr, sub_r) <= outpos) {
                reject = true;  // no leaf below this item
              }
            } else {
              out2[outpos] = item;  // already a leaf
            }
          }
          if (!reject && !collide && itemtype == 0) reject = IsOut(item);
        }
        if (reject || collide) {
          ++ftotal;
          ++flocal;
          if (IsProofCheckpoint(ftotal)) ws_.visited_ = ~std::uint64_t{0};  // see mapper.h
          if (IsProofCheckpoint(ftotal) &&
              FirstnRepHopeless(bucket, type, out, outpos, recurse_to_leaf, out2)) {
            skip_rep = true;  // every later try fails too: Ceph's result, now
            break;
          }
          if (collide && flocal <= local_retries) {
            retry_bucket = true;
          } else if (local_fallback_retries > 0 && flocal <= in->size + local_fallback_retries) {
            retry_bucket = true;
          } else if (ftotal < tries) {
            retry_descent = true;
          } else {
            skip_rep = true;
          }
        }
      } while (retry_bucket);
    } while (retry_descent);

    if (skip_rep) continue;
    out[outpos] = item;
    ++outpos;
    --count;
    Profile(ftotal);
  }
  return outpos;
}

// PLACEMENT-STABLE: mapper.c crush_choose_indep(). Note the r stride
// (numrep, or numrep + 1 for uniform buckets whose size numrep divides) and
// that choose_args use the call's starting position `outpos`, not `rep`.
// Mirrors Ceph's crush_choose_indep() (src/crush/mapper.c) line by line.
void MapperImpl::ChooseIndep(const internal::FlatBucket& bucket, int left, int numrep, int type,
                             ItemId* out, int outpos, std::uint32_t tries,
                             std::uint32_t recurse_tries, bool recurse_to_leaf, ItemId* out2,
                             int parent_r) {
  const int endpos = outpos + left;
  for (int rep = outpos; rep < endpos; ++rep) {
    out[rep] = kItemUndef;
    if (out2 != nullptr) out2[rep] = kItemUndef;
  }
  const auto unumrep = static_cast<std::uint32_t>(numrep);
  std::uint32_t ftotal = 0;
  for (; left > 0 && ftotal < tries && !ws_.exhausted_; ++ftotal) {
    if (IsProofCheckpoint(ftotal)) ws_.visited_ = ~std::uint64_t{0};  // see mapper.h
    if (IsProofCheckpoint(ftotal) &&
        IndepHopeless(bucket, type, out, outpos, endpos, recurse_to_leaf)) {
      ftotal = tries;  // every later round fails too: Ceph's result, now
      break;
    }
    for (int rep = outpos; rep < endpos && !ws_.exhausted_; ++rep) {
      if (out[rep] != kItemUndef) continue;
      const internal::FlatBucket* in = &bucket;
      for (;;) {
        std::uint32_t r = static_cast<std::uint32_t>(rep) + static_cast<std::uint32_t>(parent_r);
        if (in->alg == BucketAlg::kUniform && in->size % unumrep == 0) {
          r += (unumrep + 1) * ftotal;
        } else {
          r += unumrep * ftotal;
        }
        Visit(*in);
        if (in->size == 0) {
          Spend(kChooseCost);
          break;
        }
        const ItemId item = BucketChoose(*in, r, outpos);
        if (item >= max_devices_) {
          out[rep] = kItemNone;
          if (out2 != nullptr) out2[rep] = kItemNone;
          --left;
          break;
        }
        const int itemtype = item < 0 ? BucketOf(item).type : 0;
        if (itemtype != type) {
          if (item >= 0) {
            out[rep] = kItemNone;
            if (out2 != nullptr) out2[rep] = kItemNone;
            --left;
            break;
          }
          in = &BucketOf(item);
          continue;
        }
        bool collide = false;
        for (int i = outpos; i < endpos; ++i) {
          if (out[i] == item) {
            collide = true;
            break;
          }
        }
        if (collide) break;
        if (recurse_to_leaf) {
          if (item < 0) {
            ChooseIndep(BucketOf(item), 1, numrep, 0, out2, rep, recurse_tries, 0, false, nullptr,
                        static_cast<std::int32_t>(r));
            if (out2 != nullptr && out2[rep] == kItemNone) break;  // no leaf below
          } else if (out2 != nullptr) {
            out2[rep] = item;
          }
        }
        if (itemtype == 0 && IsOut(item)) break;
        out[rep] = item;
        --left;
        break;
      }
    }
  }
  for (int rep = outpos; rep < endpos; ++rep) {
    if (out[rep] == kItemUndef) out[rep] = kItemNone;
    if (out2 != nullptr && out2[rep] == kItemUndef) out2[rep] = kItemNone;
  }
  Profile(ftotal);
}

// PLACEMENT-STABLE: mapper.c crush_do_rule() (crush_do_rule_no_retry).
// Mirrors Ceph's crush_do_rule() (src/crush/mapper.c) line by line.
int MapperImpl::DoRule(const internal::FlatRule& rule, const RuleStep* steps,
                       const Tunables& tunables, ItemId* result, int result_max) {
  ItemId* w = ws_.a_.data();
  ItemId* o = ws_.b_.data();
  ItemId* c = ws_.c_.data();
  int wsize = 0;
  int result_len = 0;
  // choose_total_tries counts retries, not tries: Ceph adds one (in int).
  auto choose_tries = static_cast<std::int32_t>(tunables.choose_total_tries + 1u);
  std::int32_t choose_leaf_tries = 0;
  auto local_retries = static_cast<std::int32_t>(tunables.choose_local_tries);
  auto local_fallback_retries = static_cast<std::int32_t>(tunables.choose_local_fallback_tries);
  std::int32_t vary_r = tunables.chooseleaf_vary_r;
  std::int32_t stable = tunables.chooseleaf_stable;

  for (std::uint32_t s = 0; s < rule.num_steps; ++s) {
    const RuleStep& step = steps[rule.first_step + s];
    bool firstn = false;
    switch (step.op) {
      case RuleOp::kTake: {
        const ItemId a = step.arg1;
        bool valid = a >= 0 && a < max_devices_;
        if (a < 0) {
          const auto slot = static_cast<std::size_t>(BucketSlot(a));
          valid = slot < num_buckets_ && buckets_[slot].alg != BucketAlg::kNone;
        }
        if (valid) {  // an invalid TAKE is ignored: w stays as it was
          w[0] = a;
          wsize = 1;
        }
        break;
      }
      case RuleOp::kSetChooseTries:
        if (step.arg1 > 0) choose_tries = step.arg1;
        break;
      case RuleOp::kSetChooseleafTries:
        if (step.arg1 > 0) choose_leaf_tries = step.arg1;
        break;
      case RuleOp::kSetChooseLocalTries:
        if (step.arg1 >= 0) local_retries = step.arg1;
        break;
      case RuleOp::kSetChooseLocalFallbackTries:
        if (step.arg1 >= 0) local_fallback_retries = step.arg1;
        break;
      case RuleOp::kSetChooseleafVaryR:
        if (step.arg1 >= 0) vary_r = step.arg1;
        break;
      case RuleOp::kSetChooseleafStable:
        if (step.arg1 >= 0) stable = step.arg1;
        break;
      case RuleOp::kChooseleafFirstn:
      case RuleOp::kChooseFirstn:
        firstn = true;
        [[fallthrough]];
      case RuleOp::kChooseleafIndep:
      case RuleOp::kChooseIndep: {
        if (wsize == 0) break;
        const bool recurse_to_leaf =
            step.op == RuleOp::kChooseleafFirstn || step.op == RuleOp::kChooseleafIndep;
        int osize = 0;
        for (int i = 0; i < wsize; ++i) {
          int numrep = step.arg1;
          if (numrep <= 0) {
            numrep += result_max;
            if (numrep <= 0) continue;
          }
          // Skip entries that are not buckets (devices, kItemNone holes).
          if (w[i] >= 0) continue;
          const auto slot = static_cast<std::size_t>(BucketSlot(w[i]));
          if (slot >= num_buckets_) continue;
          const internal::FlatBucket& bucket = buckets_[slot];
          if (firstn) {
            std::int32_t recurse_tries;
            if (choose_leaf_tries != 0) {
              recurse_tries = choose_leaf_tries;
            } else if (tunables.chooseleaf_descend_once != 0) {
              recurse_tries = 1;
            } else {
              recurse_tries = choose_tries;
            }
            osize += ChooseFirstn(bucket, numrep, step.arg2, o + osize, 0, result_max - osize,
                                  static_cast<std::uint32_t>(choose_tries),
                                  static_cast<std::uint32_t>(recurse_tries),
                                  static_cast<std::uint32_t>(local_retries),
                                  static_cast<std::uint32_t>(local_fallback_retries),
                                  recurse_to_leaf, static_cast<std::uint32_t>(vary_r),
                                  static_cast<std::uint32_t>(stable), c + osize, 0);
          } else {
            const int out_size = std::min(numrep, result_max - osize);
            ChooseIndep(bucket, out_size, numrep, step.arg2, o + osize, 0,
                        static_cast<std::uint32_t>(choose_tries),
                        static_cast<std::uint32_t>(choose_leaf_tries != 0 ? choose_leaf_tries : 1),
                        recurse_to_leaf, c + osize, 0);
            osize += out_size;
          }
        }
        if (recurse_to_leaf) {
          std::memcpy(o, c, static_cast<std::size_t>(osize) * sizeof(*o));
        }
        std::swap(o, w);
        wsize = osize;
        break;
      }
      case RuleOp::kEmit:
        for (int i = 0; i < wsize && result_len < result_max; ++i) {
          result[result_len++] = w[i];
        }
        wsize = 0;
        break;
      default:
        break;  // unknown and MSR-only ops are ignored, as in Ceph
    }
  }
  return result_len;
}

int DoRule(const CrushMap& map, int rule, std::uint32_t x, std::span<const Weight> reweights,
           Workspace& ws, std::span<ItemId> out, ChooseArgsRef choose_args) {
  // A workspace sized for another map would index its permutation state out
  // of bounds: a caller's bug, caught in debug builds; release builds map
  // nothing rather than read out of bounds.
  assert(ws.layout_id_ == map.layout_id() && "Workspace used with a map it was not built for");
  if (ws.layout_id_ != map.layout_id() || !map.RuleExists(rule)) return 0;
  const internal::FlatRule& flat = internal::MapAccess::Rule(map, rule);
  // result_max 0 is not a shortcut: crush_do_rule still runs every step,
  // and each indep choose with a positive count makes one slot-less
  // crush_choose_indep() call that crushtool --show-choose-tries counts in
  // choose_tries[0]. Nothing can be written, so 0 is returned.
  const int result_max =
      static_cast<int>(std::min<std::size_t>(out.size(), static_cast<std::size_t>(ws.max_result_)));
  // A new generation invalidates every bucket's permutation state in O(1)
  // (Ceph re-initialises the whole crush_work per call instead).
  if (++ws.generation_ == 0) {
    for (auto& st : ws.perm_state_) st.generation = 0;
    ws.generation_ = 1;
  }
  ws.spent_ = 0;
  ws.exhausted_ = false;
  ws.tree_out_of_range_ = false;
  ws.memo_hits_ = 0;
  ws.visited_ = 0;
  MapperImpl impl(map, x, reweights, ws, internal::MapAccess::ChooseArgs(map, choose_args));
  if (flat.type == RuleType::kMsrFirstn || flat.type == RuleType::kMsrIndep) {
    // Not tracked bucket by bucket (see Workspace::visited_buckets).
    ws.visited_ = ~std::uint64_t{0};
    const int n = impl.MsrDoRule(flat, internal::MapAccess::Steps(map), map.tunables(), out.data(),
                                 result_max);
    impl.FinishMemo();
    return n;
  }
  const int n =
      impl.DoRule(flat, internal::MapAccess::Steps(map), map.tunables(), out.data(), result_max);
  if (ws.exhausted_) ws.visited_ = ~std::uint64_t{0};
  impl.FinishMemo();
  return n;
}

}  // namespace crushkit::crush
