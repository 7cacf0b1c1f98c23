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

ParseOutcome ParseCrushtoolArgs(std::vector<std::string> argv, const std::string& me,
                                crush::CephRelease release) {
  ParseOutcome res;
  CrushtoolOptions& o = res.options;
  TestOptions& t = o.tester;
  const bool has_rulesets = crush::HasRulesets(release);
  t.rule_sizes_default = has_rulesets;
  auto exit_with = [&res](int code) -> ParseOutcome& {
    res.exit_now = true;
    res.exit_code = code;
    return res;
  };

  if (argv.empty()) {
    res.err += me + ": -h or --help for usage\n";
    return exit_with(1);
  }
  for (const std::string& a : argv) {
    if (a == "-h" || a == "--help") {
      res.out += UsageText(release);
      return exit_with(0);
    }
  }

  ArgList args(std::move(argv));
  // Ceph's shared `std::ostringstream err`: several options append to it
  // without checking; the next option that checks prints everything.
  std::string err;
  // Options whose value check Ceph performs right away.
  auto checked = [&]() -> bool {
    if (err.empty()) return true;
    res.err += err + "\n";
    exit_with(1);
    return false;
  };
  // String options without an error stream: a missing value is fatal.
  auto with_string = [&](std::initializer_list<std::string_view> names, std::string* value) -> int {
    std::string msg;
    const ArgMatch m = args.WithArg(names, value, &msg);
    if (m == ArgMatch::kMissing) {
      res.err += msg;
      exit_with(1);
      return -1;
    }
    return m == ArgMatch::kValue ? 1 : 0;
  };
  auto need_more = [&](const std::string& what) -> bool {
    if (!args.AtEnd()) return true;
    res.err += "expecting additional argument" + what + "\n";
    exit_with(1);
    return false;
  };

  bool& check = o.check;
  bool& tree = o.tree;
  bool& dump = o.dump;
  bool& bucket_tree = o.bucket_tree;
  bool& reclassify = o.reclassify;
  bool& add_rule = o.add_rule;
  bool& del_rule = o.del_rule;
  bool& rebuild_class_roots = o.rebuild_class_roots;
  int& full_location = o.full_location;
  std::string& compare = o.compare;
  bool write_to_file = false;
  int tmp = 0, x = 0;
  std::int64_t z = 0;
  std::string val;

  while (!args.AtEnd()) {
    int r = 0;
    if (args.DoubleDash()) break;
    if ((r = with_string({"-d", "--decompile"}, &val)) != 0) {
      if (r < 0) return res;
      o.infn = val;
      o.decompile = true;
    } else if ((r = with_string({"-i", "--infn"}, &val)) != 0) {
      if (r < 0) return res;
      o.infn = val;
    } else if ((r = with_string({"-o", "--outfn"}, &val)) != 0) {
      if (r < 0) return res;
      o.outfn = val;
    } else if (args.Flag({"-v", "--verbose"})) {
      o.verbose += 1;
    } else if ((r = with_string({"--compare"}, &val)) != 0) {
      if (r < 0) return res;
      compare = val;
    } else if (args.Flag({"--reclassify"})) {
      reclassify = true;
    } else if ((r = with_string({"--reclassify-bucket"}, &val)) != 0) {
      if (r < 0) return res;
      if (!need_more("")) return res;
      std::string cls = args.Take();
      if (!need_more("")) return res;
      o.reclassify_bucket[val] = {std::move(cls), args.Take()};
    } else if ((r = with_string({"--reclassify-root"}, &val)) != 0) {
      if (r < 0) return res;
      if (!need_more("")) return res;
      o.reclassify_root[val] = args.Take();
    } else if ((r = with_string({"--set-subtree-class"}, &val)) != 0) {
      if (r < 0) return res;
      if (!need_more("")) return res;
      o.set_subtree_class[val] = args.Take();
    } else if (args.Flag({"--tree"})) {
      tree = true;
    } else if (args.Flag({"--bucket-tree"})) {
      bucket_tree = true;
    } else if ((r = with_string({"--bucket-name"}, &val)) != 0) {
      if (r < 0) return res;
      o.bucket_name = val;
    } else if ((r = with_string({"-f", "--format"}, &val)) != 0) {
      if (r < 0) return res;
      o.dump_format = val;
    } else if (args.Flag({"--dump"})) {
      dump = true;
    } else if (args.Flag({"--show_utilization"})) {
      o.display = true;
      t.output_utilization = true;
    } else if (args.Flag({"--show_utilization_all"})) {
      o.display = true;
      t.output_utilization_all = true;
    } else if (args.Flag({"--show_statistics"})) {
      o.display = true;
      t.output_statistics = true;
    } else if (args.Flag({"--show_mappings"})) {
      o.display = true;
      t.output_mappings = true;
    } else if (args.Flag({"--show_bad_mappings"})) {
      o.display = true;
      t.output_bad_mappings = true;
    } else if (args.Flag({"--show_choose_tries"})) {
      o.display = true;
      t.output_choose_tries = true;
    } else if ((r = with_string({"-c", "--compile"}, &val)) != 0) {
      if (r < 0) return res;
      o.srcfn = val;
      o.compile = true;
    } else if (args.WithInt({"--check"}, &o.max_id, &err)) {
      check = true;
    } else if (args.Flag({"-t", "--test"})) {
      o.test = true;
    } else if (args.WithInt({"--show-location"}, &full_location, &err)) {
    } else if (args.Flag({"-s", "--simulate"})) {
      t.simulate = true;
    } else if (args.Flag({"--enable-unsafe-tunables"})) {
    } else if (args.WithInt({"--set_choose_local_tries"}, &o.choose_local_tries, &err) ||
               args.WithInt({"--set_choose_local_fallback_tries"}, &o.choose_local_fallback_tries,
                            &err) ||
               args.WithInt({"--set_choose_total_tries"}, &o.choose_total_tries, &err) ||
               args.WithInt({"--set_chooseleaf_descend_once"}, &o.chooseleaf_descend_once, &err) ||
               args.WithInt({"--set_chooseleaf_vary_r"}, &o.chooseleaf_vary_r, &err) ||
               args.WithInt({"--set_chooseleaf_stable"}, &o.chooseleaf_stable, &err) ||
               args.WithInt({"--set_straw_calc_version"}, &o.straw_calc_version, &err) ||
               args.WithInt({"--set_allowed_bucket_algs"}, &o.allowed_bucket_algs, &err)) {
      o.adjust = true;
    } else if (args.Flag({"--reweight"})) {
      o.reweight = true;
    } else if (args.Flag({"--rebuild-class-roots"})) {
      rebuild_class_roots = true;
    } else if (args.WithInt({"--add_item"}, &o.add_item, &err)) {
      if (!checked()) return res;
      if (!need_more(" to --add-item")) return res;
      o.add_weight = Atof(args.Take());
      if (!need_more(" to --add-item")) return res;
      o.add_name = args.Take();
    } else if (args.WithInt({"--update_item"}, &o.add_item, &err)) {
      o.update_item = true;
      if (!checked()) return res;
      if (!need_more(" to --update-item")) return res;
      o.add_weight = Atof(args.Take());
      if (!need_more(" to --update-item")) return res;
      o.add_name = args.Take();
    } else if ((r = static_cast<int>(args.WithArg({"--add-bucket"}, &val, &err))) != 0) {
      if (r == static_cast<int>(ArgMatch::kValue)) {
        o.add_name = val;
        if (args.AtEnd()) {
          err += "expecting additional argument to --add-bucket";
        } else {
          o.add_type = args.Take();
        }
      }
      if (!checked()) return res;
      o.add_bucket = true;
    } else if ((r = static_cast<int>(args.WithArg({"--move"}, &val, &err))) != 0) {
      if (r == static_cast<int>(ArgMatch::kValue)) o.move_name = val;
      if (!checked()) return res;
      o.move_item = true;
    } else if ((r = static_cast<int>(args.WithArg({"--create-simple-rule"}, &val, &err))) != 0) {
      if (!checked()) return res;
      std::string parts[3];
      for (std::string& p : parts) {
        if (!need_more(" to --create-simple-rule")) return res;
        p = args.Take();
      }
      res.out += "--create-simple-rule: name=" + val + " root=" + parts[0] + " type=" + parts[1] +
                 " mode=" + parts[2] + "\n";
      o.rule_name = val;
      o.rule_root = parts[0];
      o.rule_type = parts[1];
      o.rule_mode = parts[2];
      add_rule = true;
    } else if ((r = static_cast<int>(args.WithArg({"--create-replicated-rule"}, &val, &err))) !=
               0) {
      if (!checked()) return res;
      std::string parts[2];
      for (std::string& p : parts) {
        if (!need_more(" to --create-replicated-rule")) return res;
        p = args.Take();
      }
      res.out += "--create-replicated-rule: name=" + val + " root=" + parts[0] +
                 " type=" + parts[1] + "\n";
      o.rule_name = val;
      o.rule_root = parts[0];
      o.rule_type = parts[1];
      o.rule_mode = "firstn";
      add_rule = true;
    } else if ((r = with_string({"--device-class"}, &val)) != 0) {
      if (r < 0) return res;
      o.rule_device_class = val;
      if (!checked()) return res;
    } else if ((r = with_string({"--remove-rule"}, &val)) != 0) {
      if (r < 0) return res;
      o.rule_name = val;
      if (!checked()) return res;
      del_rule = true;
    } else if ((r = with_string({"--loc"}, &val)) != 0) {
      if (r < 0) return res;
      if (!need_more(" to --loc")) return res;
      o.add_loc[val] = args.Take();
    } else if (args.Flag({"--output-csv"})) {
      write_to_file = true;
      t.output_csv = true;
    } else if (args.Flag({"--help-output"})) {
      res.out += HelpOutputText();
      return exit_with(0);
    } else if ((r = with_string({"--output-name"}, &val)) != 0) {
      if (r < 0) return res;
      if (!need_more(" to --output-name")) return res;
      t.output_name = val + "-";
    } else if ((r = with_string({"--remove_item"}, &val)) != 0) {
      if (r < 0) return res;
      o.remove_name = val;
    } else if ((r = with_string({"--reweight_item"}, &val)) != 0) {
      if (r < 0) return res;
      o.reweight_name = val;
      if (!need_more(" to --reweight-item")) return res;
      o.reweight_weight = Atof(args.Take());
    } else if (args.Flag({"--build"})) {
      o.build = true;
    } else if (args.WithInt({"--num_osds"}, &o.num_osds, &err)) {
      if (!checked()) return res;
    } else if (args.WithInt({"--num_rep"}, &x, &err)) {
      if (!checked()) return res;
      t.min_rep = t.max_rep = x;
    } else if (!has_rulesets && args.WithInt({"--min_rep"}, &x, &err)) {
      if (!checked()) return res;
      t.min_rep = x;
    } else if (!has_rulesets && args.WithInt({"--max_rep"}, &x, &err)) {
      if (!checked()) return res;
      t.max_rep = x;
    } else if (args.WithInt({"--max_x"}, &x, &err)) {
      if (!checked()) return res;
      t.max_x = x;
    } else if (args.WithInt({"--min_x"}, &x, &err)) {
      if (!checked()) return res;
      t.min_x = x;
    } else if (args.WithInt64({"--pool_id"}, &z, &err)) {
      if (!checked()) return res;
      t.pool_id = z;
    } else if (args.WithInt({"--x"}, &x, &err)) {
      if (!checked()) return res;
      t.min_x = t.max_x = x;
    } else if (args.WithInt({"--max_rule"}, &x, &err)) {
      if (!checked()) return res;
      t.max_rule = x;
    } else if (args.WithInt({"--min_rule"}, &x, &err)) {
      if (!checked()) return res;
      t.min_rule = x;
    } else if (args.WithInt({"--rule"}, &x, &err)) {
      if (!checked()) return res;
      t.min_rule = t.max_rule = x;
    } else if (has_rulesets && args.WithInt({"--ruleset"}, &x, &err)) {
      if (!checked()) return res;
      t.ruleset = x;
    } else if (args.WithInt({"--batches"}, &x, &err)) {
      if (!checked()) return res;
      t.batches = x;
    } else if ((r = static_cast<int>(args.WithArg({"--mark-down-ratio"}, &val, &err))) != 0) {
      if (r == static_cast<int>(ArgMatch::kValue)) t.mark_down_device_ratio = Atof(val);
      if (!checked()) return res;
    } else if ((r = static_cast<int>(args.WithArg({"--mark-down-bucket-ratio"}, &val, &err))) !=
               0) {
      if (r == static_cast<int>(ArgMatch::kValue)) t.mark_down_bucket_ratio = Atof(val);
      if (!checked()) return res;
    } else if (args.WithInt({"--weight"}, &tmp, &err)) {
      if (!checked()) return res;
      const int dev = tmp;
      if (!need_more(" to --weight")) return res;
      t.device_weight[dev] = DeviceWeightFromFloat(Atof(args.Take()));
    } else {
      args.Next();
    }
  }

  if (o.test && !check && !o.display && !write_to_file && compare.empty()) {
    res.err += "WARNING: no output selected; use --output-csv or --show-X\n";
  }
  if (static_cast<int>(o.decompile) + static_cast<int>(o.compile) + static_cast<int>(o.build) > 1) {
    res.err += "cannot specify more than one of compile, decompile, and build\n";
    return exit_with(1);
  }
  if (!check && !o.compile && !o.decompile && !o.build && !o.test && !o.reweight && !o.adjust &&
      !tree && !bucket_tree && !dump && o.add_item < 0 && !o.add_bucket && !o.move_item &&
      !add_rule && !del_rule && full_location < 0 && !reclassify && !rebuild_class_roots &&
      compare.empty() && o.remove_name.empty() && o.reweight_name.empty()) {
    res.err += "no action specified; -h for help\n";
    return exit_with(1);
  }
  const std::vector<std::string>& rest = args.args();
  if (!o.build && !rest.empty()) {
    res.err += "unrecognized arguments: " + FormatArgVector(rest) + "\n";
    return exit_with(1);
  }
  if (rest.size() % 3 != 0) {
    res.err += "remaining args: " + FormatArgVector(rest) + "\n";
    res.err += "layers must be specified with 3-tuples of (name, buckettype, size)\n";
    return exit_with(1);
  }
  for (std::size_t j = 0; j < rest.size(); j += 3) {
    o.layers.push_back({rest[j], rest[j + 1], Atoi(rest[j + 2])});
  }
  return res;
}

}  // namespace crushkit::tools::crushtool
