// Tests of the X3 grammar behind Parse() (parser.h; grammar_def.h,
// grammar.cc). Until the switch to X3 it was compared with the former
// hand-written recursive-descent parser on every input pinned here (same AST
// contents and SourceRanges, same diagnostic text and line:col); the
// outcome of each pinned input (an AST hash or the diagnostic) is kept in
// compiler/testdata/grammar_outcomes.golden, so any change of behaviour
// shows up as a golden diff. Inputs: the Ceph CLI corpus (with the maps
// printed inside its cram tests), our golden diagnostics and samples, small
// hand-written cases and token-level mutations of all of them.
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
#include "tests/testing/golden.h"
#include "tests/testing/paths.h"

namespace crushkit::compiler {
namespace {

namespace fs = std::filesystem;

// ------------------------------------------------------------ AST dumping

std::string R(const SourceRange& r) {
  return "@" + std::to_string(r.offset) + "+" + std::to_string(r.length);
}

std::string D(const ast::Word& w) { return "'" + std::string(w.text) + "'" + R(w.range); }

std::string D(const ast::Number& n) {
  return std::to_string(n.value) + (n.fits_int32 ? "" : "!32") + R(n.range);
}

std::string D(const ast::BucketId& x);
std::string D(const ast::BucketItem& x);
std::string D(const ast::Step& x);
std::string D(const ast::WeightList& x);
std::string D(const ast::ChooseArg& x);

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

std::string D(const ast::BucketId& x) {
  return "id(" + D(x.keyword) + D(x.id) + D(x.device_class) + ")";
}

std::string D(const ast::BucketItem& x) {
  return "item(" + D(x.keyword) + D(x.name) + D(x.weight) + D(x.pos) + ")";
}

std::string D(const ast::Step& x) {
  return "step(" + D(x.keyword) + std::to_string(static_cast<int>(x.kind)) + D(x.op) + D(x.item) +
         D(x.device_class) + D(x.mode) + D(x.count) + D(x.type) + ")";
}

std::string D(const ast::WeightList& x) { return "wl(" + R(x.range) + D(x.weights) + ")"; }

std::string D(const ast::ChooseArg& x) {
  return "arg(" + D(x.open) + D(x.bucket_id) + D(x.weight_set_keyword) + D(x.weight_set) +
         D(x.ids_keyword) + D(x.ids) + ")";
}

std::string D(const ast::ChooseArgs& x) {
  return "choose_args(" + D(x.keyword) + D(x.index) + D(x.args) + ")\n";
}

std::string D(const ast::Tunable& x) {
  return "tunable(" + D(x.keyword) + D(x.name) + D(x.value) + ")\n";
}

std::string D(const ast::Device& x) {
  return "device(" + D(x.keyword) + D(x.id) + D(x.name) + D(x.device_class) + ")\n";
}

std::string D(const ast::TypeDecl& x) {
  return "type(" + D(x.keyword) + D(x.id) + D(x.name) + ")\n";
}

std::string D(const ast::Bucket& x) {
  return "bucket(" + D(x.type) + D(x.name) + D(x.ids) + D(x.alg_keyword) + D(x.alg) + D(x.hashes) +
         D(x.items) + ")\n";
}

std::string D(const ast::Rule& x) {
  return "rule(" + D(x.keyword) + D(x.name) + D(x.id_keyword) + D(x.id) + D(x.type) +
         D(x.min_size) + D(x.max_size) + D(x.steps) + ")\n";
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

std::vector<std::string> FilesIn(const std::string& dir, const std::vector<std::string>& exts) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file()) continue;
    const std::string ext = e.path().extension().string();
    if (exts.empty() || std::find(exts.begin(), exts.end(), ext) != exts.end())
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every file of the Ceph CLI corpus (text maps parse; binary maps and cram
// scripts must fail identically) plus our goldens and samples.
std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  for (const char* d : {"pacific", "quincy-2022", "upstream-recent"}) {
    for (auto& f :
         FilesIn(crush_testing::CompatDir() + "/ceph-cli-tests/" + d + "/crushtool", {})) {
      files.push_back(std::move(f));
    }
  }
  for (auto& f : FilesIn(crush_testing::SourceDir() + "/tests/golden/diagnostics", {".crush"})) {
    files.push_back(std::move(f));
  }
  for (auto& f : FilesIn(crush_testing::SourceDir() + "/samples", {".crush"}))
    files.push_back(std::move(f));
  return files;
}

const std::vector<std::string>& SmallCases() {
  static const std::vector<std::string> cases = {
      "",
      "# only a comment\n",
      "tunable choose_total_tries 50\ndevice 0 osd.0 class hdd\ntype 0 osd\ntype 1 host\n"
      "host h { id -1 id -2 class hdd alg straw2 hash 0 item osd.0 weight 1.000 pos 0 }\n"
      "rule r { id 0 type replicated min_size 1 max_size 10 step take h class hdd "
      "step chooseleaf firstn 0 type host step emit }\n"
      "choose_args 1 { { bucket_id -1 weight_set [ [ 1.0 ] [ 2 ] ] ids [ -5 ] } }\n",
      "rule { id 0 type erasure step set_chooseleaf_tries 5 step choosemsr 4 type host step emit }",
      "rule rule { alg straw2 }",  // a bucket of type "rule"
      "rule foo { id -1 alg",      // the bucket's error is further
      "rule foo { id 0",           // the rule's error is further
      "type foo { alg straw }",    // a bucket of type "type"
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
  return cases;
}

// Token spans of `text`: words, single punctuation bytes.
std::vector<std::pair<std::size_t, std::size_t>> Tokens(const std::string& text) {
  std::vector<std::pair<std::size_t, std::size_t>> toks;
  std::size_t i = 0;
  auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
           c == '+';
  };
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

// `count` deterministic mutations of `seeds`: one token deleted, duplicated
// or replaced from a pool of keywords, numbers and punctuation that reaches
// every branch of the grammar.
std::vector<std::string> Mutations(const std::vector<std::string>& seeds, int count) {
  static const char* const kPool[] = {
      "{",          "}",       "[",           "]",         "rule",       "id",
      "-1",         "0",       "7",           "type",      "step",       "emit",
      "take",       "choose",  "chooseleaf",  "firstn",    "indep",      "item",
      "weight",     "pos",     "alg",         "hash",      "rjenkins1",  "class",
      "device",     "tunable", "choose_args", "bucket_id", "weight_set", "ids",
      "x+y",        "1.5",     "#",           "min_size",  "max_size",   "ruleset",
      "replicated", "erasure", "host",        "choosemsr", "msr_firstn", "set_choose_tries",
      "",           "$"};
  std::vector<std::string> out;
  std::mt19937 rng(12345);
  while (static_cast<int>(out.size()) < count) {
    const std::string& base = seeds[rng() % seeds.size()];
    const auto toks = Tokens(base);
    if (toks.empty()) continue;
    const auto [off, len] = toks[rng() % toks.size()];
    std::string m = base;
    switch (rng() % 3) {
      case 0:
        m.erase(off, len);
        break;
      case 1:
        m.insert(off, base.substr(off, len) + " ");
        break;
      default:
        m.replace(off, len, kPool[rng() % (sizeof(kPool) / sizeof(kPool[0]))]);
        break;
    }
    out.push_back(std::move(m));
  }
  return out;
}

// Cram's "(esc)" line encoding: \t, \r, \\ and \xNN.
std::string Unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
    } else if (s[i + 1] == 't') {
      out += '\t';
      ++i;
    } else if (s[i + 1] == 'r') {
      out += '\r';
      ++i;
    } else if (s[i + 1] == 'x' && i + 3 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 2, 2), nullptr, 16));
      i += 3;
    } else {
      out += s[i + 1];
      ++i;
    }
  }
  return out;
}

// The command outputs of a cram test (two-space indented lines between
// "  $ " commands) that look like crush maps, e.g. crushtool -d results.
std::vector<std::string> CramOutputBlocks(const std::string& cram) {
  std::vector<std::string> blocks;
  std::string block;
  auto flush = [&] {
    if (block.find('{') != std::string::npos && block.find("rule") != std::string::npos)
      blocks.push_back(block);
    block.clear();
  };
  std::size_t i = 0;
  while (i < cram.size()) {
    std::size_t nl = cram.find('\n', i);
    if (nl == std::string::npos) nl = cram.size();
    const std::string line = cram.substr(i, nl - i);
    i = nl + 1;
    if (line.rfind("  $ ", 0) == 0 || line.rfind("  > ", 0) == 0 || line.rfind("  ", 0) != 0) {
      flush();
    } else {
      std::string out = line.substr(2);
      const std::string esc = " (esc)";
      if (out.size() >= esc.size() && out.compare(out.size() - esc.size(), esc.size(), esc) == 0) {
        out = Unescape(out.substr(0, out.size() - esc.size()));
      }
      block += out + "\n";
    }
  }
  flush();
  return blocks;
}

struct Input {
  std::string name;
  std::string text;
};

// The pinned inputs: small cases, every corpus file (named relative to its
// root so the golden does not depend on the checkout path) and mutations of
// the text ones.
std::vector<Input> PinnedInputs() {
  std::vector<Input> inputs;
  for (std::size_t i = 0; i < SmallCases().size(); ++i)
    inputs.push_back({"case" + std::to_string(i), SmallCases()[i]});
  std::vector<std::string> texts;
  const std::string compat = crush_testing::CompatDir() + "/";
  const std::string source = crush_testing::SourceDir() + "/";
  for (const std::string& path : CorpusFiles()) {
    std::string name = path;
    if (name.rfind(compat, 0) == 0)
      name = "compat/" + name.substr(compat.size());
    else if (name.rfind(source, 0) == 0)
      name = name.substr(source.size());
    std::string text = crush_testing::ReadFileOrEmpty(path);
    if (name.size() > 2 && name.compare(name.size() - 2, 2, ".t") == 0) {
      const std::vector<std::string> blocks = CramOutputBlocks(text);
      for (std::size_t i = 0; i < blocks.size(); ++i) {
        inputs.push_back({name + "#" + std::to_string(i), blocks[i]});
      }
    }
    inputs.push_back({std::move(name), std::move(text)});
  }
  // Mutate only inputs that parse: the others fail on their first byte.
  for (const Input& in : inputs) {
    DiagnosticSink sink;
    if (in.text.size() < 200000 && Parse(SourceFile(in.name, in.text), sink))
      texts.push_back(in.text);
  }
  const std::vector<std::string> mutated = Mutations(texts, 3000);
  for (std::size_t i = 0; i < mutated.size(); ++i)
    inputs.push_back({"mutation" + std::to_string(i), mutated[i]});
  return inputs;
}

// One line per input: "ok <hash of the AST dump>" or the diagnostic's
// first line ("name:line:col: error: ...").
std::string OutcomeLine(const Input& in) {
  const SourceFile src(in.name, in.text);
  const Outcome o = Run(Parse, src);
  if (!o.ok) return o.text.substr(0, o.text.find('\n'));
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const char c : o.text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
  return in.name + ": ok " + hex;
}

// Random maps from the differential generator (needs python3; skipped
// without it).
std::vector<std::string> GeneratedMaps(int seeds, int per_seed) {
  std::vector<std::string> maps;
  const fs::path dir =
      fs::temp_directory_path() / ("grammar_x3_test_" + std::to_string(::getpid()));
  for (int seed = 1; seed <= seeds; ++seed) {
    const std::string cmd = "python3 '" + crush_testing::SourceDir() +
                            "/tests/differential/gen_maps.py' --seed " + std::to_string(seed) +
                            " --count " + std::to_string(per_seed) + " --out '" + dir.string() +
                            "' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) break;
    for (const auto& f : FilesIn(dir.string(), {})) {
      maps.push_back(crush_testing::ReadFileOrEmpty(f));
      fs::remove(f);
    }
  }
  fs::remove_all(dir);
  return maps;
}

// Generated maps are valid syntax; their mutations either parse or fail
// with exactly one syntax diagnostic (first failure wins, no cascades).
TEST(GrammarX3Test, GeneratedMapsAndMutations) {
  const std::vector<std::string> maps = GeneratedMaps(/*seeds=*/2, /*per_seed=*/150);
  if (maps.empty()) GTEST_SKIP() << "gen_maps.py did not run";
  for (std::size_t i = 0; i < maps.size(); ++i) {
    DiagnosticSink sink;
    EXPECT_TRUE(Parse(SourceFile("gen", maps[i]), sink).has_value())
        << sink.Format(SourceFile("gen", maps[i]));
  }
  int failed = 0;
  for (const std::string& m : Mutations(maps, 1000)) {
    DiagnosticSink sink;
    if (Parse(SourceFile("m", m), sink)) {
      EXPECT_EQ(sink.error_count(), 0);
      continue;
    }
    ++failed;
    ASSERT_EQ(sink.diagnostics().size(), 1u) << sink.Format(SourceFile("m", m));
    EXPECT_THAT(sink.diagnostics()[0].message,
                ::testing::AnyOf(::testing::StartsWith("expected "),
                                 ::testing::StartsWith("unexpected character")));
  }
  EXPECT_GT(failed, 500);
}

// Hand-checked messages and positions for the grammar's special cases.
std::string FirstDiagnostic(const std::string& text) {
  const SourceFile src("t.crush", text);
  DiagnosticSink sink;
  if (Parse(src, sink)) return "ok";
  const std::string f = sink.Format(src);
  return f.substr(0, f.find('\n'));
}

TEST(GrammarX3Test, SpecialCases) {
  // A statement starting with "rule" is a bucket of type "rule" if it
  // parses as one; otherwise the error that got further is reported.
  const SourceFile src("t.crush", "rule rule { alg straw2 }");
  DiagnosticSink sink;
  const std::optional<ast::CrushFile> f = Parse(src, sink);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->body.size(), 1u);
  ASSERT_TRUE(std::holds_alternative<ast::Bucket>(f->body[0]));
  EXPECT_EQ(std::get<ast::Bucket>(f->body[0]).type.text, "rule");
  EXPECT_EQ(std::get<ast::Bucket>(f->body[0]).alg.range.offset, 16u);
  EXPECT_EQ(FirstDiagnostic("rule foo { id -1 alg"),
            "t.crush:1:21: error: expected a bucket algorithm, found end of file");
  EXPECT_EQ(FirstDiagnostic("rule foo { id 0"),
            "t.crush:1:16: error: expected 'type', found end of file");
  EXPECT_EQ(FirstDiagnostic("rule foo {\n  id 0 type replicated\n  step take\n}"),
            "t.crush:4:1: error: expected a bucket or device name, found '}'");
  // "type"/"device" start a declaration only before an integer.
  EXPECT_EQ(FirstDiagnostic("type foo { alg straw }"), "ok");
  EXPECT_EQ(FirstDiagnostic("host a { alg straw2 } type 1 x"),
            "t.crush:1:23: error: expected a bucket or rule (tunables, devices and types must come "
            "before buckets "
            "and rules), found 'type'");
  // Names exclude '+'; the whole word is shown.
  EXPECT_EQ(FirstDiagnostic("host a+b { }"),
            "t.crush:1:6: error: expected a bucket name, found 'a+b'");
  // The '}' message lists what may still come.
  EXPECT_EQ(FirstDiagnostic("choose_args 0 { { bucket_id -1 weight_set [ ] x } }"),
            "t.crush:1:47: error: expected 'ids' or '}', found 'x'");
  // Lexical errors anywhere win over syntax errors before them.
  EXPECT_EQ(FirstDiagnostic("host { }\n\t\xc3\xa9"),
            "t.crush:2:2: error: unexpected character '\\xc3'");
  // Comments end words and are skipped anywhere.
  EXPECT_EQ(FirstDiagnostic("host a#c\n{ alg straw2 } # end"), "ok");
}

// The outcome of every pinned input, pinned in a golden taken from the
// former recursive-descent parser (identical outcomes were checked
// against it before the switch).
// Regenerate: UPDATE_GOLDENS=1 <build>/compiler/compiler_tests
//   --gtest_filter='*GoldenOutcomes*' (only after reviewing the diff).
TEST(GrammarX3Test, GoldenOutcomes) {
  std::string actual;
  for (const Input& in : PinnedInputs()) actual += OutcomeLine(in) + "\n";
  const std::string path =
      crush_testing::SourceDir() + "/compiler/testdata/grammar_outcomes.golden";
  ASSERT_FALSE(actual.empty());
  // Line by line, so a failure names the input.
  EXPECT_TRUE(crush_testing::MatchesGolden(path, actual));
}

}  // namespace
}  // namespace crushkit::compiler
