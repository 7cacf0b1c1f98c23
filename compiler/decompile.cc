// CrushCompiler::decompile, byte for byte (Pacific), plus the Quincy text
// dialect. Every helper names the Ceph function whose output it copies.
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "compiler/compile.h"
#include "crush/builder.h"
#include "crush/edit/edit.h"

namespace crushkit::compiler {
namespace {

using crush::BucketAlg;
using crush::ItemId;
using crush::MapModel;
using crush::RuleOp;

class Decompiler {
 public:
  Decompiler(const MapModel& m, crush::CephRelease release) : m_(m), release_(release) {}

  absl::StatusOr<std::string> Run() {
    out_ += "# begin crush map\n";
    Tunables();
    Devices();
    Types();
    out_ += "\n# buckets\n";
    for (int slot = 0; slot < m_.max_buckets(); ++slot) {
      absl::Status s = Bucket(crush::BucketIdOfSlot(slot));
      if (!s.ok()) return s;
    }

    out_ += "\n# rules\n";
    for (int i = 0; i < m_.max_rules(); ++i) {
      if (static_cast<std::size_t>(i) >= m_.rule_exists.size() ||
          !m_.rule_exists[static_cast<std::size_t>(i)]) {
        continue;
      }
      absl::Status s = Rule(i);
      if (!s.ok()) return s;
    }
    ChooseArgs();
    out_ += "\n# end crush map\n";
    return std::move(out_);
  }

 private:
  // Only tunables that differ from the legacy values.
  void Tunables() {
    const crush::Tunables& t = m_.tunables;
    if (t.choose_local_tries != 2)
      out_ += "tunable choose_local_tries " + std::to_string(t.choose_local_tries) + "\n";
    if (t.choose_local_fallback_tries != 5) {
      out_ += "tunable choose_local_fallback_tries " +
              std::to_string(t.choose_local_fallback_tries) + "\n";
    }
    if (t.choose_total_tries != 19)
      out_ += "tunable choose_total_tries " + std::to_string(t.choose_total_tries) + "\n";
    if (t.chooseleaf_descend_once != 0) {
      out_ += "tunable chooseleaf_descend_once " + std::to_string(t.chooseleaf_descend_once) + "\n";
    }
    if (t.chooseleaf_vary_r != 0)
      out_ += "tunable chooseleaf_vary_r " + std::to_string(t.chooseleaf_vary_r) + "\n";
    if (t.chooseleaf_stable != 0)
      out_ += "tunable chooseleaf_stable " + std::to_string(t.chooseleaf_stable) + "\n";
    if (t.straw_calc_version != 0) {
      out_ += "tunable straw_calc_version " + std::to_string(t.straw_calc_version) + "\n";
    }
    if (t.allowed_bucket_algs != 22) {
      out_ += "tunable allowed_bucket_algs " + std::to_string(t.allowed_bucket_algs) + "\n";
    }
    // Ceph 19.2+ prints both msr tunables once either differs from 100
    // (observed with crushtool 20.2 -d).
    if (crush::HasMsr(release_) && (t.msr_descents != 100 || t.msr_collision_tries != 100)) {
      out_ += "tunable msr_descents " + std::to_string(t.msr_descents) + "\n";
      out_ += "tunable msr_collision_tries " + std::to_string(t.msr_collision_tries) + "\n";
    }
  }

  void Devices() {
    out_ += "\n# devices\n";
    for (std::int32_t i = 0; i < m_.max_devices; ++i) {
      auto n = m_.item_names.find(i);
      if (n == m_.item_names.end()) continue;
      out_ += "device " + std::to_string(i) + " " + n->second;
      if (auto c = m_.class_map.find(i); c != m_.class_map.end()) {
        if (auto cn = m_.class_names.find(c->second); cn != m_.class_names.end())
          out_ += " class " + cn->second;
      }
      out_ += "\n";
    }
  }

  void Types() {
    out_ += "\n# types\n";
    // Ceph loops i = 0, 1, ... until it has printed every name; negative
    // type ids would never be reached (Ceph spins forever), so skip them.
    std::size_t remaining = 0;
    for (const auto& [id, name] : m_.type_names) {
      if (id >= 0) ++remaining;
    }
    for (std::int32_t i = 0; remaining > 0; ++i) {
      auto n = m_.type_names.find(i);
      if (n == m_.type_names.end()) {
        if (i == 0) out_ += "type 0 osd\n";
        continue;
      }
      --remaining;
      out_ += "type " + std::to_string(i) + " " + n->second + "\n";
    }
  }

  void ChooseArgs() {
    if (!m_.choose_args.empty()) {
      out_ += "\n# choose_args\n";
      for (const auto& [index, args] : m_.choose_args) {
        out_ += "choose_args " + std::to_string(static_cast<std::uint64_t>(index)) + " {\n";
        for (auto it = args.rbegin(); it != args.rend(); ++it) {
          const crush::ChooseArg& a = it->second;
          if (a.weight_set.empty() && a.ids.empty()) continue;
          out_ += "  {\n    bucket_id " + std::to_string(it->first) + "\n";
          if (!a.weight_set.empty()) {
            out_ += "    weight_set [\n";
            for (const auto& row : a.weight_set) {
              out_ += "      [ ";
              for (crush::Weight w : row) {
                FixedPoint(w);
                out_ += " ";
              }
              out_ += "]\n";
            }
            out_ += "    ]\n";
          }
          if (!a.ids.empty()) {
            out_ += "    ids [ ";
            for (ItemId id : a.ids) out_ += std::to_string(id) + " ";
            out_ += "]\n";
          }
          out_ += "  }\n";
        }
        out_ += "}\n";
      }
    }
  }

  // print_fixedpoint(): the weight goes through an int, then float division.
  void FixedPoint(crush::Weight w) {
    char buf[64];
    const float v = static_cast<float>(static_cast<std::int32_t>(w)) / static_cast<float>(0x10000);
    std::snprintf(buf, sizeof(buf), crush::HasRulesets(release_) ? "%.3f" : "%.5f",
                  static_cast<double>(v));
    out_ += buf;
  }

  // print_item_name().
  std::string ItemName(ItemId id) const {
    if (auto n = m_.item_names.find(id); n != m_.item_names.end()) return n->second;
    if (id >= 0) return "device" + std::to_string(id);
    return "bucket" + std::to_string(-1 - static_cast<std::int64_t>(id));
  }

  // print_type_name().
  std::string TypeName(std::int32_t t) const {
    if (auto n = m_.type_names.find(t); n != m_.type_names.end()) return n->second;
    if (t == 0) return "device";
    return "type" + std::to_string(t);
  }

  // CrushCompiler::decompile_bucket: depth-first, children first.
  absl::Status Bucket(ItemId cur) {
    if (cur >= 0 || m_.FindBucket(cur) == nullptr) return absl::OkStatus();
    auto state = states_.find(cur);
    if (state != states_.end()) {
      if (state->second == kDone) return absl::OkStatus();
      return absl::InvalidArgumentError("bucket " + std::to_string(cur) +
                                        " is being decompiled twice");
    }

    // Iterative post-order walk so that deep or cyclic maps cannot overflow the stack.
    struct Frame {
      ItemId id;
      std::size_t next;
    };

    std::vector<Frame> frames{{cur, 0}};
    states_[cur] = kInProgress;
    while (!frames.empty()) {
      Frame& f = frames.back();
      const crush::Bucket* b = m_.FindBucket(f.id);
      if (f.next < b->items.size()) {
        const ItemId item = b->items[f.next++];
        auto d = states_.find(item);
        if (d == states_.end()) {
          if (item < 0 && m_.FindBucket(item) != nullptr) {
            states_[item] = kInProgress;
            frames.push_back(Frame{item, 0});
          }
        } else if (d->second == kInProgress) {
          return absl::InvalidArgumentError(
              "bucket " + std::to_string(f.id) +
              " contains one of the buckets that contain it; the buckets must "
              "form a directed acyclic graph");
        }
        continue;
      }
      BucketImpl(*b);
      states_[f.id] = kDone;
      frames.pop_back();
    }
    return absl::OkStatus();
  }

  // CrushCompiler::decompile_bucket_impl.
  void BucketImpl(const crush::Bucket& b) {
    if (crush::IsShadowItem(m_, b.id)) return;
    out_ += TypeName(b.type) + " " + ItemName(b.id) + " {\n";
    out_ += "\tid " + std::to_string(b.id) + "\t\t# do not change unnecessarily\n";
    if (auto cb = m_.class_buckets.find(b.id); cb != m_.class_buckets.end()) {
      for (const auto& [cls, shadow] : cb->second) {
        auto cn = m_.class_names.find(cls);
        out_ += "\tid " + std::to_string(shadow) + " class " +
                (cn != m_.class_names.end() ? cn->second : "class" + std::to_string(cls)) +
                "\t\t# do not change unnecessarily\n";
      }
    }
    out_ += "\t# weight ";
    FixedPoint(b.weight);
    out_ += "\n";
    const std::size_t n = b.items.size();
    bool dopos = false;
    switch (b.alg) {
      case BucketAlg::kUniform:
        out_ +=
            "\talg uniform\t# do not change bucket size (" + std::to_string(n) + ") unnecessarily";
        dopos = true;
        break;
      case BucketAlg::kList:
        out_ += "\talg list\t# add new items at the end; do not change order unnecessarily";
        break;
      case BucketAlg::kTree:
        out_ += "\talg tree\t# do not change pos for existing items unnecessarily";
        dopos = true;
        break;
      case BucketAlg::kStraw:
        out_ += "\talg straw";
        break;
      case BucketAlg::kStraw2:
        out_ += "\talg straw2";
        break;
      case BucketAlg::kNone:
        out_ += "\talg unknown";
        break;
    }
    out_ += "\n";
    out_ += "\thash " + std::to_string(b.hash) + "\t# " +
            (b.hash == crush::kHashRjenkins1 ? "rjenkins1" : "unknown") + "\n";
    for (std::size_t j = 0; j < n; ++j) {
      out_ += "\titem " + ItemName(b.items[j]) + " weight ";
      FixedPoint(crush::BucketItemWeight(b, j));
      if (dopos) out_ += " pos " + std::to_string(j);
      out_ += "\n";
    }
    out_ += "}\n";
  }

  // CrushWrapper::split_id_class for `step take`.
  absl::Status TakeTarget(ItemId item, std::string* text) const {
    auto n = m_.item_names.find(item);
    if (n == m_.item_names.end()) {
      return absl::InvalidArgumentError("rule takes item " + std::to_string(item) +
                                        ", which has no name");
    }
    const std::string& name = n->second;
    const std::size_t tilde = name.find('~');
    if (tilde == std::string::npos) {
      *text = ItemName(item);
      return absl::OkStatus();
    }
    const std::string base = name.substr(0, tilde);
    const std::string cls = name.substr(tilde + 1);
    ItemId base_id = 0;
    bool found = false;
    for (const auto& [id, nm] : m_.item_names) {
      if (nm == base) {
        base_id = id;
        found = true;
        break;
      }
    }
    int class_id = -1;
    for (const auto& [id, nm] : m_.class_names) {
      if (nm == cls) {
        class_id = id;
        break;
      }
    }
    if (!found || class_id < 0) {
      return absl::InvalidArgumentError("rule takes shadow bucket '" + name +
                                        "' whose bucket or class is unknown");
    }
    *text = ItemName(base_id) + " class " + m_.class_names.at(class_id);
    return absl::OkStatus();
  }

  absl::Status Rule(int i) {
    const crush::Rule& r = m_.rules[static_cast<std::size_t>(i)];
    out_ += "rule ";
    if (auto n = m_.rule_names.find(i); n != m_.rule_names.end()) out_ += n->second;
    out_ += " {\n";
    out_ += "\tid " + std::to_string(i) + "\n";
    if (crush::HasRulesets(release_) && i != r.ruleset) {
      out_ += "\t# WARNING: ruleset " + std::to_string(r.ruleset) + " != id " + std::to_string(i) +
              "; this will not recompile to the same map\n";
    }
    switch (r.type) {
      case crush::RuleType::kReplicated:
        out_ += "\ttype replicated\n";
        break;
      case crush::RuleType::kErasure:
        out_ += "\ttype erasure\n";
        break;
      case crush::RuleType::kMsrFirstn:
      case crush::RuleType::kMsrIndep:
        if (crush::HasMsr(release_)) {
          out_ +=
              r.type == crush::RuleType::kMsrFirstn ? "\ttype msr_firstn\n" : "\ttype msr_indep\n";
          break;
        }
        [[fallthrough]];
      default:
        out_ += "\ttype " + std::to_string(static_cast<int>(r.type)) + "\n";
        break;
    }
    if (crush::HasRulesets(release_)) {
      out_ += "\tmin_size " + std::to_string(r.min_size) + "\n";
      out_ += "\tmax_size " + std::to_string(r.max_size) + "\n";
    }
    for (const crush::RuleStep& s : r.steps) {
      absl::Status st = Step(s);
      if (!st.ok()) return st;
    }
    out_ += "}\n";
    return absl::OkStatus();
  }

  // One "\tstep ..." line of a rule.
  absl::Status Step(const crush::RuleStep& s) {
    switch (s.op) {
      case RuleOp::kNoop:
        out_ += "\tstep noop\n";
        break;
      case RuleOp::kTake: {
        std::string text;
        absl::Status st = TakeTarget(s.arg1, &text);
        if (!st.ok()) return st;
        out_ += "\tstep take " + text + "\n";
        break;
      }
      case RuleOp::kEmit:
        out_ += "\tstep emit\n";
        break;
      case RuleOp::kSetChooseTries:
        out_ += "\tstep set_choose_tries " + std::to_string(s.arg1) + "\n";
        break;
      case RuleOp::kSetChooseLocalTries:
        out_ += "\tstep set_choose_local_tries " + std::to_string(s.arg1) + "\n";
        break;
      case RuleOp::kSetChooseLocalFallbackTries:
        out_ += "\tstep set_choose_local_fallback_tries " + std::to_string(s.arg1) + "\n";
        break;
      case RuleOp::kSetChooseleafTries:
        out_ += "\tstep set_chooseleaf_tries " + std::to_string(s.arg1) + "\n";
        break;
      case RuleOp::kSetChooseleafVaryR:
        out_ += "\tstep set_chooseleaf_vary_r " + std::to_string(s.arg1) + "\n";
        break;
      case RuleOp::kSetChooseleafStable:
        out_ += "\tstep set_chooseleaf_stable " + std::to_string(s.arg1) + "\n";
        break;
      case RuleOp::kChooseFirstn:
        out_ +=
            "\tstep choose firstn " + std::to_string(s.arg1) + " type " + TypeName(s.arg2) + "\n";
        break;
      case RuleOp::kChooseIndep:
        out_ +=
            "\tstep choose indep " + std::to_string(s.arg1) + " type " + TypeName(s.arg2) + "\n";
        break;
      case RuleOp::kChooseleafFirstn:
        out_ += "\tstep chooseleaf firstn " + std::to_string(s.arg1) + " type " + TypeName(s.arg2) +
                "\n";
        break;
      case RuleOp::kChooseleafIndep:
        out_ += "\tstep chooseleaf indep " + std::to_string(s.arg1) + " type " + TypeName(s.arg2) +
                "\n";
        break;
      case RuleOp::kSetMsrDescents:
      case RuleOp::kSetMsrCollisionTries:
      case RuleOp::kChooseMsr:
        if (crush::HasMsr(release_)) out_ += MsrStep(s);
        break;
      default:
        // Pacific prints nothing for opcodes it does not know (msr ...).
        break;
    }
    return absl::OkStatus();
  }

  // A Ceph 19.2+ MSR step line.
  std::string MsrStep(const crush::RuleStep& s) {
    switch (s.op) {
      case RuleOp::kSetMsrDescents:
        return "\tstep set_msr_descents " + std::to_string(s.arg1) + "\n";
      case RuleOp::kSetMsrCollisionTries:
        return "\tstep set_msr_collision_tries " + std::to_string(s.arg1) + "\n";
      default:
        return "\tstep choosemsr " + std::to_string(s.arg1) + " type " + TypeName(s.arg2) + "\n";
    }
  }

  enum State { kInProgress, kDone };

  const MapModel& m_;
  crush::CephRelease release_;
  std::string out_;
  std::map<ItemId, State> states_;
};

}  // namespace

absl::StatusOr<std::string> Decompile(const MapModel& m, crush::CephRelease release) {
  return Decompiler(m, release).Run();
}

}  // namespace crushkit::compiler
