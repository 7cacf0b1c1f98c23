// CrushWrapper::dump's JSON back into a MapModel. The order of work follows
// what each part needs: tunables (straw lengths depend on
// straw_calc_version), types and devices (names), buckets (built as
// builder.c builds them), shadow buckets into the class tables, rules (step
// types by name), then choose_args (weights may resolve against item
// weights and child weight-sets).
// Long because: one reader for one JSON document; every part reads and fills
// the same tables (type, device, class and bucket ids by name), which a split
// would have to export through an internal header.
#include "osdmap/formats/crush_dump_json.h"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

#include "crush/builder.h"
#include "crush/codec.h"
#include "crush/edit/edit.h"
#include "crush/status_macros.h"
#include "crush/util/text_excerpt.h"
#include "osdmap/formats/input_sniff.h"
#include "osdmap/proto/ceph_crush_dump.pb.h"

namespace crushkit::osdmap {
namespace {

using crush::ItemId;
using crush::Weight;
using google::protobuf::ListValue;
using google::protobuf::Value;

constexpr std::int64_t kMaxRuleId = 65535;  // as the compiler bounds it
// Below 2^24 a float holds every integer: weights up to here print exactly.
constexpr double kFloatExactLimit = 16777216.0;

absl::Status Bad(const std::string& path, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

absl::Status Missing(const std::string& path) { return Bad(path, "missing"); }

// Built piece by piece: the one-expression form trips GCC 12's -Wrestrict
// false positive when inlined at -O3.
std::string Quote(std::string_view s) {
  std::string out = "'";
  out += util::TerminalExcerpt(s, 60);
  out += '\'';
  return out;
}

// `value` of a field that must be present and within [lo, hi].
template <typename T>
absl::Status Field(const std::string& path, bool present, std::int64_t value, std::int64_t lo,
                   std::int64_t hi, T* out) {
  if (!present) return Missing(path);
  if (value < lo || value > hi) {
    return Bad(path, absl::StrCat(value, " is out of range (", lo, "..", hi, ")"));
  }
  *out = static_cast<T>(value);
  return absl::OkStatus();
}

// A 16.16 weight Ceph printed with dump_int: a C int for the u32, so weights
// from 32768.0 on print negative.
absl::Status WeightField(const std::string& path, bool present, std::int64_t value, Weight* out) {
  if (!present) return Missing(path);
  if (value < std::numeric_limits<std::int32_t>::min() ||
      value > std::numeric_limits<std::uint32_t>::max()) {
    return Bad(path, absl::StrCat(value, " is not a 16.16 weight (a 32-bit integer)"));
  }
  *out = static_cast<Weight>(static_cast<std::uint64_t>(value) & 0xffffffffu);
  return absl::OkStatus();
}

// A JSON number that must be an integer within [lo, hi].
absl::Status IntValue(const std::string& path, const Value& v, std::int64_t lo, std::int64_t hi,
                      std::int64_t* out) {
  if (v.kind_case() != Value::kNumberValue) return Bad(path, "expected an integer");
  const double d = v.number_value();
  if (!(d >= static_cast<double>(lo) && d <= static_cast<double>(hi)) || std::floor(d) != d) {
    return Bad(path, absl::StrCat("expected an integer in ", lo, "..", hi));
  }
  *out = static_cast<std::int64_t>(d);
  return absl::OkStatus();
}

const Value* StructField(const Value& v, const char* key) {
  const auto& fields = v.struct_value().fields();
  auto it = fields.find(key);
  return it == fields.end() ? nullptr : &it->second;
}

class DumpReader {
 public:
  explicit DumpReader(std::string prefix) : prefix_(std::move(prefix)) {}

  absl::StatusOr<crush::MapModel> Read(const ceph::CrushDump& d);

 private:
  std::string P(const std::string& path) const { return prefix_ + path; }

  absl::Status ReadTunables(const ceph::CrushDump& d);
  absl::Status ReadTypes(const ceph::CrushDump& d);
  absl::Status ReadDevices(const ceph::CrushDump& d);
  absl::Status ReadBuckets(const ceph::CrushDump& d);
  absl::Status ReadClasses();
  absl::Status ReadRules(const ceph::CrushDump& d);
  absl::Status ReadRule(const ceph::CrushDumpRule& r, const std::string& path);
  absl::Status ReadStep(const ceph::CrushDumpStep& s, const std::string& path,
                        crush::RuleStep* step);
  absl::Status ReadChooseArgs(const ceph::CrushDump& d);
  absl::Status ReadChooseArg(const Value& v, const std::string& path, crush::ChooseArgMap* args,
                             std::map<std::pair<ItemId, std::size_t>, std::vector<double>>* raw);
  absl::Status ResolveWeightSets(
      crush::ChooseArgMap* args,
      const std::map<std::pair<ItemId, std::size_t>, std::vector<double>>& raw,
      const std::string& path);
  int ClassId(const std::string& name);

  const std::string prefix_;
  crush::MapModel m_;
  std::map<std::string, int> type_id_;          // name -> id (the highest id wins, as Ceph's rmap)
  std::map<ItemId, std::string> device_class_;  // from the dump
  std::map<std::string, int> class_id_;
  std::map<std::string, ItemId> bucket_id_;  // named buckets
  std::set<ItemId> devices_;
  // Devices printed as "deviceN" (no class), named only if kept by ReadBuckets.
  std::vector<std::pair<ItemId, std::string>> synthetic_devices_;
};

absl::StatusOr<crush::MapModel> DumpReader::Read(const ceph::CrushDump& d) {
  m_.tunables = crush::Tunables{};
  CRUSH_RETURN_IF_ERROR(ReadTunables(d));
  CRUSH_RETURN_IF_ERROR(ReadTypes(d));
  CRUSH_RETURN_IF_ERROR(ReadDevices(d));
  CRUSH_RETURN_IF_ERROR(ReadBuckets(d));
  CRUSH_RETURN_IF_ERROR(ReadClasses());
  CRUSH_RETURN_IF_ERROR(ReadRules(d));
  CRUSH_RETURN_IF_ERROR(ReadChooseArgs(d));
  crush::FinalizeMaxDevices(m_);
  return std::move(m_);
}

absl::Status DumpReader::ReadTunables(const ceph::CrushDump& d) {
  if (!d.has_tunables()) return Missing(P("tunables"));
  const ceph::CrushDumpTunables& t = d.tunables();
  crush::Tunables& out = m_.tunables;
  constexpr std::int64_t kU32 = std::numeric_limits<std::uint32_t>::max();
  const std::string p = P("tunables.");
  CRUSH_RETURN_IF_ERROR(Field(p + "choose_local_tries", t.has_choose_local_tries(),
                              t.choose_local_tries(), 0, kU32, &out.choose_local_tries));
  CRUSH_RETURN_IF_ERROR(Field(p + "choose_local_fallback_tries",
                              t.has_choose_local_fallback_tries(), t.choose_local_fallback_tries(),
                              0, kU32, &out.choose_local_fallback_tries));
  CRUSH_RETURN_IF_ERROR(Field(p + "choose_total_tries", t.has_choose_total_tries(),
                              t.choose_total_tries(), 0, kU32, &out.choose_total_tries));
  CRUSH_RETURN_IF_ERROR(Field(p + "chooseleaf_descend_once", t.has_chooseleaf_descend_once(),
                              t.chooseleaf_descend_once(), 0, kU32, &out.chooseleaf_descend_once));
  CRUSH_RETURN_IF_ERROR(Field(p + "chooseleaf_vary_r", t.has_chooseleaf_vary_r(),
                              t.chooseleaf_vary_r(), 0, 255, &out.chooseleaf_vary_r));
  CRUSH_RETURN_IF_ERROR(Field(p + "chooseleaf_stable", t.has_chooseleaf_stable(),
                              t.chooseleaf_stable(), 0, 255, &out.chooseleaf_stable));
  CRUSH_RETURN_IF_ERROR(Field(p + "straw_calc_version", t.has_straw_calc_version(),
                              t.straw_calc_version(), 0, 255, &out.straw_calc_version));
  CRUSH_RETURN_IF_ERROR(Field(p + "allowed_bucket_algs", t.has_allowed_bucket_algs(),
                              t.allowed_bucket_algs(), 0, kU32, &out.allowed_bucket_algs));
  // Squid and later print the MSR tunables; older dumps keep Ceph's default.
  if (t.has_msr_descents() || t.has_msr_collision_tries()) {
    CRUSH_RETURN_IF_ERROR(Field(p + "msr_descents", t.has_msr_descents(), t.msr_descents(), 0, kU32,
                                &out.msr_descents));
    CRUSH_RETURN_IF_ERROR(Field(p + "msr_collision_tries", t.has_msr_collision_tries(),
                                t.msr_collision_tries(), 0, kU32, &out.msr_collision_tries));
    m_.tail = crush::EncodedTail::kMsr;
  }
  return absl::OkStatus();
}

absl::Status DumpReader::ReadTypes(const ceph::CrushDump& d) {
  for (int i = 0; i < d.types_size(); ++i) {
    const ceph::CrushDumpType& t = d.types(i);
    const std::string p = P(absl::StrCat("types[", i, "]"));
    int id = 0;
    CRUSH_RETURN_IF_ERROR(Field(p + ".type_id", t.has_type_id(), t.type_id(), 0, 65535, &id));
    if (!t.has_name()) return Missing(p + ".name");
    if (!m_.type_names.emplace(id, t.name()).second) {
      return Bad(p + ".type_id", absl::StrCat("type ", id, " is listed twice"));
    }
  }
  for (const auto& [id, name] : m_.type_names) type_id_[name] = id;
  return absl::OkStatus();
}

absl::Status DumpReader::ReadDevices(const ceph::CrushDump& d) {
  std::vector<std::pair<ItemId, std::string>> synthetic;  // "deviceN" names, decided later
  for (int i = 0; i < d.devices_size(); ++i) {
    const ceph::CrushDumpDevice& dev = d.devices(i);
    const std::string p = P(absl::StrCat("devices[", i, "]"));
    ItemId id = 0;
    CRUSH_RETURN_IF_ERROR(
        Field(p + ".id", dev.has_id(), dev.id(), 0, crush::kMaxDecodedDevices - 1, &id));
    if (!dev.has_name()) return Missing(p + ".name");
    if (!devices_.insert(id).second) {
      return Bad(p + ".id", absl::StrCat("device ", id, " is listed twice"));
    }
    if (dev.has_class_()) {
      if (dev.class_().empty()) return Bad(p + ".class", "empty class name");
      device_class_[id] = dev.class_();
    }
    if (dev.name() == absl::StrCat("device", id) && !dev.has_class_()) {
      synthetic.emplace_back(id, dev.name());
    } else {
      m_.item_names[id] = dev.name();
    }
  }
  // CrushWrapper::dump prints "deviceN" for an id below max_devices without
  // a name. finalize() sets max_devices from named and bucket-held ids, so
  // the highest id had a name; the others keep theirs when a bucket holds
  // them (ReadBuckets).
  for (const auto& [id, name] : synthetic) {
    if (id == *devices_.rbegin()) m_.item_names[id] = name;
  }
  synthetic_devices_ = std::move(synthetic);
  return absl::OkStatus();
}

struct AlgName {
  const char* name;
  crush::BucketAlg alg;
};

constexpr AlgName kAlgs[] = {{"uniform", crush::BucketAlg::kUniform},
                             {"list", crush::BucketAlg::kList},
                             {"tree", crush::BucketAlg::kTree},
                             {"straw", crush::BucketAlg::kStraw},
                             {"straw2", crush::BucketAlg::kStraw2}};

// The bucket's alg, and a check that its hash can be read back.
absl::StatusOr<crush::BucketAlg> ReadBucketAlg(const ceph::CrushDumpBucket& b,
                                               const std::string& p) {
  if (!b.has_alg()) return Missing(p + ".alg");
  crush::BucketAlg alg = crush::BucketAlg::kNone;
  for (const AlgName& a : kAlgs) {
    if (b.alg() == a.name) alg = a.alg;
  }
  if (alg == crush::BucketAlg::kNone) {
    return Bad(p + ".alg", "unknown bucket algorithm " + Quote(b.alg()) +
                               " (expected uniform, list, tree, straw or straw2)");
  }
  if (!b.has_hash()) return Missing(p + ".hash");
  // crush_hash_name() prints "unknown" for every hash but rjenkins1 (0),
  // so any other hash is lost in the dump.
  if (b.hash() != "rjenkins1") {
    return Bad(p + ".hash", Quote(b.hash()) +
                                ": only rjenkins1 can be read back (Ceph prints any other hash "
                                "as 'unknown', losing its number)");
  }
  return alg;
}

// The bucket's items and their weights, each a known device or bucket.
absl::Status ReadBucketItems(const ceph::CrushDumpBucket& b, const std::string& p,
                             crush::BucketAlg alg, const std::set<ItemId>& devices,
                             const std::set<ItemId>& bucket_ids, std::vector<ItemId>* items,
                             std::vector<Weight>* weights) {
  for (int j = 0; j < b.items_size(); ++j) {
    const ceph::CrushDumpBucketItem& it = b.items(j);
    const std::string ip = absl::StrCat(p, ".items[", j, "]");
    ItemId item = 0;
    CRUSH_RETURN_IF_ERROR(Field(ip + ".id", it.has_id(), it.id(), -crush::kMaxBucketSlots,
                                crush::kMaxDecodedDevices - 1, &item));
    if (item >= 0 && devices.count(item) == 0) {
      return Bad(ip + ".id", absl::StrCat("device ", item, " is not in devices"));
    }
    if (item < 0 && bucket_ids.count(item) == 0) {
      return Bad(ip + ".id", absl::StrCat("bucket ", item, " is not in buckets"));
    }
    Weight w = 0;
    CRUSH_RETURN_IF_ERROR(WeightField(ip + ".weight", it.has_weight(), it.weight(), &w));
    if (alg == crush::BucketAlg::kUniform && j > 0 && w != weights->front()) {
      return Bad(ip + ".weight", "items of a uniform bucket weigh the same");
    }
    items->push_back(item);
    weights->push_back(w);
  }
  return absl::OkStatus();
}

// builder.c's arrays from the items, as crushtool -c builds the bucket.
// A uniform bucket is only its item weight; it may be 0 in a map Ceph made
// (Reef compiles such maps), which MakeBucket refuses.
absl::StatusOr<crush::Bucket> MakeDumpedBucket(crush::BucketAlg alg, std::uint16_t type,
                                               Weight weight, const std::vector<ItemId>& items,
                                               const std::vector<Weight>& weights,
                                               std::uint8_t straw_calc_version) {
  if (alg != crush::BucketAlg::kUniform) {
    return crush::MakeBucket(alg, crush::kHashRjenkins1, type, items, weights, straw_calc_version);
  }
  return crush::Bucket{.id = 0,
                       .type = type,
                       .alg = alg,
                       .hash = crush::kHashRjenkins1,
                       .weight = weight,
                       .items = items,
                       .uniform_item_weight = weights.empty() ? 0 : weights.front(),
                       .item_weights = {},
                       .sum_weights = {},
                       .straws = {},
                       .node_weights = {}};
}

absl::Status DumpReader::ReadBuckets(const ceph::CrushDump& d) {
  std::set<ItemId> held;  // every item some bucket holds
  std::set<ItemId> bucket_ids;
  for (const ceph::CrushDumpBucket& b : d.buckets()) {
    if (b.has_id()) bucket_ids.insert(static_cast<ItemId>(b.id()));
  }
  for (int i = 0; i < d.buckets_size(); ++i) {
    const ceph::CrushDumpBucket& b = d.buckets(i);
    const std::string p = P(absl::StrCat("buckets[", i, "]"));
    ItemId id = 0;
    CRUSH_RETURN_IF_ERROR(Field(p + ".id", b.has_id(), b.id(), -crush::kMaxBucketSlots, -1, &id));
    std::uint16_t type = 0;
    CRUSH_RETURN_IF_ERROR(Field(p + ".type_id", b.has_type_id(), b.type_id(), 0, 65535, &type));
    Weight weight = 0;
    CRUSH_RETURN_IF_ERROR(WeightField(p + ".weight", b.has_weight(), b.weight(), &weight));
    CRUSH_ASSIGN_OR_RETURN(const crush::BucketAlg alg, ReadBucketAlg(b, p));
    std::vector<ItemId> items;
    std::vector<Weight> weights;
    CRUSH_RETURN_IF_ERROR(ReadBucketItems(b, p, alg, devices_, bucket_ids, &items, &weights));
    held.insert(items.begin(), items.end());
    absl::StatusOr<crush::Bucket> made =
        MakeDumpedBucket(alg, type, weight, items, weights, m_.tunables.straw_calc_version);
    if (!made.ok()) return Bad(p, std::string(made.status().message()));
    made->weight = weight;  // the cluster's, even where it is not the sum
    absl::StatusOr<ItemId> added = crush::AddBucket(m_, id, *std::move(made));
    if (!added.ok()) {
      return Bad(p + ".id", absl::StrCat("bucket ", id, " is listed twice"));
    }
    if (b.has_name()) {
      m_.item_names[id] = b.name();
      bucket_id_[b.name()] = id;
    }
  }
  for (const auto& [id, name] : synthetic_devices_) {
    if (held.count(id) != 0) m_.item_names[id] = name;
  }
  return absl::OkStatus();
}

int DumpReader::ClassId(const std::string& name) {
  if (auto it = class_id_.find(name); it != class_id_.end()) return it->second;
  // CrushWrapper::_alloc_class_id: one more than the highest.
  const int id = m_.class_names.empty() ? 0 : m_.class_names.rbegin()->first + 1;
  m_.class_names[id] = name;
  class_id_[name] = id;
  return id;
}

// Device classes in `crushtool -c`'s order for the decompiled text, then
// the shadow buckets (CrushWrapper::split_id_class: "name~class" where both
// parts name something).
absl::Status DumpReader::ReadClasses() {
  for (const auto& [id, cls] : device_class_) m_.class_map[id] = ClassId(cls);
  for (int slot = 0; slot < m_.max_buckets(); ++slot) {
    const ItemId id = crush::BucketIdOfSlot(slot);
    auto name = m_.item_names.find(id);
    if (m_.buckets[static_cast<std::size_t>(slot)].alg == crush::BucketAlg::kNone ||
        name == m_.item_names.end())
      continue;
    const std::size_t tilde = name->second.find('~');
    if (tilde == std::string::npos) continue;
    auto original = bucket_id_.find(name->second.substr(0, tilde));
    const std::string cls = name->second.substr(tilde + 1);
    if (original == bucket_id_.end() || cls.empty()) continue;
    const int class_id = ClassId(cls);
    m_.class_buckets[original->second][class_id] = id;
    m_.class_map[id] = class_id;
  }
  return absl::OkStatus();
}

absl::Status DumpReader::ReadRules(const ceph::CrushDump& d) {
  for (int i = 0; i < d.rules_size(); ++i) {
    CRUSH_RETURN_IF_ERROR(ReadRule(d.rules(i), P(absl::StrCat("rules[", i, "]"))));
  }
  return absl::OkStatus();
}

absl::Status DumpReader::ReadRule(const ceph::CrushDumpRule& r, const std::string& p) {
  int id = 0;
  CRUSH_RETURN_IF_ERROR(Field(p + ".rule_id", r.has_rule_id(), r.rule_id(), 0, kMaxRuleId, &id));
  crush::Rule rule;
  std::uint8_t type = 0;
  CRUSH_RETURN_IF_ERROR(Field(p + ".type", r.has_type(), r.type(), 0, 255, &type));
  rule.type = static_cast<crush::RuleType>(type);
  // Quincy and later print neither ruleset nor sizes; they store the id and
  // 1/100 (crush/ceph_release.h PrepareForEncode).
  rule.ruleset = static_cast<std::uint8_t>(id & 0xff);
  rule.min_size = 1;
  rule.max_size = 100;
  if (r.has_ruleset()) {
    CRUSH_RETURN_IF_ERROR(Field(p + ".ruleset", true, r.ruleset(), 0, 255, &rule.ruleset));
  }
  if (r.has_min_size()) {
    CRUSH_RETURN_IF_ERROR(Field(p + ".min_size", true, r.min_size(), 0, 255, &rule.min_size));
  }
  if (r.has_max_size()) {
    CRUSH_RETURN_IF_ERROR(Field(p + ".max_size", true, r.max_size(), 0, 255, &rule.max_size));
  }
  for (int j = 0; j < r.steps_size(); ++j) {
    crush::RuleStep step;
    CRUSH_RETURN_IF_ERROR(ReadStep(r.steps(j), absl::StrCat(p, ".steps[", j, "]"), &step));
    rule.steps.push_back(step);
  }
  const auto slot = static_cast<std::size_t>(id);
  if (slot >= m_.rules.size()) {
    m_.rules.resize(slot + 1);
    m_.rule_exists.resize(slot + 1, false);
  }
  if (m_.rule_exists[slot])
    return Bad(p + ".rule_id", absl::StrCat("rule ", id, " is listed twice"));
  m_.rules[slot] = std::move(rule);
  m_.rule_exists[slot] = true;
  if (r.has_rule_name()) m_.rule_names[id] = r.rule_name();
  return absl::OkStatus();
}

struct StepName {
  const char* op;
  crush::RuleOp code;

  enum Args { kNone, kItem, kNum, kNumType } args;
};

// CrushWrapper::dump_rule's names. The set_choose_local*, vary_r and stable
// steps print as opcode/arg1/arg2 in every release seen; their names are
// accepted too.
constexpr StepName kSteps[] = {
    {"noop", crush::RuleOp::kNoop, StepName::kNone},
    {"take", crush::RuleOp::kTake, StepName::kItem},
    {"emit", crush::RuleOp::kEmit, StepName::kNone},
    {"choose_firstn", crush::RuleOp::kChooseFirstn, StepName::kNumType},
    {"choose_indep", crush::RuleOp::kChooseIndep, StepName::kNumType},
    {"chooseleaf_firstn", crush::RuleOp::kChooseleafFirstn, StepName::kNumType},
    {"chooseleaf_indep", crush::RuleOp::kChooseleafIndep, StepName::kNumType},
    {"choosemsr", crush::RuleOp::kChooseMsr, StepName::kNumType},
    {"set_choose_tries", crush::RuleOp::kSetChooseTries, StepName::kNum},
    {"set_chooseleaf_tries", crush::RuleOp::kSetChooseleafTries, StepName::kNum},
    {"set_choose_local_tries", crush::RuleOp::kSetChooseLocalTries, StepName::kNum},
    {"set_choose_local_fallback_tries", crush::RuleOp::kSetChooseLocalFallbackTries,
     StepName::kNum},
    {"set_chooseleaf_vary_r", crush::RuleOp::kSetChooseleafVaryR, StepName::kNum},
    {"set_chooseleaf_stable", crush::RuleOp::kSetChooseleafStable, StepName::kNum},
    {"set_msr_descents", crush::RuleOp::kSetMsrDescents, StepName::kNum},
    {"set_msr_collision_tries", crush::RuleOp::kSetMsrCollisionTries, StepName::kNum},
};

absl::Status DumpReader::ReadStep(const ceph::CrushDumpStep& s, const std::string& p,
                                  crush::RuleStep* step) {
  constexpr std::int64_t kI32Min = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t kI32Max = std::numeric_limits<std::int32_t>::max();
  if (!s.has_op()) {
    // An op dump_rule has no name for.
    if (!s.has_opcode()) return Bad(p, "missing op (or opcode)");
    std::uint32_t code = 0;
    CRUSH_RETURN_IF_ERROR(Field(p + ".opcode", true, s.opcode(), 0,
                                std::numeric_limits<std::uint32_t>::max(), &code));
    step->op = static_cast<crush::RuleOp>(code);
    CRUSH_RETURN_IF_ERROR(
        Field(p + ".arg1", s.has_arg1(), s.arg1(), kI32Min, kI32Max, &step->arg1));
    return Field(p + ".arg2", s.has_arg2(), s.arg2(), kI32Min, kI32Max, &step->arg2);
  }
  const StepName* known = nullptr;
  for (const StepName& n : kSteps) {
    if (s.op() == n.op) known = &n;
  }
  if (known == nullptr) return Bad(p + ".op", "unknown step " + Quote(s.op()));
  *step = crush::RuleStep{known->code, 0, 0};
  switch (known->args) {
    case StepName::kNone:
      return absl::OkStatus();
    case StepName::kItem:
      CRUSH_RETURN_IF_ERROR(
          Field(p + ".item", s.has_item(), s.item(), kI32Min, kI32Max, &step->arg1));
      return absl::OkStatus();
    case StepName::kNum:
      return Field(p + ".num", s.has_num(), s.num(), kI32Min, kI32Max, &step->arg1);
    case StepName::kNumType:
      break;
  }
  CRUSH_RETURN_IF_ERROR(Field(p + ".num", s.has_num(), s.num(), kI32Min, kI32Max, &step->arg1));
  if (!s.has_type()) return Missing(p + ".type");
  auto t = type_id_.find(s.type());
  if (t == type_id_.end()) return Bad(p + ".type", "unknown type " + Quote(s.type()));
  step->arg2 = t->second;
  return absl::OkStatus();
}

absl::Status DumpReader::ReadChooseArgs(const ceph::CrushDump& d) {
  // Sorted by index so errors come in a stable order.
  std::map<std::int64_t, const ListValue*> by_index;
  std::map<std::int64_t, std::string> key_of;
  for (const auto& [key, list] : d.choose_args()) {
    const std::string p = P("choose_args[\"" + util::TerminalExcerpt(key, 30) + "\"]");
    std::size_t used = 0;
    std::int64_t index = 0;
    try {
      index = std::stoll(key, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != key.size()) return Bad(p, "the key is not a pool id or -1");
    by_index[index] = &list;
    key_of[index] = p;
  }
  for (const auto& [index, list] : by_index) {
    crush::ChooseArgMap args;
    // Weight-set weights as printed, by (bucket, position), for the second pass.
    std::map<std::pair<ItemId, std::size_t>, std::vector<double>> raw;
    for (int i = 0; i < list->values_size(); ++i) {
      CRUSH_RETURN_IF_ERROR(
          ReadChooseArg(list->values(i), absl::StrCat(key_of[index], "[", i, "]"), &args, &raw));
    }
    CRUSH_RETURN_IF_ERROR(ResolveWeightSets(&args, raw, key_of[index]));
    // An index whose args are all empty prints as an empty list and is
    // still encoded (with no args), so it is kept.
    m_.choose_args[index] = std::move(args);
  }
  return absl::OkStatus();
}

absl::Status DumpReader::ReadChooseArg(
    const Value& v, const std::string& p, crush::ChooseArgMap* args,
    std::map<std::pair<ItemId, std::size_t>, std::vector<double>>* raw) {
  if (v.kind_case() != Value::kStructValue) return Bad(p, "expected an object");
  const Value* bid = StructField(v, "bucket_id");
  if (bid == nullptr) return Missing(p + ".bucket_id");
  std::int64_t id = 0;
  CRUSH_RETURN_IF_ERROR(IntValue(p + ".bucket_id", *bid, -crush::kMaxBucketSlots, -1, &id));
  const crush::Bucket* bucket = m_.FindBucket(static_cast<ItemId>(id));
  if (bucket == nullptr) {
    return Bad(p + ".bucket_id", absl::StrCat("bucket ", id, " is not in buckets"));
  }
  // CrushWrapper::update_choose_args drops the args of other buckets, so
  // Ceph never prints them.
  if (bucket->alg != crush::BucketAlg::kStraw2) {
    return Bad(p + ".bucket_id",
               absl::StrCat("bucket ", id, " is ", crush::BucketAlgName(bucket->alg),
                            "; choose_args apply to straw2 buckets only"));
  }
  crush::ChooseArg& arg = (*args)[static_cast<ItemId>(id)];
  if (!arg.weight_set.empty() || !arg.ids.empty()) {
    return Bad(p + ".bucket_id", absl::StrCat("bucket ", id, " is listed twice"));
  }
  if (const Value* ws = StructField(v, "weight_set"); ws != nullptr) {
    if (ws->kind_case() != Value::kListValue) return Bad(p + ".weight_set", "expected an array");
    for (int pos = 0; pos < ws->list_value().values_size(); ++pos) {
      const Value& row = ws->list_value().values(pos);
      const std::string rp = absl::StrCat(p, ".weight_set[", pos, "]");
      if (row.kind_case() != Value::kListValue) return Bad(rp, "expected an array of weights");
      std::vector<Weight> weights;
      std::vector<double> printed;
      for (int k = 0; k < row.list_value().values_size(); ++k) {
        const Value& w = row.list_value().values(k);
        const std::string wp = absl::StrCat(rp, "[", k, "]");
        if (w.kind_case() != Value::kNumberValue) return Bad(wp, "expected a number");
        const std::optional<Weight> stored = WeightFromDumpedFloat(w.number_value());
        if (!stored) {
          return Bad(wp,
                     absl::StrCat(w.number_value(), " is not a weight Ceph prints (0 to 65536)"));
        }
        weights.push_back(*stored);
        printed.push_back(w.number_value());
      }
      if (weights.size() != bucket->items.size()) {
        return Bad(rp, absl::StrCat(weights.size(), " weights for a bucket of ",
                                    bucket->items.size(), " items"));
      }
      arg.weight_set.push_back(std::move(weights));
      (*raw)[{static_cast<ItemId>(id), arg.weight_set.size() - 1}] = std::move(printed);
    }
  }
  if (const Value* ids = StructField(v, "ids"); ids != nullptr) {
    if (ids->kind_case() != Value::kListValue) return Bad(p + ".ids", "expected an array");
    for (int k = 0; k < ids->list_value().values_size(); ++k) {
      std::int64_t item = 0;
      CRUSH_RETURN_IF_ERROR(IntValue(absl::StrCat(p, ".ids[", k, "]"), ids->list_value().values(k),
                                     std::numeric_limits<std::int32_t>::min(),
                                     std::numeric_limits<std::int32_t>::max(), &item));
      arg.ids.push_back(static_cast<ItemId>(item));
    }
    if (arg.ids.size() != bucket->items.size()) {
      return Bad(p + ".ids", absl::StrCat(arg.ids.size(), " ids for a bucket of ",
                                          bucket->items.size(), " items"));
    }
  }
  // Args with neither are never encoded (nor printed by Ceph).
  if (arg.weight_set.empty() && arg.ids.empty()) args->erase(static_cast<ItemId>(id));
  return absl::OkStatus();
}

// From 2^24 on, (float)w maps several w to one printed value; pick the one
// Ceph most likely stored (see the header): the child's weight-set sum at
// this position, else the item's weight, else the float's own value.
absl::Status DumpReader::ResolveWeightSets(
    crush::ChooseArgMap* args,
    const std::map<std::pair<ItemId, std::size_t>, std::vector<double>>& raw,
    const std::string& path) {
  std::set<ItemId> done;
  std::set<ItemId> active;  // guards against cycles in a malformed dump
  std::function<void(ItemId)> resolve = [&](ItemId id) {
    if (done.count(id) != 0 || active.count(id) != 0) return;
    active.insert(id);
    crush::ChooseArg& arg = (*args)[id];
    const crush::Bucket* bucket = m_.FindBucket(id);
    for (std::size_t pos = 0; pos < arg.weight_set.size(); ++pos) {
      auto printed = raw.find({id, pos});
      if (printed == raw.end()) continue;
      std::vector<Weight>& weights = arg.weight_set[pos];
      for (std::size_t k = 0; k < weights.size(); ++k) {
        if (weights[k] < static_cast<Weight>(kFloatExactLimit)) continue;
        const float as_printed = static_cast<float>(weights[k]);
        std::vector<Weight> candidates;
        if (bucket != nullptr && k < bucket->items.size()) {
          const ItemId child = bucket->items[k];
          if (auto c = args->find(child); child < 0 && c != args->end()) {
            resolve(child);
            const auto& child_ws = c->second.weight_set;
            if (!child_ws.empty()) {
              std::uint64_t sum = 0;
              for (Weight w : child_ws[std::min(pos, child_ws.size() - 1)]) sum += w;
              if (sum <= std::numeric_limits<Weight>::max())
                candidates.push_back(static_cast<Weight>(sum));
            }
          }
          candidates.push_back(crush::BucketItemWeight(*bucket, k));
        }
        for (Weight c : candidates) {
          if (static_cast<float>(c) == as_printed) {
            weights[k] = c;
            break;
          }
        }
      }
    }
    active.erase(id);
    done.insert(id);
  };
  for (auto& [id, arg] : *args) resolve(id);
  (void)path;
  return absl::OkStatus();
}

absl::Status ParseJson(std::string_view json, google::protobuf::Message* msg) {
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = true;
  const auto st = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), msg, opts);
  if (!st.ok()) {
    return absl::InvalidArgumentError("not a crush dump: " +
                                      LocateJsonError(json, std::string(st.message())));
  }
  return absl::OkStatus();
}

bool HasAnyPart(const ceph::CrushDump& d) {
  return d.devices_size() > 0 || d.types_size() > 0 || d.buckets_size() > 0 || d.rules_size() > 0 ||
         d.has_tunables() || d.choose_args_size() > 0;
}

std::size_t FirstNonSpace(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
    ++i;
  return i;
}

}  // namespace

std::optional<Weight> WeightFromDumpedFloat(double value) {
  // dump_choose_args prints (float)w / (float)0x10000: the division by a
  // power of two is exact, so value * 0x10000 is (float)w, which is w for
  // every w below 2^24. Printed with 17 significant digits (Pacific and
  // later) it is exact; with 6 decimals ("%lf", older releases) it is off
  // by at most 5e-7 * 0x10000 < 0.033, so rounding recovers (float)w too.
  if (!std::isfinite(value) || value < 0) return std::nullopt;
  const double scaled = std::nearbyint(value * 65536.0);
  // (float)UINT32_MAX is 2^32: the largest value a u32 weight prints as.
  if (scaled > 4294967296.0) return std::nullopt;
  if (scaled >= 4294967295.0) return std::numeric_limits<Weight>::max();
  return static_cast<Weight>(scaled);
}

bool LooksLikeCrushDumpJson(std::string_view text) {
  const InputKind kind = SniffInput(text);
  return kind == InputKind::kCephCrushDumpJson || kind == InputKind::kCephReportJson;
}

absl::StatusOr<crush::MapModel> ReadCrushDumpJson(std::string_view json) {
  const std::size_t first = FirstNonSpace(json);
  if (first == json.size() || json[first] != '{') {
    return absl::InvalidArgumentError(
        "not a crush dump: expected a JSON object ('ceph osd crush dump -f json')");
  }
  ceph::CrushDump dump;
  CRUSH_RETURN_IF_ERROR(ParseJson(json, &dump));
  if (HasAnyPart(dump)) return DumpReader("").Read(dump);
  // A `ceph report`: its crushmap section.
  ceph::CrushDumpInReport report;
  CRUSH_RETURN_IF_ERROR(ParseJson(json, &report));
  if (!report.has_crushmap()) {
    return absl::InvalidArgumentError(
        "not a crush dump: no devices, types, buckets, rules or tunables (expected 'ceph osd "
        "crush dump -f json', or a 'ceph report' with its crushmap)");
  }
  return DumpReader("crushmap.").Read(report.crushmap());
}

}  // namespace crushkit::osdmap
