// Parity of the X3 grammar (grammar.h) with the reference recursive-descent
// parser (parser.h): same AST node contents and SourceRanges on valid input,
// same single diagnostic (message and line:col) on invalid input. Inputs: the
// Ceph CLI corpus, our golden diagnostics and samples, random maps from
// tests/differential/gen_maps.py and token-level mutations of all of them.
#include "compiler/grammar.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "compiler/ast.h"
#include "compiler/diagnostics.h"
#include "compiler/parser.h"
#include "compiler/source_file.h"
#include "tests/testing/paths.h"

namespace crushkit::compiler {
namespace {

namespace fs = std::filesystem;

// ------------------------------------------------------------ AST dumping

std::string R(const SourceRange& r) { return "@" + std::to_string(r.offset) + "+" + std::to_string(r.length); }

std::string D(const ast::Word& w) { return "'" + w.text + "'" + R(w.range); }

std::string D(const ast::Number& n) {
  return std::to_string(n.value) + (n.fits_int32 ? "" : "!32") + R(n.range);
}

template <class T>
std::string D(const std::optional<T>& o) {
  return o ? "?" + D(*o) : "-";
}

template <class T>
std::string D(const std::vector<T>& v) {
  std::string s = "[";
  for (const T& x : v) s += D(x) + " ";
  return s + "]";
}

std::string D(const ast::BucketId& x) { return "id(" + D(x.keyword) + D(x.id) + D(x.device_class) + ")"; }

std::string D(const ast::BucketItem& x) {
  return "item(" + D(x.keyword) + D(x.name) + D(x.weight) + D(x.pos) + ")";
}

std::string D(const ast::Step& x) {
  return "step(" + D(x.keyword) + std::to_string(static_cast<int>(x.kind)) + D(x.op) + D(x.item) +
         D(x.device_class) + D(x.mode) + D(x.count) + D(x.type) + ")";
}

std::string D(const ast::WeightList& x) { return "wl(" + R(x.range) + D(x.weights) + ")"; }

std::string D(const ast::ChooseArg& x) {
  return "arg(" + D(x.open) + D(x.bucket_id) + D(x.weight_set_keyword) + D(x.weight_set) + D(x.ids_keyword) +
         D(x.ids) + ")";
}

std::string D(const ast::ChooseArgs& x) { return "choose_args(" + D(x.keyword) + D(x.index) + D(x.args) + ")\n"; }

std::string D(const ast::Tunable& x) { return "tunable(" + D(x.keyword) + D(x.name) + D(x.value) + ")\n"; }

std::string D(const ast::Device& x) {
  return "device(" + D(x.keyword) + D(x.id) + D(x.name) + D(x.device_class) + ")\n";
}

std::string D(const ast::TypeDecl& x) { return "type(" + D(x.keyword) + D(x.id) + D(x.name) + ")\n"; }

std::string D(const ast::Bucket& x) {
  return "bucket(" + D(x.type) + D(x.name) + D(x.ids) + D(x.alg_keyword) + D(x.alg) + D(x.hashes) + D(x.items) +
         ")\n";
}

std::string D(const ast::Rule& x) {
  return "rule(" + D(x.keyword) + D(x.name) + D(x.id_keyword) + D(x.id) + D(x.type) + D(x.min_size) +
         D(x.max_size) + D(x.steps) + ")\n";
}

std::string Dump(const ast::CrushFile& f) {
  std::string s;
  for (const auto& h : f.header) s += std::visit([](const auto& x) { return D(x); }, h);
  for (const auto& b : f.body) s += std::visit([](const auto& x) { return D(x); }, b);
  for (const auto& c : f.choose_args) s += D(c);
  return s;
}

// The outcome of one parse: the AST dump, or the formatted diagnostics.
struct Outcome {
  bool ok = false;
  std::string text;
};

template <class ParseFn>
Outcome Run(ParseFn parse, const SourceFile& src) {
  DiagnosticSink sink;
  std::optional<ast::CrushFile> f = parse(src, sink);
  if (f) return {true, Dump(*f) + sink.Format(src)};
  return {false, sink.Format(src)};
}

// Counts for the summary line of each test.
struct Tally {
  int valid = 0;
  int invalid = 0;
};

// Asserts parity on one input; returns false on a mismatch.
bool ExpectSameParse(const std::string& name, const std::string& text, Tally* tally) {
  const SourceFile src(name, text);
  const Outcome hand = Run(Parse, src);
  const Outcome x3 = Run(ParseWithX3, src);
  EXPECT_EQ(hand.ok, x3.ok) << name << "\nhand: " << hand.text << "\nx3: " << x3.text;
  EXPECT_EQ(hand.text, x3.text) << name;
  if (tally != nullptr) ++(hand.ok ? tally->valid : tally->invalid);
  return hand.ok == x3.ok && hand.text == x3.text;
}

std::vector<std::string> FilesIn(const std::string& dir, const std::vector<std::string>& exts) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file()) continue;
    const std::string ext = e.path().extension().string();
    if (exts.empty() || std::find(exts.begin(), exts.end(), ext) != exts.end()) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every file of the Ceph CLI corpus (text maps parse; binary maps and cram
// scripts must fail identically) plus our goldens and samples.
std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  for (const char* d : {"pacific", "quincy-2022", "upstream-recent"}) {
    for (auto& f : FilesIn(crush_testing::CompatDir() + "/ceph-cli-tests/" + d + "/crushtool", {})) {
      files.push_back(std::move(f));
    }
  }
  for (auto& f : FilesIn(crush_testing::SourceDir() + "/tests/golden/diagnostics", {".crush"})) {
    files.push_back(std::move(f));
  }
  for (auto& f : FilesIn(crush_testing::SourceDir() + "/samples", {".crush"})) files.push_back(std::move(f));
  return files;
}

TEST(GrammarX3Test, SmallCases) {
  const std::vector<std::string> cases = {
      "",
      "# only a comment\n",
      "tunable choose_total_tries 50\ndevice 0 osd.0 class hdd\ntype 0 osd\ntype 1 host\n"
      "host h { id -1 id -2 class hdd alg straw2 hash 0 item osd.0 weight 1.000 pos 0 }\n"
      "rule r { id 0 type replicated min_size 1 max_size 10 step take h class hdd "
      "step chooseleaf firstn 0 type host step emit }\n"
      "choose_args 1 { { bucket_id -1 weight_set [ [ 1.0 ] [ 2 ] ] ids [ -5 ] } }\n",
      "rule { id 0 type erasure step set_chooseleaf_tries 5 step choosemsr 4 type host step emit }",
      "rule rule { alg straw2 }",       // a bucket of type "rule"
      "rule foo { id -1 alg",           // bucket error is further
      "rule foo { id 0",                // rule error is further
      "type foo { alg straw }",         // a bucket of type "type"
      "host a { alg straw2 } device 0 osd.0",
      "host a { alg straw2 } tunable x 1",
      "choose_args 0 { } host a { alg straw2 }",
      "choose_args 0 { { bucket_id -1 ids [ 1 x ] } }",
      "choose_args 0 { { bucket_id -1 weight_set [ [ 1 } }",
      "choose_args 0 { { bucket_id -1 weight_set [ ] ids [ ] ] }",
      "choose_args 0 { { bucket_id -1 weight_set [ ] x } }",
      "choose_args 0 { { bucket_id -1 x } }",
      "choose_args 0 { [",
      "host a { alg straw2 hash rjenkins12 }",
      "host a { alg straw2 hash -7 item b weight 1+2 item c }",
      "host a { alg straw2 item b pos x }",
      "host a+b { }",
      "host a { alg straw2 } }",
      "rule r { id 0 type replicated step choose firstn -1 type osd step frob }",
      "rule r { id 0 type replicated step { }",
      "rule r { id 0 type replicated }",
      "rule r { ruleset 0 type msr_indep step emit",
      "device 0 osd.0 class",
      "device x osd.0",
      "type 99999999999999999999999 t",
      "tunable t -1",
      "tunable t 1 $",
      "host a { alg straw2 }\n\t\xc3\xa9",
      "host a#comment\n{ alg straw2 }",
  };
  for (std::size_t i = 0; i < cases.size(); ++i) ExpectSameParse("case" + std::to_string(i), cases[i], nullptr);
}

TEST(GrammarX3Test, CorpusParity) {
  Tally tally;
  for (const std::string& path : CorpusFiles()) {
    ExpectSameParse(path, crush_testing::ReadFileOrEmpty(path), &tally);
  }
  EXPECT_GT(tally.valid, 40);
  std::printf("corpus: %d valid, %d invalid inputs identical\n", tally.valid, tally.invalid);
}

// Random maps from the differential generator (needs python3; skipped
// without it).
std::vector<std::string> GeneratedMaps(int seeds, int per_seed) {
  std::vector<std::string> maps;
  const fs::path dir = fs::temp_directory_path() / ("grammar_x3_test_" + std::to_string(::getpid()));
  for (int seed = 1; seed <= seeds; ++seed) {
    const std::string cmd = "python3 '" + crush_testing::SourceDir() + "/tests/differential/gen_maps.py' --seed " +
                            std::to_string(seed) + " --count " + std::to_string(per_seed) + " --out '" +
                            dir.string() + "' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) break;
    for (const auto& f : FilesIn(dir.string(), {})) {
      maps.push_back(crush_testing::ReadFileOrEmpty(f));
      fs::remove(f);
    }
  }
  fs::remove_all(dir);
  return maps;
}

TEST(GrammarX3Test, GeneratedMapParity) {
  const std::vector<std::string> maps = GeneratedMaps(/*seeds=*/20, /*per_seed=*/15);
  if (maps.empty()) GTEST_SKIP() << "gen_maps.py did not run";
  Tally tally;
  for (std::size_t i = 0; i < maps.size(); ++i) ExpectSameParse("gen" + std::to_string(i), maps[i], &tally);
  EXPECT_GE(tally.valid + tally.invalid, 300);
  std::printf("generated: %d valid, %d invalid maps identical\n", tally.valid, tally.invalid);
}

// Token spans of `text`: words, single punctuation bytes.
std::vector<std::pair<std::size_t, std::size_t>> Tokens(const std::string& text) {
  std::vector<std::pair<std::size_t, std::size_t>> toks;
  std::size_t i = 0;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '+'; };
  while (i < text.size()) {
    if (text[i] == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
    } else if (word(text[i])) {
      const std::size_t s = i;
      while (i < text.size() && word(text[i])) ++i;
      toks.emplace_back(s, i - s);
    } else {
      toks.emplace_back(i++, 1);
    }
  }
  return toks;
}

// Deletes, duplicates or replaces one token (replacements come from a pool
// of keywords, numbers and punctuation that hit every branch).
TEST(GrammarX3Test, MutationParity) {
  static const char* const kPool[] = {"{", "}", "[", "]", "rule", "id", "-1", "0", "7", "type", "step", "emit",
                                      "take", "choose", "chooseleaf", "firstn", "indep", "item", "weight",
                                      "pos", "alg", "hash", "rjenkins1", "class", "device", "tunable",
                                      "choose_args", "bucket_id", "weight_set", "ids", "x+y", "1.5", "#",
                                      "min_size", "max_size", "ruleset", "replicated", "erasure", "host",
                                      "choosemsr", "msr_firstn", "set_choose_tries", "", "$"};
  std::vector<std::string> seeds;
  for (const std::string& path : CorpusFiles()) {
    std::string t = crush_testing::ReadFileOrEmpty(path);
    if (t.find('\0') == std::string::npos && t.size() < 200000) seeds.push_back(std::move(t));
  }
  for (std::string& m : GeneratedMaps(/*seeds=*/3, /*per_seed=*/10)) seeds.push_back(std::move(m));
  ASSERT_FALSE(seeds.empty());
  std::mt19937 rng(12345);
  Tally tally;
  int mismatches = 0;
  constexpr int kMutations = 4000;
  for (int n = 0; n < kMutations && mismatches < 10; ++n) {
    const std::string& base = seeds[rng() % seeds.size()];
    const auto toks = Tokens(base);
    if (toks.empty()) continue;
    const auto [off, len] = toks[rng() % toks.size()];
    std::string m = base;
    switch (rng() % 3) {
      case 0: m.erase(off, len); break;
      case 1: m.insert(off, base.substr(off, len) + " "); break;
      default: m.replace(off, len, kPool[rng() % (sizeof(kPool) / sizeof(kPool[0]))]); break;
    }
    if (!ExpectSameParse("mutation" + std::to_string(n), m, &tally)) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
  std::printf("mutations: %d valid, %d invalid inputs identical\n", tally.valid, tally.invalid);
}

}  // namespace
}  // namespace crushkit::compiler
