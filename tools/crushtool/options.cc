#include "tools/crushtool/options.h"

#include <climits>
#include <cmath>
#include <cstdlib>

#include "tools/common/ceph_args.h"
#include "tools/crushtool/help_text.h"

namespace crushkit::tools::crushtool {

std::uint32_t DeviceWeightFromFloat(float w) {
  const float scaled = w * static_cast<float>(0x10000);
  // cvttss2si yields INT_MIN ("integer indefinite") for NaN and out of range.
  int iw = INT_MIN;
  if (std::isfinite(scaled) && scaled > -2147483648.0F && scaled < 2147483648.0F) {
    iw = static_cast<int>(scaled);
  }
  if (iw < 0) iw = 0;
  if (iw > 0x10000) iw = 0x10000;
  return static_cast<std::uint32_t>(iw);
}

namespace {

// Ceph reads float option values with atof(): leading blanks, decimal or hex
// floats, inf/nan; garbage gives 0.
float Atof(const std::string& s) { return static_cast<float>(std::atof(s.c_str())); }

int Atoi(const std::string& s) { return std::atoi(s.c_str()); }

}  // namespace

namespace {

// The option loop of Ceph's crushtool main() (src/tools/crushtool.cc), one
// group of options per member function, tried in Ceph's order: the first
// option that matches the front of the list takes it.
class ArgParser {
 public:
  // What one group did with the front of the list.
  enum class Step {
    kNone,   // not one of this group's options
    kTaken,  // consumed an option (and its values)
    kStop,   // the parse is over; `res` says how
  };

  ArgParser(std::vector<std::string> argv, crush::CephRelease release, ParseOutcome& res)
      : res_(res),
        o_(res.options),
        t_(res.options.tester),
        args_(std::move(argv)),
        has_rulesets_(crush::HasRulesets(release)) {
    t_.rule_sizes_default = has_rulesets_;
  }

  // Runs the option loop, then the checks after it; returns the outcome.
  ParseOutcome& Run() {
    while (!args_.AtEnd()) {
      if (args_.DoubleDash()) break;
      Step s = FilesAndModes();
      if (s == Step::kNone) s = Display();
      if (s == Step::kNone) s = ActionsAndTunables();
      if (s == Step::kNone) s = Edits();
      if (s == Step::kNone) s = BuildAndTestRange();
      if (s == Step::kStop) return res_;
      if (s == Step::kNone) args_.Next();
    }
    return Finish();
  }

 private:
  ParseOutcome& ExitWith(int code) {
    res_.exit_now = true;
    res_.exit_code = code;
    return res_;
  }

  // Ceph's shared `std::ostringstream err`: several options append to it
  // without checking; the next option that checks prints everything.
  // Returns false (and ends the parse) when it holds an error.
  bool Checked() {
    if (err_.empty()) return true;
    res_.err += err_ + "\n";
    ExitWith(1);
    return false;
  }

  // String options without an error stream: a missing value is fatal.
  // Returns 1 for a value in `val_`, 0 for no match, -1 when the parse ends.
  int WithString(std::initializer_list<std::string_view> names) {
    std::string msg;
    const ArgMatch m = args_.WithArg(names, &val_, &msg);
    if (m == ArgMatch::kMissing) {
      res_.err += msg;
      ExitWith(1);
      return -1;
    }
    return m == ArgMatch::kValue ? 1 : 0;
  }

  // A string option with an error stream: the match as an int (ArgMatch).
  int WithChecked(std::initializer_list<std::string_view> names) {
    return static_cast<int>(args_.WithArg(names, &val_, &err_));
  }

  bool NeedMore(const std::string& what) {
    if (!args_.AtEnd()) return true;
    res_.err += "expecting additional argument" + what + "\n";
    ExitWith(1);
    return false;
  }

  // After a string option matched: kStop if it ended the parse, else kTaken.
  static Step Taken(int r) { return r < 0 ? Step::kStop : Step::kTaken; }

  static Step TakenIf(bool ok) { return ok ? Step::kTaken : Step::kStop; }

  // Input and output files, compare, reclassify, tree and dump.
  Step FilesAndModes() {
    int r = 0;
    if ((r = WithString({"-d", "--decompile"})) != 0) {
      if (r < 0) return Step::kStop;
      o_.infn = val_;
      o_.decompile = true;
    } else if ((r = WithString({"-i", "--infn"})) != 0) {
      if (r > 0) o_.infn = val_;
      return Taken(r);
    } else if ((r = WithString({"-o", "--outfn"})) != 0) {
      if (r > 0) o_.outfn = val_;
      return Taken(r);
    } else if (args_.Flag({"-v", "--verbose"})) {
      o_.verbose += 1;
    } else if ((r = WithString({"--compare"})) != 0) {
      if (r > 0) o_.compare = val_;
      return Taken(r);
    } else if (args_.Flag({"--reclassify"})) {
      o_.reclassify = true;
    } else if ((r = WithString({"--reclassify-bucket"})) != 0) {
      if (r < 0 || !NeedMore("")) return Step::kStop;
      std::string cls = args_.Take();
      if (!NeedMore("")) return Step::kStop;
      o_.reclassify_bucket[val_] = {std::move(cls), args_.Take()};
    } else if ((r = WithString({"--reclassify-root"})) != 0) {
      if (r < 0 || !NeedMore("")) return Step::kStop;
      o_.reclassify_root[val_] = args_.Take();
    } else if ((r = WithString({"--set-subtree-class"})) != 0) {
      if (r < 0 || !NeedMore("")) return Step::kStop;
      o_.set_subtree_class[val_] = args_.Take();
    } else if (args_.Flag({"--tree"})) {
      o_.tree = true;
    } else if (args_.Flag({"--bucket-tree"})) {
      o_.bucket_tree = true;
    } else if ((r = WithString({"--bucket-name"})) != 0) {
      if (r > 0) o_.bucket_name = val_;
      return Taken(r);
    } else if ((r = WithString({"-f", "--format"})) != 0) {
      if (r > 0) o_.dump_format = val_;
      return Taken(r);
    } else if (args_.Flag({"--dump"})) {
      o_.dump = true;
    } else {
      return Step::kNone;
    }
    return Step::kTaken;
  }

  // The --show_X outputs of --test.
  Step Display() {
    bool* output = nullptr;
    if (args_.Flag({"--show_utilization"})) {
      output = &t_.output_utilization;
    } else if (args_.Flag({"--show_utilization_all"})) {
      output = &t_.output_utilization_all;
    } else if (args_.Flag({"--show_statistics"})) {
      output = &t_.output_statistics;
    } else if (args_.Flag({"--show_mappings"})) {
      output = &t_.output_mappings;
    } else if (args_.Flag({"--show_bad_mappings"})) {
      output = &t_.output_bad_mappings;
    } else if (args_.Flag({"--show_choose_tries"})) {
      output = &t_.output_choose_tries;
    } else {
      return Step::kNone;
    }
    o_.display = true;
    *output = true;
    return Step::kTaken;
  }

  // Compile, check, test, simulate, the tunables and reweighting.
  Step ActionsAndTunables() {
    int r = 0;
    if ((r = WithString({"-c", "--compile"})) != 0) {
      if (r < 0) return Step::kStop;
      o_.srcfn = val_;
      o_.compile = true;
    } else if (args_.WithInt({"--check"}, &o_.max_id, &err_)) {
      o_.check = true;
    } else if (args_.Flag({"-t", "--test"})) {
      o_.test = true;
    } else if (args_.WithInt({"--show-location"}, &o_.full_location, &err_)) {
    } else if (args_.Flag({"-s", "--simulate"})) {
      t_.simulate = true;
    } else if (args_.Flag({"--enable-unsafe-tunables"})) {
    } else if (args_.WithInt({"--set_choose_local_tries"}, &o_.choose_local_tries, &err_) ||
               args_.WithInt({"--set_choose_local_fallback_tries"}, &o_.choose_local_fallback_tries,
                             &err_) ||
               args_.WithInt({"--set_choose_total_tries"}, &o_.choose_total_tries, &err_) ||
               args_.WithInt({"--set_chooseleaf_descend_once"}, &o_.chooseleaf_descend_once,
                             &err_) ||
               args_.WithInt({"--set_chooseleaf_vary_r"}, &o_.chooseleaf_vary_r, &err_) ||
               args_.WithInt({"--set_chooseleaf_stable"}, &o_.chooseleaf_stable, &err_) ||
               args_.WithInt({"--set_straw_calc_version"}, &o_.straw_calc_version, &err_) ||
               args_.WithInt({"--set_allowed_bucket_algs"}, &o_.allowed_bucket_algs, &err_)) {
      o_.adjust = true;
    } else if (args_.Flag({"--reweight"})) {
      o_.reweight = true;
    } else if (args_.Flag({"--rebuild-class-roots"})) {
      o_.rebuild_class_roots = true;
    } else {
      return Step::kNone;
    }
    return Step::kTaken;
  }

  // --add_item and --update_item: ID WEIGHT NAME.
  Step AddOrUpdateItem(bool update) {
    const std::string what = update ? " to --update-item" : " to --add-item";
    if (update) o_.update_item = true;
    if (!Checked() || !NeedMore(what)) return Step::kStop;
    o_.add_weight = Atof(args_.Take());
    if (!NeedMore(what)) return Step::kStop;
    o_.add_name = args_.Take();
    return Step::kTaken;
  }

  // --create-simple-rule NAME ROOT TYPE MODE and
  // --create-replicated-rule NAME ROOT TYPE.
  Step CreateRule(bool simple) {
    if (!Checked()) return Step::kStop;
    const std::string option = simple ? "--create-simple-rule" : "--create-replicated-rule";
    std::string parts[3];
    const int count = simple ? 3 : 2;
    for (int i = 0; i < count; ++i) {
      if (!NeedMore(" to " + option)) return Step::kStop;
      parts[i] = args_.Take();
    }
    res_.out += option + ": name=" + val_ + " root=" + parts[0] + " type=" + parts[1] +
                (simple ? " mode=" + parts[2] : "") + "\n";
    o_.rule_name = val_;
    o_.rule_root = parts[0];
    o_.rule_type = parts[1];
    o_.rule_mode = simple ? parts[2] : "firstn";
    o_.add_rule = true;
    return Step::kTaken;
  }

  // Items, buckets, rules and locations added, moved, removed, reweighted.
  Step Edits() {
    int r = 0;
    if (args_.WithInt({"--add_item"}, &o_.add_item, &err_)) return AddOrUpdateItem(false);
    if (args_.WithInt({"--update_item"}, &o_.add_item, &err_)) return AddOrUpdateItem(true);
    if ((r = WithChecked({"--add-bucket"})) != 0) {
      if (r == static_cast<int>(ArgMatch::kValue)) {
        o_.add_name = val_;
        if (args_.AtEnd()) {
          err_ += "expecting additional argument to --add-bucket";
        } else {
          o_.add_type = args_.Take();
        }
      }
      if (!Checked()) return Step::kStop;
      o_.add_bucket = true;
    } else if ((r = WithChecked({"--move"})) != 0) {
      if (r == static_cast<int>(ArgMatch::kValue)) o_.move_name = val_;
      if (!Checked()) return Step::kStop;
      o_.move_item = true;
    } else if (WithChecked({"--create-simple-rule"}) != 0) {
      return CreateRule(/*simple=*/true);
    } else if (WithChecked({"--create-replicated-rule"}) != 0) {
      return CreateRule(/*simple=*/false);
    } else if ((r = WithString({"--device-class"})) != 0) {
      if (r < 0) return Step::kStop;
      o_.rule_device_class = val_;
      return TakenIf(Checked());
    } else if ((r = WithString({"--remove-rule"})) != 0) {
      if (r < 0) return Step::kStop;
      o_.rule_name = val_;
      if (!Checked()) return Step::kStop;
      o_.del_rule = true;
    } else if ((r = WithString({"--loc"})) != 0) {
      if (r < 0 || !NeedMore(" to --loc")) return Step::kStop;
      o_.add_loc[val_] = args_.Take();
    } else if (args_.Flag({"--output-csv"})) {
      write_to_file_ = true;
      t_.output_csv = true;
    } else if (args_.Flag({"--help-output"})) {
      res_.out += HelpOutputText();
      ExitWith(0);
      return Step::kStop;
    } else if ((r = WithString({"--output-name"})) != 0) {
      if (r < 0 || !NeedMore(" to --output-name")) return Step::kStop;
      t_.output_name = val_ + "-";
    } else if ((r = WithString({"--remove_item"})) != 0) {
      if (r > 0) o_.remove_name = val_;
      return Taken(r);
    } else if ((r = WithString({"--reweight_item"})) != 0) {
      if (r < 0) return Step::kStop;
      o_.reweight_name = val_;
      if (!NeedMore(" to --reweight-item")) return Step::kStop;
      o_.reweight_weight = Atof(args_.Take());
    } else {
      return Step::kNone;
    }
    return Step::kTaken;
  }

  // --build's size and --test's ranges, ratios and device weights.
  Step BuildAndTestRange() {
    int x = 0;
    std::int64_t z = 0;
    if (args_.Flag({"--build"})) {
      o_.build = true;
      return Step::kTaken;
    }
    if (args_.WithInt({"--num_osds"}, &o_.num_osds, &err_)) return TakenIf(Checked());
    if (args_.WithInt({"--num_rep"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.min_rep = t_.max_rep = x;
    } else if (!has_rulesets_ && args_.WithInt({"--min_rep"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.min_rep = x;
    } else if (!has_rulesets_ && args_.WithInt({"--max_rep"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.max_rep = x;
    } else if (args_.WithInt({"--max_x"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.max_x = x;
    } else if (args_.WithInt({"--min_x"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.min_x = x;
    } else if (args_.WithInt64({"--pool_id"}, &z, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.pool_id = z;
    } else if (args_.WithInt({"--x"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.min_x = t_.max_x = x;
    } else {
      return RulesAndRatios();
    }
    return Step::kTaken;
  }

  Step RulesAndRatios() {
    int r = 0;
    int x = 0;
    if (args_.WithInt({"--max_rule"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.max_rule = x;
    } else if (args_.WithInt({"--min_rule"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.min_rule = x;
    } else if (args_.WithInt({"--rule"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.min_rule = t_.max_rule = x;
    } else if (has_rulesets_ && args_.WithInt({"--ruleset"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.ruleset = x;
    } else if (args_.WithInt({"--batches"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      t_.batches = x;
    } else if ((r = WithChecked({"--mark-down-ratio"})) != 0) {
      if (r == static_cast<int>(ArgMatch::kValue)) t_.mark_down_device_ratio = Atof(val_);
      return TakenIf(Checked());
    } else if ((r = WithChecked({"--mark-down-bucket-ratio"})) != 0) {
      if (r == static_cast<int>(ArgMatch::kValue)) t_.mark_down_bucket_ratio = Atof(val_);
      return TakenIf(Checked());
    } else if (args_.WithInt({"--weight"}, &x, &err_)) {
      if (!Checked()) return Step::kStop;
      const int dev = x;
      if (!NeedMore(" to --weight")) return Step::kStop;
      t_.device_weight[dev] = DeviceWeightFromFloat(Atof(args_.Take()));
    } else {
      return Step::kNone;
    }
    return Step::kTaken;
  }

  // Ceph's checks after the loop: one of compile/decompile/build, some
  // action, and the --build layers as 3-tuples.
  ParseOutcome& Finish() {
    const CrushtoolOptions& o = o_;
    if (o.test && !o.check && !o.display && !write_to_file_ && o.compare.empty()) {
      res_.err += "WARNING: no output selected; use --output-csv or --show-X\n";
    }
    if (static_cast<int>(o.decompile) + static_cast<int>(o.compile) + static_cast<int>(o.build) >
        1) {
      res_.err += "cannot specify more than one of compile, decompile, and build\n";
      return ExitWith(1);
    }
    if (!o.check && !o.compile && !o.decompile && !o.build && !o.test && !o.reweight && !o.adjust &&
        !o.tree && !o.bucket_tree && !o.dump && o.add_item < 0 && !o.add_bucket && !o.move_item &&
        !o.add_rule && !o.del_rule && o.full_location < 0 && !o.reclassify &&
        !o.rebuild_class_roots && o.compare.empty() && o.remove_name.empty() &&
        o.reweight_name.empty()) {
      res_.err += "no action specified; -h for help\n";
      return ExitWith(1);
    }
    const std::vector<std::string>& rest = args_.args();
    if (!o.build && !rest.empty()) {
      res_.err += "unrecognized arguments: " + FormatArgVector(rest) + "\n";
      return ExitWith(1);
    }
    if (rest.size() % 3 != 0) {
      res_.err += "remaining args: " + FormatArgVector(rest) + "\n";
      res_.err += "layers must be specified with 3-tuples of (name, buckettype, size)\n";
      return ExitWith(1);
    }
    for (std::size_t j = 0; j < rest.size(); j += 3) {
      o_.layers.push_back({rest[j], rest[j + 1], Atoi(rest[j + 2])});
    }
    return res_;
  }

  ParseOutcome& res_;
  CrushtoolOptions& o_;
  TestOptions& t_;
  ArgList args_;
  const bool has_rulesets_;
  std::string err_;
  std::string val_;
  bool write_to_file_ = false;
};

}  // namespace

ParseOutcome ParseCrushtoolArgs(std::vector<std::string> argv, const std::string& me,
                                crush::CephRelease release) {
  ParseOutcome res;
  if (argv.empty()) {
    res.options.tester.rule_sizes_default = crush::HasRulesets(release);
    res.err += me + ": -h or --help for usage\n";
    res.exit_now = true;
    res.exit_code = 1;
    return res;
  }
  for (const std::string& a : argv) {
    if (a == "-h" || a == "--help") {
      res.options.tester.rule_sizes_default = crush::HasRulesets(release);
      res.out += UsageText(release);
      res.exit_now = true;
      res.exit_code = 0;
      return res;
    }
  }
  ArgParser(std::move(argv), release, res).Run();
  return res;
}

}  // namespace crushkit::tools::crushtool
