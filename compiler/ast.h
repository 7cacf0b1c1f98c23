// Syntax tree of a text crush map, as produced by the parser (parser.h) and
// consumed by sema.cc. Every node keeps the source range of the tokens it
// came from so semantic errors can point at them. Numbers keep their text:
// Ceph converts them with strtol/strtof only when it uses them, and so do we.
// Private to the compiler.
//
// Ownership: a Word's text is a view into the SourceFile that was parsed, so
// a CrushFile must not outlive its SourceFile. Nodes own no strings: a
// 10,000-device map parses without one allocation per token.
#ifndef CRUSHKIT_COMPILER_AST_H_
#define CRUSHKIT_COMPILER_AST_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "compiler/source_file.h"

namespace crushkit::compiler::ast {

// One word of the input (a name, keyword or number) and where it is.
struct Word {
  std::string_view text;  // into the SourceFile's text
  SourceRange range;
};

// An integer literal. `value` is what Ceph's strtol() gives (saturated to
// the int64 range); `fits_int32` tells whether Ceph's cast to int is lossless.
struct Number {
  std::int64_t value = 0;
  bool fits_int32 = true;
  SourceRange range;
};

struct Tunable {
  Word keyword;
  Word name;
  Number value;
};

struct Device {
  Word keyword;
  Number id;
  Word name;
  std::optional<Word> device_class;
};

struct TypeDecl {
  Word keyword;
  Number id;
  Word name;
};

struct BucketId {
  Word keyword;
  Number id;
  std::optional<Word> device_class;
};

struct BucketItem {
  Word keyword;
  Word name;
  std::optional<Word> weight;  // text as written; validated by sema
  std::optional<Number> pos;
};

struct Bucket {
  Word type;
  Word name;
  std::vector<BucketId> ids;
  Word alg_keyword;
  Word alg;
  std::vector<Word> hashes;  // "rjenkins1" or an integer
  std::vector<BucketItem> items;
};

enum class StepKind {
  kTake,
  kChoose,    // choose / chooseleaf / choosemsr
  kSetParam,  // set_* N
  kEmit,
};

struct Step {
  Word keyword;  // "step"
  StepKind kind = StepKind::kEmit;
  Word op;  // take, choose, chooseleaf, choosemsr, set_..., emit
  // take
  Word item;
  std::optional<Word> device_class;
  // choose / chooseleaf
  Word mode;  // firstn | indep (empty for choosemsr)
  Number count;
  Word type;
};

struct Rule {
  Word keyword;
  std::optional<Word> name;
  Word id_keyword;  // id | ruleset
  Number id;
  Word type;
  std::optional<Number> min_size;
  std::optional<Number> max_size;
  std::vector<Step> steps;
};

struct WeightList {
  SourceRange range;  // the '[' ... ']'
  std::vector<Word> weights;
};

struct ChooseArg {
  Word open;  // '{'
  Number bucket_id;
  std::optional<Word> weight_set_keyword;
  std::vector<WeightList> weight_set;
  std::optional<Word> ids_keyword;
  std::vector<Number> ids;
};

struct ChooseArgs {
  Word keyword;
  Number index;
  std::vector<ChooseArg> args;
};

using HeaderStatement = std::variant<Tunable, Device, TypeDecl>;
using BodyStatement = std::variant<Bucket, Rule>;

struct CrushFile {
  std::vector<HeaderStatement> header;
  std::vector<BodyStatement> body;
  std::vector<ChooseArgs> choose_args;
};

}  // namespace crushkit::compiler::ast

#endif  // CRUSHKIT_COMPILER_AST_H_
