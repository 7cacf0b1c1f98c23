#include "tools/crushtool/modifications.h"

#include <string>

#include "absl/status/status.h"

#include "crush/edit/edit.h"
#include "crush/util/text_format.h"
#include "tools/crushtool/ceph_io.h"
#include "tools/crushtool/tester.h"

namespace crushkit::tools::crushtool {
namespace {

// Ceph's operator<<(ostream, map<string,string>): "{k=v,k=v}".
std::string FormatLoc(const crush::Location& loc) {
  std::string s = "{";
  for (auto it = loc.begin(); it != loc.end(); ++it) {
    if (it != loc.begin()) s += ",";
    s += it->first + "=" + it->second;
  }
  return s + "}";
}

// The end of a failed edit: crushtool's `return r` (r = -errno) from main.
class Stage {
 public:
  Stage(std::FILE* out, std::FILE* err) : out_(out), err_(err) {}

  // Prints "crushtool (E) text" and gives the exit status for -E.
  int FailWithErrno(const absl::Status& s) {
    if (crush::CephWouldCrash(s)) return Crash(s);
    const int e = crush::CephErrno(s);
    WriteAndFlush(err_, std::string(kMe) + " " + CppStrerror(e) + "\n");
    return ExitFor(e);
  }

  // `return r` without a message.
  int Silent(const absl::Status& s) {
    if (crush::CephWouldCrash(s)) return Crash(s);
    return ExitFor(crush::CephErrno(s));
  }

  int Crash(const absl::Status& s) {
    WriteAndFlush(err_,
                  "crushkit crushtool: undefined in Ceph: " + std::string(s.message()) + "\n");
    return 1;
  }

  static int ExitFor(int err) { return (256 - err) & 0xff; }

  std::FILE* out_;
  std::FILE* err_;
};

// --reweight-item NAME W: adjust_item_weightf(), whose "in no bucket" is
// -ENOENT for crushtool.
std::optional<int> ReweightItem(const CrushtoolOptions& o, crush::MapModel& model, Stage& st) {
  WriteAndFlush(st.out_, std::string(kMe) + " reweighting item " + o.reweight_name + " to " +
                             util::FormatCephFloat(o.reweight_weight) + "\n");
  auto id = crush::FindItem(model, o.reweight_name);
  if (!id.ok()) {
    WriteAndFlush(st.err_, " name " + o.reweight_name + " dne\n");
    return st.FailWithErrno(absl::NotFoundError(""));
  }
  auto changed = crush::AdjustItemWeightF(model, *id, o.reweight_weight);
  if (!changed.ok()) return st.FailWithErrno(changed.status());
  if (*changed == 0) return st.FailWithErrno(absl::NotFoundError(""));
  return std::nullopt;
}

std::optional<int> RemoveItem(const CrushtoolOptions& o, crush::MapModel& model, Stage& st) {
  WriteAndFlush(st.out_, std::string(kMe) + " removing item " + o.remove_name + "\n");
  auto id = crush::FindItem(model, o.remove_name);
  if (!id.ok()) {
    WriteAndFlush(st.err_, " name " + o.remove_name + " dne\n");
    return st.FailWithErrno(absl::NotFoundError(""));
  }
  if (auto s = crush::RemoveItem(model, *id, false); !s.ok()) return st.FailWithErrno(s);
  return std::nullopt;
}

std::optional<int> AddItem(const CrushtoolOptions& o, crush::MapModel& model, Stage& st) {
  const absl::Status s =
      o.update_item ? crush::UpdateItem(model, o.add_item, o.add_weight, o.add_name, o.add_loc)
                    : crush::InsertItem(model, o.add_item, o.add_weight, o.add_name, o.add_loc);
  if (!s.ok()) return st.FailWithErrno(s);
  return std::nullopt;
}

// do_add_bucket(): each check with its own message.
std::optional<int> AddBucket(const CrushtoolOptions& o, crush::MapModel& model, Stage& st) {
  const std::string me = kMe;
  if (crush::FindItem(model, o.add_name).ok()) {
    WriteAndFlush(st.err_, me + " bucket '" + o.add_name + "' already exists\n");
    return Stage::ExitFor(17);
  }
  int type = -1;
  for (const auto& [id, name] : model.type_names) {
    if (name == o.add_type) type = id;
  }
  if (type <= 0) {
    WriteAndFlush(st.err_, me + " bad bucket type: " + o.add_type + "\n");
    return Stage::ExitFor(22);
  }
  if (crush::DefaultBucketAlg(model) == crush::BucketAlg::kNone) {
    WriteAndFlush(st.err_, me + " unable to add bucket: " + CppStrerror(22) + "\n");
    return Stage::ExitFor(22);
  }
  if (!crush::IsValidCrushName(o.add_name)) {
    WriteAndFlush(st.err_, me + " bad bucket name: " + o.add_name + "\n");
    return Stage::ExitFor(22);
  }
  auto id = crush::CreateBucket(model, o.add_name, o.add_type, o.add_loc);
  if (!id.ok()) {
    if (crush::CephWouldCrash(id.status())) return st.Crash(id.status());
    WriteAndFlush(st.err_, me + " error moving bucket '" + o.add_name + "' to " +
                               FormatLoc(o.add_loc) + "\n");
    return st.Silent(id.status());
  }
  return std::nullopt;
}

// do_move_item(): 1 ("already there") ends crushtool with status 1.
std::optional<int> MoveItem(const CrushtoolOptions& o, crush::MapModel& model, Stage& st) {
  const std::string me = kMe;
  auto id = crush::FindItem(model, o.move_name);
  if (!id.ok()) {
    WriteAndFlush(st.err_, me + " item '" + o.move_name + "' does not exist\n");
    return Stage::ExitFor(2);
  }
  if (o.add_loc.empty()) {
    WriteAndFlush(st.err_, me + " expecting additional --loc argument to --move\n");
    return Stage::ExitFor(22);
  }
  if (crush::CheckItemLoc(model, *id, o.add_loc)) {
    WriteAndFlush(st.err_,
                  me + " item '" + o.move_name + "' already at " + FormatLoc(o.add_loc) + "\n");
    return 1;
  }
  if (*id >= 0) {
    auto changed = crush::CreateOrMoveItem(model, *id, 0, o.move_name, o.add_loc);
    if (!changed.ok()) return st.Silent(changed.status());
    if (!*changed) return 1;
    return std::nullopt;
  }
  if (auto s = crush::MoveBucket(model, *id, o.add_loc); !s.ok()) return st.Silent(s);
  return std::nullopt;
}

// --create-simple-rule / --create-replicated-rule: add_simple_rule().
std::optional<int> AddRule(const CrushtoolOptions& o, crush::MapModel& model, Stage& st) {
  if (crush::FindRuleByName(model, o.rule_name).ok()) {
    WriteAndFlush(st.err_, "rule " + o.rule_name + " already exists\n");
    return 1;
  }
  crush::SimpleRuleSpec spec;
  spec.name = o.rule_name;
  spec.root = o.rule_root;
  spec.failure_domain = o.rule_type;
  spec.device_class = o.rule_device_class;
  spec.mode = o.rule_mode;
  auto id = crush::AddSimpleRule(model, spec);
  if (!id.ok()) {
    if (crush::CephWouldCrash(id.status())) return st.Crash(id.status());
    WriteAndFlush(st.err_, crush::CephErrorText(id.status()) + "\n");
    return 1;
  }
  return std::nullopt;
}

// --remove-rule: a missing rule ends crushtool with status 0, nothing written.
std::optional<int> DeleteRule(const CrushtoolOptions& o, crush::MapModel& model, Stage& st) {
  auto id = crush::FindRuleByName(model, o.rule_name);
  if (!id.ok()) {
    WriteAndFlush(st.err_, "rule " + o.rule_name + " does not exist\n");
    return 0;
  }
  if (auto s = crush::RemoveRule(model, *id); !s.ok()) {
    if (crush::CephWouldCrash(s)) return st.Crash(s);
    WriteAndFlush(st.err_, "fail to remove rule " + o.rule_name + "\n");
    return 1;
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> ApplyModifications(const CrushtoolOptions& o, crush::MapModel& model,
                                      bool* modified, std::FILE* out, std::FILE* err) {
  Stage st(out, err);
  std::optional<int> r;
  if (!o.reweight_name.empty()) {
    if ((r = ReweightItem(o, model, st))) return r;
    *modified = true;
  }
  if (!o.remove_name.empty()) {
    if ((r = RemoveItem(o, model, st))) return r;
    *modified = true;
  }
  if (o.add_item >= 0) {
    if ((r = AddItem(o, model, st))) return r;
    *modified = true;
  }
  if (o.add_bucket) {
    if ((r = AddBucket(o, model, st))) return r;
    *modified = true;
  }
  if (o.move_item) {
    if ((r = MoveItem(o, model, st))) return r;
    *modified = true;
  }
  if (o.add_rule) {
    if ((r = AddRule(o, model, st))) return r;
    *modified = true;
  }
  if (o.del_rule) {
    if ((r = DeleteRule(o, model, st))) return r;
    *modified = true;
  }
  if (o.reweight) {
    if (auto s = crush::ReweightAll(model); !s.ok()) return st.Crash(s);
    *modified = true;
  }
  if (o.rebuild_class_roots) {
    if (auto s = crush::RebuildRootsWithClasses(model); !s.ok()) {
      if (crush::CephWouldCrash(s)) return st.Crash(s);
      WriteAndFlush(err, "failed to rebuidl roots with classes\n");  // sic
      return 1;
    }
    *modified = true;
  }
  return std::nullopt;
}

}  // namespace crushkit::tools::crushtool
