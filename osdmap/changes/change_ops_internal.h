// Private to the change-op files (change_ops.cc, change_op_parsers.cc,
// change_op_table.cc and the applier): the tables both the parser (names,
// ranges) and the applier (the fields they set) need, the argument words and
// diagnostics of one command, the parse functions the op table names, and
// small text helpers. Not installed; not an API.
#ifndef CRUSHKIT_OSDMAP_CHANGES_CHANGE_OPS_INTERNAL_H_
#define CRUSHKIT_OSDMAP_CHANGES_CHANGE_OPS_INTERNAL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crush/model.h"
#include "crush/util/diagnostics.h"
#include "osdmap/changes/change_ops.h"

namespace crushkit::osdmap::internal {

// A tunable `osd crush set-tunable` accepts, by the name Ceph's decompiled
// maps and crushtool use, with the largest value its field holds (0/1 for
// the boolean ones; straw_calc_version 0/1 as Ceph's set-tunable checks).
struct TunableSpec {
  std::string_view name;
  std::uint64_t max;
  void (*set)(crush::Tunables&, std::uint64_t);
};

inline const std::vector<TunableSpec>& Tunables() {
  static const std::vector<TunableSpec>* specs = new std::vector<TunableSpec>{
      {"choose_local_tries", 0xffffffffu,
       [](crush::Tunables& t, std::uint64_t v) {
         t.choose_local_tries = static_cast<std::uint32_t>(v);
       }},
      {"choose_local_fallback_tries", 0xffffffffu,
       [](crush::Tunables& t, std::uint64_t v) {
         t.choose_local_fallback_tries = static_cast<std::uint32_t>(v);
       }},
      {"choose_total_tries", 0xffffffffu,
       [](crush::Tunables& t, std::uint64_t v) {
         t.choose_total_tries = static_cast<std::uint32_t>(v);
       }},
      {"chooseleaf_descend_once", 1,
       [](crush::Tunables& t, std::uint64_t v) {
         t.chooseleaf_descend_once = static_cast<std::uint32_t>(v);
       }},
      {"chooseleaf_vary_r", 0xff,
       [](crush::Tunables& t, std::uint64_t v) {
         t.chooseleaf_vary_r = static_cast<std::uint8_t>(v);
       }},
      {"chooseleaf_stable", 1,
       [](crush::Tunables& t, std::uint64_t v) {
         t.chooseleaf_stable = static_cast<std::uint8_t>(v);
       }},
      {"straw_calc_version", 1,
       [](crush::Tunables& t, std::uint64_t v) {
         t.straw_calc_version = static_cast<std::uint8_t>(v);
       }},
      {"allowed_bucket_algs", 0xffffffffu,
       [](crush::Tunables& t, std::uint64_t v) {
         t.allowed_bucket_algs = static_cast<std::uint32_t>(v);
       }},
  };
  return *specs;
}

inline const TunableSpec* FindTunable(std::string_view name) {
  for (const TunableSpec& t : Tunables()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// `osd crush tunables` profile names (OSDMonitor's list).
inline const std::vector<std::pair<std::string_view, crush::TunablesProfile>>& TunablesProfiles() {
  static const auto* profiles =
      new std::vector<std::pair<std::string_view, crush::TunablesProfile>>{
          {"legacy", crush::TunablesProfile::kLegacy},
          {"argonaut", crush::TunablesProfile::kArgonaut},
          {"bobtail", crush::TunablesProfile::kBobtail},
          {"firefly", crush::TunablesProfile::kFirefly},
          {"hammer", crush::TunablesProfile::kHammer},
          {"jewel", crush::TunablesProfile::kJewel},
          {"optimal", crush::TunablesProfile::kOptimal},
          {"default", crush::TunablesProfile::kDefault},
      };
  return *profiles;
}

inline std::optional<crush::TunablesProfile> FindTunablesProfile(std::string_view name) {
  for (const auto& [n, p] : TunablesProfiles()) {
    if (n == name) return p;
  }
  return std::nullopt;
}

// The suggestions of change files and their applier (crush/util/diagnostics.h).
using util::ClosestName;
using util::DidYouMean;

// Digits only, at most 19 of them; nullopt otherwise.
std::optional<std::uint64_t> ParseDecimal(std::string_view text);

// The diagnostics of one change file, each at a word of it.
class Diagnostics {
 public:
  void At(const Word& w, std::string message) {
    list_.push_back(ChangeDiagnostic{w.line, w.column, std::max(1, static_cast<int>(w.text.size())),
                                     std::move(message)});
  }

  // Just past the end of `w` (where a missing word was expected).
  void After(const Word& w, std::string message) {
    list_.push_back(ChangeDiagnostic{w.line, w.column + static_cast<int>(w.text.size()), 1,
                                     std::move(message)});
  }

  std::size_t size() const { return list_.size(); }

  std::vector<ChangeDiagnostic>& list() { return list_; }

 private:
  std::vector<ChangeDiagnostic> list_;
};

// The argument words of one command, consumed left to right. Every failure
// is reported with the command's usage.
class Args {
 public:
  Args(const std::vector<Word>& words, std::size_t first, std::string_view usage,
       Diagnostics& diags)
      : words_(words), pos_(first), usage_(usage), diags_(diags) {}

  bool empty() const { return pos_ >= words_.size(); }

  std::size_t remaining() const { return words_.size() - pos_; }

  const Word& Peek() const { return words_[pos_]; }

  // The next word, or nullptr after reporting "missing WHAT".
  const Word* Next(std::string_view what) {
    if (!empty()) return &words_[pos_++];
    diags_.After(words_.back(),
                 "missing " + std::string(what) + "; expected '" + std::string(usage_) + "'");
    return nullptr;
  }

  // Reports every word left over; true if there was none.
  bool Finish() {
    if (empty()) return true;
    diags_.At(words_[pos_],
              "extra argument '" + words_[pos_].text + "'; expected '" + std::string(usage_) + "'");
    pos_ = words_.size();
    return false;
  }

  Diagnostics& diags() { return diags_; }

 private:
  const std::vector<Word>& words_;
  std::size_t pos_;
  std::string_view usage_;
  Diagnostics& diags_;
};

// Each command's argument grammar (change_op_parsers.cc), named by the op table
// (change_op_table.cc): read the words after the command's own into `op`;
// false after reporting.
bool ParseAddBucket(Args& args, ChangeOp& op);
bool ParseAddOrSet(Args& args, ChangeOp& op);
bool ParseNameOnly(Args& args, ChangeOp& op);
bool ParseReweight(Args& args, ChangeOp& op);
bool ParseMove(Args& args, ChangeOp& op);
bool ParseSwapBucket(Args& args, ChangeOp& op);
bool ParseOsdList(Args& args, ChangeOp& op);
bool ParseSetDeviceClass(Args& args, ChangeOp& op);
bool ParseRuleCreate(Args& args, ChangeOp& op);
bool ParseTunables(Args& args, ChangeOp& op);
bool ParseSetTunable(Args& args, ChangeOp& op);
bool ParseOsdFraction(Args& args, ChangeOp& op);
bool ParsePgOnly(Args& args, ChangeOp& op);
bool ParsePgUpmap(Args& args, ChangeOp& op);
bool ParsePgUpmapItems(Args& args, ChangeOp& op);
bool ParsePgUpmapPrimary(Args& args, ChangeOp& op);
bool ParsePurge(Args& args, ChangeOp& op);
bool ParsePoolSet(Args& args, ChangeOp& op);
bool ParseAddHost(Args& args, ChangeOp& op);

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_CHANGES_CHANGE_OPS_INTERNAL_H_
