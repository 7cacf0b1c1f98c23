// Rules of the X3 crush map grammar behind Parse() (parser.h). Included
// only by grammar.cc, the single X3 instantiation unit.
//
// Shape (Ceph's crush_grammar, src/crush/grammar.h):
//   crush_file  = *(tunable | device | type_decl) >> *(bucket | rule)
//                 >> *choose_args >> end
// Lexical rules: '#' comments to end of line; a token is a word
// [A-Za-z0-9_.+-]+ or one of "{}[]"; names are words without '+'; integers
// are [-]digits; weights are any word (sema validates them as Ceph's strtof
// would). Keywords match whole words only.
//
// Errors: every point where Ceph's grammar would fail is an x3::expect[] on
// a rule named after what was expected, so the first failure throws
// expectation_failure(where, "what was expected"); crush_file's on_error
// turns it into "expected X, found Y" at the token after `where`. The one
// backtracking point is a statement starting with the word "rule": it may be
// a bucket whose type is named "rule" or a rule. BucketOrRule tries both and,
// if both fail, reports the failure that got further (a tie goes to the
// rule), as Ceph's backtracking parser effectively does.
#ifndef CRUSHKIT_COMPILER_GRAMMAR_DEF_H_
#define CRUSHKIT_COMPILER_GRAMMAR_DEF_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <boost/spirit/home/x3.hpp>

#include "compiler/ast.h"
#include "compiler/ast_adapted.h"
#include "compiler/diagnostics.h"
#include "compiler/source_file.h"

namespace crushkit::compiler::grammar {

// ---------------------------------------------------------------- lexical

const auto word_char = x3::char_("a-zA-Z0-9_.+-");
const auto name_char = x3::char_("a-zA-Z0-9_.-");
const auto digit = x3::char_("0-9");
const auto space_char = x3::char_(" \t\n\r\f\v");
const auto comment = x3::lit('#') >> *~x3::char_('\n');
const auto skipper = space_char | comment;

// Every byte outside comments must belong to a token or be white space;
// run without a skipper, it stops at the first byte that does not.
const auto lexical_check = *(space_char | comment | word_char | x3::char_("{}[]"));

inline bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.' || c == '+';
}

// The start of the next token at or after `p` (skips white space and
// comments exactly as `skipper` does).
inline const char* SkipBlank(const char* p, const char* end) {
  while (p != end) {
    const char c = *p;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++p;
    } else if (c == '#') {
      while (p != end && *p != '\n') ++p;
    } else {
      break;
    }
  }
  return p;
}

// A whole-word keyword (no attribute).
inline auto Kw(const char* s) { return x3::lexeme[x3::lit(s) >> !word_char]; }

const auto any_word = x3::lexeme[+word_char];
const auto digits_token = x3::lexeme[+digit >> !word_char];

// ------------------------------------------------------------------ leaves
// Each leaf is a rule named after what the user must write there: the name
// is what expectation_failure::which() reports.

struct WordTag;
struct NumberTag;
struct ExpectTag;

// A keyword kept in the AST (its range is used by sema's messages).
inline auto Keyword(const char* what, std::initializer_list<std::string_view> words) {
  return x3::rule<WordTag, ast::Word>{what} = x3::raw[any_word][MakeKeyword{WordSet(words)}];
}

// A name: a word without '+'.
inline auto Name(const char* what) {
  return x3::rule<WordTag, ast::Word>{what} =
             x3::raw[x3::lexeme[+name_char >> !word_char]][MakeWord{}];
}

inline auto AnyWord(const char* what) {
  return x3::rule<WordTag, ast::Word>{what} = x3::raw[any_word][MakeWord{}];
}

inline auto Punct(const char* what, char c) {
  return x3::rule<WordTag, ast::Word>{what} = x3::raw[x3::lit(c)][MakeWord{}];
}

template <class P>
auto Integer(const char* what, P digits) {
  return x3::rule<NumberTag, ast::Number>{what} =
             x3::raw[x3::lexeme[digits >> !word_char]][MakeNumber{}];
}

// Names parser `p` for error messages; use as x3::expect[Expect(...)].
template <class P>
auto Expect(const char* what, P p) {
  return x3::rule<ExpectTag>{what} = p;
}

// Matches (without consuming) a word that is one of `words`.
inline auto PeekWordIn(std::initializer_list<std::string_view> words) {
  return &x3::raw[any_word][InWordSet{WordSet(words)}];
}

const auto posint = Integer("a non-negative integer", +digit);
const auto negint = Integer("a negative integer", x3::lit('-') >> +digit);
const auto integer = Integer("an integer", -x3::lit('-') >> +digit);
const auto class_name = Name("a device class name");
const auto type_name = Name("a type name");
const auto hash_name = x3::rule<WordTag, ast::Word>{"'rjenkins1' or an integer"} =
    x3::raw[x3::lexeme[(x3::lit("rjenkins1") | (-x3::lit('-') >> +digit)) >> !word_char]]
           [MakeWord{}];

constexpr const char kMisplacedHeader[] =
    "a bucket or rule (tunables, devices and types must come before buckets and rules)";
constexpr const char kAfterChooseArgs[] =
    "'choose_args' or end of file (buckets and rules must come before choose_args)";
constexpr const char kStepOps[] = "a step ('take', 'choose', 'chooseleaf', 'emit' or 'set_...')";

// ------------------------------------------------------------ rule objects

struct TunableTag;
struct DeviceTag;
struct TypeDeclTag;
struct BucketIdTag;
struct BucketItemTag;
struct BucketTag;
struct RuleTag;
struct StepTag;
struct WeightListTag;
struct ChooseArgTag;
struct ChooseArgsTag;
struct BodyTag;
struct FileTag;

const x3::rule<TunableTag, ast::Tunable> tunable = "tunable";
const x3::rule<DeviceTag, ast::Device> device = "device";
const x3::rule<TypeDeclTag, ast::TypeDecl> type_decl = "type";
const x3::rule<BucketIdTag, ast::BucketId> bucket_id = "bucket id";
const x3::rule<BucketItemTag, ast::BucketItem> bucket_item = "bucket item";
const x3::rule<BucketTag, ast::Bucket> bucket = "bucket";
const x3::rule<RuleTag, ast::Rule> crush_rule = "rule";
const x3::rule<StepTag, ast::Step> step = "step";
const x3::rule<WeightListTag, ast::WeightList> weight_list = "weight list";
const x3::rule<ChooseArgTag, ast::ChooseArg> choose_arg = "choose_arg";
const x3::rule<ChooseArgsTag, ast::ChooseArgs> choose_args = "choose_args";
const x3::rule<BodyTag, ast::BodyStatement> body_statement = "bucket or rule";
const x3::rule<FileTag, ast::CrushFile> crush_file = "crush map";

// ------------------------------------------------------------------ header

const auto tunable_def = Keyword("'tunable'", {"tunable"})[Set(&ast::Tunable::keyword)] >>
                         x3::expect[Name("a tunable name")][Set(&ast::Tunable::name)] >>
                         x3::expect[posint][Set(&ast::Tunable::value)];

// "device" / "type" start a header statement only before an integer;
// otherwise the word is a bucket type (or misplaced, see body_statement).
const auto device_def = Keyword("'device'", {"device"})[Set(&ast::Device::keyword)] >>
                        &digits_token >> x3::expect[posint][Set(&ast::Device::id)] >>
                        x3::expect[Name("a device name")][Set(&ast::Device::name)] >>
                        -(Kw("class") >> x3::expect[class_name][Set(&ast::Device::device_class)]);

const auto type_decl_def = Keyword("'type'", {"type"})[Set(&ast::TypeDecl::keyword)] >>
                           &digits_token >> x3::expect[posint][Set(&ast::TypeDecl::id)] >>
                           x3::expect[type_name][Set(&ast::TypeDecl::name)];

// ------------------------------------------------------------------ bucket

const auto bucket_id_def = Keyword("'id'", {"id"})[Set(&ast::BucketId::keyword)] >>
                           x3::expect[negint][Set(&ast::BucketId::id)] >>
                           -(Kw("class") >>
                             x3::expect[class_name][Set(&ast::BucketId::device_class)]);

const auto bucket_item_def = Keyword("'item'", {"item"})[Set(&ast::BucketItem::keyword)] >>
                             x3::expect[Name("an item name")][Set(&ast::BucketItem::name)] >>
                             -(Kw("weight") >>
                               x3::expect[AnyWord("a weight")][Set(&ast::BucketItem::weight)]) >>
                             -(Kw("pos") >> x3::expect[posint][Set(&ast::BucketItem::pos)]);

const auto bucket_def =
    x3::expect[Name("a bucket type")][Set(&ast::Bucket::type)] >>
    x3::expect[Name("a bucket name")][Set(&ast::Bucket::name)] >>
    x3::expect[Expect("'{'", x3::lit('{'))] >> *bucket_id[Push(&ast::Bucket::ids)] >>
    x3::expect[Keyword("'id' or 'alg'", {"alg"})][Set(&ast::Bucket::alg_keyword)] >>
    x3::expect[Name("a bucket algorithm")][Set(&ast::Bucket::alg)] >>
    *(Kw("hash") >> x3::expect[hash_name][Push(&ast::Bucket::hashes)]) >>
    ((+bucket_item[Push(&ast::Bucket::items)] >>
      x3::expect[Expect("'item' or '}'", x3::lit('}'))]) |
     x3::expect[Expect("'hash', 'item' or '}'", x3::lit('}'))]);

// -------------------------------------------------------------------- rule

const auto take_step = Keyword("'take'", {"take"})[SetStepOp{ast::StepKind::kTake}] >>
                       x3::expect[Name("a bucket or device name")][Set(&ast::Step::item)] >>
                       -(Kw("class") >> x3::expect[class_name][Set(&ast::Step::device_class)]);

const auto set_step =
    Keyword("'set_...'",
            {"set_choose_tries", "set_choose_local_tries", "set_choose_local_fallback_tries",
             "set_chooseleaf_tries", "set_chooseleaf_vary_r", "set_chooseleaf_stable",
             "set_msr_descents", "set_msr_collision_tries"})[SetStepOp{ast::StepKind::kSetParam}] >>
    x3::expect[posint][Set(&ast::Step::count)];

const auto choose_step =
    Keyword("'choose'", {"choose", "chooseleaf"})[SetStepOp{ast::StepKind::kChoose}] >>
    x3::expect[Keyword("'firstn' or 'indep'", {"firstn", "indep"})][Set(&ast::Step::mode)] >>
    x3::expect[integer][Set(&ast::Step::count)] >> x3::expect[Expect("'type'", Kw("type"))] >>
    x3::expect[type_name][Set(&ast::Step::type)];

const auto msr_step = Keyword("'choosemsr'", {"choosemsr"})[SetStepOp{ast::StepKind::kChoose}] >>
                      x3::expect[integer][Set(&ast::Step::count)] >>
                      x3::expect[Expect("'type'", Kw("type"))] >>
                      x3::expect[type_name][Set(&ast::Step::type)];

const auto emit_step = Keyword("'emit'", {"emit"})[SetStepOp{ast::StepKind::kEmit}];

const auto step_def =
    Keyword("'step'", {"step"})[Set(&ast::Step::keyword)] >>
    x3::expect[Expect("a step", &any_word)] >>
    x3::expect[Expect(kStepOps,
                      PeekWordIn({"take", "choose", "chooseleaf", "choosemsr", "emit",
                                  "set_choose_tries", "set_choose_local_tries",
                                  "set_choose_local_fallback_tries", "set_chooseleaf_tries",
                                  "set_chooseleaf_vary_r", "set_chooseleaf_stable",
                                  "set_msr_descents", "set_msr_collision_tries"}))] >>
    (take_step | set_step | choose_step | msr_step | emit_step);

// Ceph's rule: the name is optional, min_size/max_size are optional (newer
// syntax; sema explains that Pacific needs them), msr types parse here.
const auto crush_rule_def =
    Keyword("'rule'", {"rule"})[Set(&ast::Rule::keyword)] >>
    -(&any_word >> x3::expect[Name("a rule name")][Set(&ast::Rule::name)]) >>
    x3::expect[Expect("'{'", x3::lit('{'))] >>
    x3::expect[Keyword("'id' or 'ruleset'", {"id", "ruleset"})][Set(&ast::Rule::id_keyword)] >>
    x3::expect[posint][Set(&ast::Rule::id)] >> x3::expect[Expect("'type'", Kw("type"))] >>
    x3::expect[Keyword("a rule type ('replicated' or 'erasure')",
                       {"replicated", "erasure", "msr_firstn", "msr_indep"})]
              [Set(&ast::Rule::type)] >>
    -(Kw("min_size") >> x3::expect[posint][Set(&ast::Rule::min_size)]) >>
    -(Kw("max_size") >> x3::expect[posint][Set(&ast::Rule::max_size)]) >>
    x3::expect[Expect("'step'", &Kw("step"))] >>
    *step[Push(&ast::Rule::steps)] >> x3::expect[Expect("'step' or '}'", x3::lit('}'))];

// ------------------------------------------------------------- choose_args

const auto weight_list_def = Punct("'['", '[')[SetListStart{}] >>
                             *AnyWord("a weight")[Push(&ast::WeightList::weights)] >>
                             x3::expect[Punct("a weight or ']'", ']')][SetListEnd{}];

const auto weight_set_part =
    Keyword("'weight_set'", {"weight_set"})[Set(&ast::ChooseArg::weight_set_keyword)] >>
    x3::expect[Expect("'['", x3::lit('['))] >> *weight_list[Push(&ast::ChooseArg::weight_set)] >>
    x3::expect[Expect("'[' or ']'", x3::lit(']'))];

const auto ids_part = Keyword("'ids'", {"ids"})[Set(&ast::ChooseArg::ids_keyword)] >>
                      x3::expect[Expect("'['", x3::lit('['))] >>
                      *(&any_word >> x3::expect[integer][Push(&ast::ChooseArg::ids)]) >>
                      x3::expect[Expect("an integer or ']'", x3::lit(']'))];

// The '}' message lists what could still come, as the parts seen so far allow.
const auto choose_arg_def = Punct("'{'", '{')[Set(&ast::ChooseArg::open)] >>
                            x3::expect[Expect("'bucket_id'", Kw("bucket_id"))] >>
                            x3::expect[negint][Set(&ast::ChooseArg::bucket_id)] >>
                            ((ids_part >> x3::expect[Expect("'}'", x3::lit('}'))]) |
                             (weight_set_part >>
                              ((ids_part >> x3::expect[Expect("'}'", x3::lit('}'))]) |
                               x3::expect[Expect("'ids' or '}'", x3::lit('}'))])) |
                             x3::expect[Expect("'weight_set', 'ids' or '}'", x3::lit('}'))]);

const auto choose_args_def =
    Keyword("'choose_args'", {"choose_args"})[Set(&ast::ChooseArgs::keyword)] >>
    x3::expect[posint][Set(&ast::ChooseArgs::index)] >> x3::expect[Expect("'{'", x3::lit('{'))] >>
    *choose_arg[Push(&ast::ChooseArgs::args)] >> x3::expect[Expect("'{' or '}'", x3::lit('}'))];

// -------------------------------------------------------------------- file

// A statement starting with "rule" is a bucket of type "rule" or a rule:
// try the bucket, then the rule; if both fail, report the failure that got
// further into the input (a tie goes to the rule).
template <class BucketP, class RuleP>
struct BucketOrRule : x3::parser<BucketOrRule<BucketP, RuleP>> {
  using attribute_type = ast::BodyStatement;
  static const bool has_attribute = true;

  constexpr BucketOrRule(BucketP b, RuleP r) : bucket_p(b), rule_p(r) {}

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, const It& last, const Ctx& ctx, RCtx& rctx, Attr& attr) const {
    std::optional<x3::expectation_failure<It>> bucket_error;
    {
      It i = first;
      ast::Bucket b;
      try {
        if (bucket_p.parse(i, last, ctx, rctx, b)) {
          attr = std::move(b);
          first = i;
          return true;
        }
      } catch (const x3::expectation_failure<It>& e) {
        bucket_error.emplace(e);
      }
    }
    It j = first;
    ast::Rule r;
    try {
      if (rule_p.parse(j, last, ctx, rctx, r)) {
        attr = std::move(r);
        first = j;
        return true;
      }
    } catch (const x3::expectation_failure<It>& e) {
      if (!bucket_error || SkipBlank(e.where(), last) >= SkipBlank(bucket_error->where(), last))
        throw;
    }
    if (bucket_error) throw *bucket_error;
    return false;
  }

  BucketP bucket_p;
  RuleP rule_p;
};

const auto misplaced_header = Kw("tunable") | Kw("device") | (Kw("type") >> &digits_token);

const auto body_statement_def =
    x3::expect[Expect(kMisplacedHeader, !misplaced_header)] >>
    ((&Kw("rule") >>
      BucketOrRule<decltype(bucket), decltype(crush_rule)>(bucket, crush_rule)[SetVal{}]) |
     x3::expect[bucket][SetVal{}]);

const auto end_of_file = (&any_word >> x3::expect[Expect(kAfterChooseArgs, x3::eoi)]) |
                         x3::expect[Expect("a statement", x3::eoi)];

const auto crush_file_def = *(tunable[Push(&ast::CrushFile::header)] |
                              device[Push(&ast::CrushFile::header)] |
                              type_decl[Push(&ast::CrushFile::header)]) >>
                            *(!Kw("choose_args") >> &any_word >>
                              body_statement[Push(&ast::CrushFile::body)]) >>
                            *choose_args[Push(&ast::CrushFile::choose_args)] >> end_of_file;

BOOST_SPIRIT_DEFINE(tunable, device, type_decl, bucket_id, bucket_item, bucket, crush_rule, step,
                    weight_list, choose_arg, choose_args, body_statement, crush_file)

// ------------------------------------------------------------------ errors

// Context key: the SyntaxErrorReporter of this parse.
struct ReporterTag;

// Turns an expectation failure into the one syntax diagnostic.
class SyntaxErrorReporter {
 public:
  SyntaxErrorReporter(const SourceFile& src, DiagnosticSink& sink) : src_(src), sink_(sink) {}

  // "expected <which>, found <token after where>" at that token.
  void Expected(const char* where, const std::string& which) const {
    const char* const base = src_.text().data();
    const char* const end = base + src_.text().size();
    const char* p = SkipBlank(where, end);
    const auto offset = static_cast<std::size_t>(p - base);
    SourceRange range{offset, 1};
    std::string found;
    if (p == end) {
      found = "end of file";
    } else {
      const char* q = p;
      if (IsWordChar(*q)) {
        while (q != end && IsWordChar(*q)) ++q;
      } else {
        ++q;
      }
      range.length = static_cast<std::size_t>(q - p);
      found = "'" + std::string(p, q) + "'";
    }
    sink_.Report(Diagnostic{Severity::kError, range, "expected " + which + ", found " + found, {}});
    reported_ = true;
  }

  bool reported() const { return reported_; }

 private:
  const SourceFile& src_;
  DiagnosticSink& sink_;
  mutable bool reported_ = false;
};

struct FileTag {
  template <class It, class Exception, class Ctx>
  x3::error_handler_result on_error(It& /*first*/, const It& /*last*/, const Exception& x,
                                    const Ctx& ctx) {
    x3::get<ReporterTag>(ctx).Expected(x.where(), x.which());
    return x3::error_handler_result::fail;
  }
};

}  // namespace crushkit::compiler::grammar

#endif  // CRUSHKIT_COMPILER_GRAMMAR_DEF_H_
