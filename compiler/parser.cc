// A hand-written recursive-descent parser. The project style suggests
// Boost.Spirit X3; we chose a small tokenizer + recursive descent instead
// because it gives exact token ranges for every diagnostic for free, builds
// in a second instead of minutes on our 2-core machines, and the grammar is
// LL(2) with a single backtracking point (a bucket whose type is named
// "rule" versus a rule), which X3 would not make simpler.
#include "compiler/parser.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace crushkit::compiler {
namespace {

enum class TokKind { kWord, kLBrace, kRBrace, kLBracket, kRBracket, kEnd };

// 12 bytes: big maps have ~100k tokens, and memory we touch is time.
struct Token {
  TokKind kind = TokKind::kEnd;
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
};

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.' || c == '+';
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

bool AllDigits(std::string_view s, std::size_t from) {
  if (s.size() <= from) return false;
  for (std::size_t i = from; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

// strtol() on an all-digit string with optional '-': saturates like glibc.
std::int64_t SaturatingValue(std::string_view s) {
  const bool negative = !s.empty() && s[0] == '-';
  std::uint64_t v = 0;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  for (std::size_t i = negative ? 1 : 0; i < s.size(); ++i) {
    const auto d = static_cast<std::uint64_t>(s[i] - '0');
    if (v > (limit - d) / 10) {
      v = limit;
      break;
    }
    v = v * 10 + d;
  }
  if (negative) {
    return v == (std::uint64_t{1} << 63) ? std::numeric_limits<std::int64_t>::min()
                                          : -static_cast<std::int64_t>(v);
  }
  return static_cast<std::int64_t>(v);
}

class Parser {
 public:
  Parser(const SourceFile& src, DiagnosticSink& sink) : src_(src), sink_(sink) {}

  std::optional<ast::CrushFile> Run() {
    if (!Tokenize()) return std::nullopt;
    ast::CrushFile file;
    if (!ParseFile(file)) {
      sink_.Report(Diagnostic{Severity::kError, error_range_, error_, {}});
      return std::nullopt;
    }
    return file;
  }

 private:
  bool Tokenize() {
    const std::string& t = src_.text();
    tokens_.reserve(t.size() / 6 + 16);  // text maps average ~7 bytes per token
    std::size_t i = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (IsSpace(c)) {
        ++i;
      } else if (c == '#') {
        while (i < t.size() && t[i] != '\n') ++i;
      } else if (IsWordChar(c)) {
        const std::size_t start = i;
        while (i < t.size() && IsWordChar(t[i])) ++i;
        Push(TokKind::kWord, start, i - start);
      } else if (c == '{' || c == '}' || c == '[' || c == ']') {
        Push(c == '{'   ? TokKind::kLBrace
             : c == '}' ? TokKind::kRBrace
             : c == '[' ? TokKind::kLBracket
                        : TokKind::kRBracket,
             i, 1);
        ++i;
      } else {
        std::string shown = (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)
                                ? std::string(1, c)
                                : "\\x" + std::string(1, "0123456789abcdef"[(c >> 4) & 0xf]) +
                                      std::string(1, "0123456789abcdef"[c & 0xf]);
        sink_.Report(Diagnostic{Severity::kError, SourceRange{i, 1}, "unexpected character '" + shown + "'", {}});
        return false;
      }
    }
    if (t.size() > 0xffffffffu) {
      sink_.Report(Diagnostic{Severity::kError, SourceRange{0, 0}, "input larger than 4 GiB", {}});
      return false;
    }
    tokens_.push_back(Token{TokKind::kEnd, static_cast<std::uint32_t>(t.size()), 0});
    return true;
  }

  void Push(TokKind kind, std::size_t offset, std::size_t length) {
    tokens_.push_back(Token{kind, static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(length)});
  }

  std::string_view Text(const Token& t) const {
    return std::string_view(src_.text()).substr(t.offset, t.length);
  }
  static SourceRange Range(const Token& t) { return SourceRange{t.offset, t.length}; }

  const Token& Peek(std::size_t ahead = 0) const {
    const std::size_t i = pos_ + ahead;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  bool PeekWord(std::string_view w, std::size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == TokKind::kWord && Text(t) == w;
  }

  std::string Describe(const Token& t) const {
    if (t.kind == TokKind::kEnd) return "end of file";
    return "'" + std::string(Text(t)) + "'";
  }

  // Records a syntax error at the current token; keeps the furthest one.
  bool Fail(const std::string& expected) {
    const Token& t = Peek();
    if (!has_error_ || Range(t).offset >= error_range_.offset) {
      has_error_ = true;
      error_range_ = Range(t).length > 0 ? Range(t) : SourceRange{Range(t).offset, 1};
      error_ = "expected " + expected + ", found " + Describe(t);
    }
    return false;
  }

  bool ExpectKind(TokKind kind, const char* what) {
    if (Peek().kind != kind) return Fail(what);
    ++pos_;
    return true;
  }

  bool ExpectKeyword(std::string_view kw, ast::Word* out = nullptr) {
    if (!PeekWord(kw)) return Fail("'" + std::string(kw) + "'");
    if (out != nullptr) *out = TakeWord();
    else ++pos_;
    return true;
  }

  ast::Word TakeWord() {
    const Token& t = tokens_[pos_++];
    return ast::Word{std::string(Text(t)), Range(t)};
  }

  bool ParseName(ast::Word* out, const char* what = "a name") {
    const Token& t = Peek();
    if (t.kind != TokKind::kWord || Text(t).find('+') != std::string_view::npos) return Fail(what);
    *out = TakeWord();
    return true;
  }

  // Any word (weights are validated by sema).
  bool ParseValueWord(ast::Word* out, const char* what) {
    if (Peek().kind != TokKind::kWord) return Fail(what);
    *out = TakeWord();
    return true;
  }

  // posint: digits; negint: '-' digits; integer: either.
  enum class IntKind { kPos, kNeg, kAny };
  bool ParseInt(IntKind kind, ast::Number* out) {
    const Token& t = Peek();
    const char* what = kind == IntKind::kPos   ? "a non-negative integer"
                       : kind == IntKind::kNeg ? "a negative integer"
                                               : "an integer";
    if (t.kind != TokKind::kWord) return Fail(what);
    const bool neg = !Text(t).empty() && Text(t)[0] == '-';
    const bool ok = (kind == IntKind::kPos && AllDigits(Text(t), 0)) ||
                    (kind == IntKind::kNeg && neg && AllDigits(Text(t), 1)) ||
                    (kind == IntKind::kAny && AllDigits(Text(t), neg ? 1 : 0));
    if (!ok) return Fail(what);
    out->value = SaturatingValue(Text(t));
    out->fits_int32 = out->value >= std::numeric_limits<std::int32_t>::min() &&
                      out->value <= std::numeric_limits<std::int32_t>::max();
    out->range = Range(t);
    ++pos_;
    return true;
  }

  bool ParseFile(ast::CrushFile& file) {
    file.header.reserve(tokens_.size() / 4);
    file.body.reserve(tokens_.size() / 64);
    // crushmap = *(tunable | device | type) >> *(bucket | rule) >> *choose_args
    for (;;) {
      if (PeekWord("tunable")) {
        ast::Tunable tn;
        tn.keyword = TakeWord();
        if (!ParseName(&tn.name, "a tunable name") || !ParseInt(IntKind::kPos, &tn.value)) return false;
        file.header.emplace_back(std::move(tn));
      } else if (PeekWord("device") && Peek(1).kind == TokKind::kWord && AllDigits(Text(Peek(1)), 0)) {
        ast::Device d;
        d.keyword = TakeWord();
        if (!ParseInt(IntKind::kPos, &d.id) || !ParseName(&d.name, "a device name")) return false;
        if (PeekWord("class")) {
          ++pos_;
          ast::Word c;
          if (!ParseName(&c, "a device class name")) return false;
          d.device_class = std::move(c);
        }
        file.header.emplace_back(std::move(d));
      } else if (PeekWord("type") && Peek(1).kind == TokKind::kWord && AllDigits(Text(Peek(1)), 0)) {
        ast::TypeDecl ty;
        ty.keyword = TakeWord();
        if (!ParseInt(IntKind::kPos, &ty.id) || !ParseName(&ty.name, "a type name")) return false;
        file.header.emplace_back(std::move(ty));
      } else {
        break;
      }
    }
    while (Peek().kind == TokKind::kWord && !PeekWord("choose_args")) {
      if (PeekWord("tunable") || PeekWord("device") ||
          (PeekWord("type") && Peek(1).kind == TokKind::kWord && AllDigits(Text(Peek(1)), 0))) {
        Fail("a bucket or rule (tunables, devices and types must come before buckets and rules)");
        return false;
      }
      const std::size_t start = pos_;
      ast::Bucket b;
      if (ParseBucket(b)) {
        file.body.emplace_back(std::move(b));
        continue;
      }
      if (!PeekWordAt(start, "rule")) return false;
      pos_ = start;
      ast::Rule r;
      if (!ParseRule(r)) return false;
      has_error_ = false;
      file.body.emplace_back(std::move(r));
    }
    while (PeekWord("choose_args")) {
      ast::ChooseArgs ca;
      if (!ParseChooseArgs(ca)) return false;
      file.choose_args.push_back(std::move(ca));
    }
    if (Peek().kind != TokKind::kEnd) {
      if (Peek().kind == TokKind::kWord) {
        return Fail("'choose_args' or end of file (buckets and rules must come before choose_args)");
      }
      return Fail("a statement");
    }
    return true;
  }

  bool PeekWordAt(std::size_t index, std::string_view w) const {
    return index < tokens_.size() && tokens_[index].kind == TokKind::kWord && Text(tokens_[index]) == w;
  }

  bool ParseBucket(ast::Bucket& b) {
    if (!ParseName(&b.type, "a bucket type") || !ParseName(&b.name, "a bucket name") ||
        !ExpectKind(TokKind::kLBrace, "'{'")) {
      return false;
    }
    while (PeekWord("id")) {
      ast::BucketId id;
      id.keyword = TakeWord();
      if (!ParseInt(IntKind::kNeg, &id.id)) return false;
      if (PeekWord("class")) {
        ++pos_;
        ast::Word c;
        if (!ParseName(&c, "a device class name")) return false;
        id.device_class = std::move(c);
      }
      b.ids.push_back(std::move(id));
    }
    if (!PeekWord("alg")) return Fail(b.ids.empty() ? "'id' or 'alg'" : "'id' or 'alg'");
    b.alg_keyword = TakeWord();
    if (!ParseName(&b.alg, "a bucket algorithm")) return false;
    while (PeekWord("hash")) {
      ++pos_;
      const Token& t = Peek();
      const bool neg = t.kind == TokKind::kWord && !Text(t).empty() && Text(t)[0] == '-';
      if (t.kind != TokKind::kWord || (Text(t) != "rjenkins1" && !AllDigits(Text(t), neg ? 1 : 0))) {
        return Fail("'rjenkins1' or an integer");
      }
      b.hashes.push_back(TakeWord());
    }
    while (PeekWord("item")) {
      ast::BucketItem it;
      it.keyword = TakeWord();
      if (!ParseName(&it.name, "an item name")) return false;
      if (PeekWord("weight")) {
        ++pos_;
        ast::Word w;
        if (!ParseValueWord(&w, "a weight")) return false;
        it.weight = std::move(w);
      }
      if (PeekWord("pos")) {
        ++pos_;
        ast::Number p;
        if (!ParseInt(IntKind::kPos, &p)) return false;
        it.pos = p;
      }
      b.items.push_back(std::move(it));
    }
    if (Peek().kind != TokKind::kRBrace) {
      return Fail(b.items.empty() ? "'hash', 'item' or '}'" : "'item' or '}'");
    }
    ++pos_;
    return true;
  }

  bool ParseRule(ast::Rule& r) {
    r.keyword = TakeWord();
    if (Peek().kind == TokKind::kWord) {
      ast::Word n;
      if (!ParseName(&n, "a rule name")) return false;
      r.name = std::move(n);
    }
    if (!ExpectKind(TokKind::kLBrace, "'{'")) return false;
    if (!PeekWord("id") && !PeekWord("ruleset")) return Fail("'id' or 'ruleset'");
    r.id_keyword = TakeWord();
    if (!ParseInt(IntKind::kPos, &r.id)) return false;
    if (!ExpectKeyword("type")) return false;
    if (!(PeekWord("replicated") || PeekWord("erasure") || PeekWord("msr_firstn") || PeekWord("msr_indep"))) {
      return Fail("a rule type ('replicated' or 'erasure')");
    }
    r.type = TakeWord();
    if (PeekWord("min_size")) {
      ++pos_;
      ast::Number n;
      if (!ParseInt(IntKind::kPos, &n)) return false;
      r.min_size = n;
    }
    if (PeekWord("max_size")) {
      ++pos_;
      ast::Number n;
      if (!ParseInt(IntKind::kPos, &n)) return false;
      r.max_size = n;
    }
    if (!PeekWord("step")) return Fail("'step'");
    while (PeekWord("step")) {
      ast::Step s;
      if (!ParseStep(s)) return false;
      r.steps.push_back(std::move(s));
    }
    if (Peek().kind != TokKind::kRBrace) return Fail("'step' or '}'");
    ++pos_;
    return true;
  }

  bool ParseStep(ast::Step& s) {
    s.keyword = TakeWord();
    const Token& t = Peek();
    if (t.kind != TokKind::kWord) return Fail("a step");
    const std::string_view op = Text(t);
    if (op == "take") {
      s.kind = ast::StepKind::kTake;
      s.op = TakeWord();
      if (!ParseName(&s.item, "a bucket or device name")) return false;
      if (PeekWord("class")) {
        ++pos_;
        ast::Word c;
        if (!ParseName(&c, "a device class name")) return false;
        s.device_class = std::move(c);
      }
      return true;
    }
    if (op == "set_choose_tries" || op == "set_choose_local_tries" || op == "set_choose_local_fallback_tries" ||
        op == "set_chooseleaf_tries" || op == "set_chooseleaf_vary_r" || op == "set_chooseleaf_stable" ||
        op == "set_msr_descents" || op == "set_msr_collision_tries") {
      s.kind = ast::StepKind::kSetParam;
      s.op = TakeWord();
      return ParseInt(IntKind::kPos, &s.count);
    }
    if (op == "choose" || op == "chooseleaf") {
      s.kind = ast::StepKind::kChoose;
      s.op = TakeWord();
      if (!PeekWord("firstn") && !PeekWord("indep")) return Fail("'firstn' or 'indep'");
      s.mode = TakeWord();
      return ParseInt(IntKind::kAny, &s.count) && ExpectKeyword("type") && ParseName(&s.type, "a type name");
    }
    if (op == "choosemsr") {
      s.kind = ast::StepKind::kChoose;
      s.op = TakeWord();
      return ParseInt(IntKind::kAny, &s.count) && ExpectKeyword("type") && ParseName(&s.type, "a type name");
    }
    if (op == "emit") {
      s.kind = ast::StepKind::kEmit;
      s.op = TakeWord();
      return true;
    }
    return Fail("a step ('take', 'choose', 'chooseleaf', 'emit' or 'set_...')");
  }

  bool ParseChooseArgs(ast::ChooseArgs& ca) {
    ca.keyword = TakeWord();
    if (!ParseInt(IntKind::kPos, &ca.index) || !ExpectKind(TokKind::kLBrace, "'{'")) return false;
    while (Peek().kind == TokKind::kLBrace) {
      ast::ChooseArg a;
      a.open = ast::Word{"{", Range(Peek())};
      ++pos_;
      if (!ExpectKeyword("bucket_id") || !ParseInt(IntKind::kNeg, &a.bucket_id)) return false;
      if (PeekWord("weight_set")) {
        a.weight_set_keyword = TakeWord();
        if (!ExpectKind(TokKind::kLBracket, "'['")) return false;
        while (Peek().kind == TokKind::kLBracket) {
          ast::WeightList wl;
          wl.range = Range(Peek());
          ++pos_;
          while (Peek().kind == TokKind::kWord) wl.weights.push_back(TakeWord());
          if (Peek().kind != TokKind::kRBracket) return Fail("a weight or ']'");
          wl.range.length = Range(Peek()).offset + 1 - wl.range.offset;
          ++pos_;
          a.weight_set.push_back(std::move(wl));
        }
        if (!ExpectKind(TokKind::kRBracket, "'[' or ']'")) return false;
      }
      if (PeekWord("ids")) {
        a.ids_keyword = TakeWord();
        if (!ExpectKind(TokKind::kLBracket, "'['")) return false;
        while (Peek().kind == TokKind::kWord) {
          ast::Number n;
          if (!ParseInt(IntKind::kAny, &n)) return false;
          a.ids.push_back(n);
        }
        if (!ExpectKind(TokKind::kRBracket, "an integer or ']'")) return false;
      }
      if (!ExpectKind(TokKind::kRBrace, a.ids_keyword ? "'}'" : (a.weight_set_keyword ? "'ids' or '}'" : "'weight_set', 'ids' or '}'"))) {
        return false;
      }
      ca.args.push_back(std::move(a));
    }
    return ExpectKind(TokKind::kRBrace, "'{' or '}'");
  }

  const SourceFile& src_;
  DiagnosticSink& sink_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  bool has_error_ = false;
  SourceRange error_range_;
  std::string error_;
};

}  // namespace

std::optional<ast::CrushFile> Parse(const SourceFile& src, DiagnosticSink& sink) {
  return Parser(src, sink).Run();
}

}  // namespace crushkit::compiler
