// X3 attribute plumbing for ast.h (private to grammar_def.h / grammar.cc).
//
// The AST nodes are filled by semantic actions rather than by Fusion
// adaptation: most nodes keep keyword words and optional parts whose order
// and presence depend on lookahead (a rule's name, a step's operands, a
// choose_arg's '}' message), which a Fusion attribute sequence would have to
// flatten into helper structs. Each rule below that builds a node therefore
// sets one member per sub-parser with Set/Push, and leaf rules turn the
// iterator range of a token into an ast::Word / ast::Number whose SourceRange
// is the byte offset from the start of the text (the BaseTag context value).
#ifndef CRUSHKIT_COMPILER_AST_ADAPTED_H_
#define CRUSHKIT_COMPILER_AST_ADAPTED_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/spirit/home/x3.hpp>

#include "compiler/ast.h"
#include "compiler/source_file.h"

namespace crushkit::compiler::grammar {

namespace x3 = boost::spirit::x3;

// Context key: `const char*` to the first byte of the text being parsed.
struct BaseTag;

// _val(ctx).*member = _attr(ctx)
template <class T, class M>
struct SetMember {
  M T::*member;

  template <class Ctx>
  void operator()(Ctx& ctx) const {
    x3::_val(ctx).*member = std::move(x3::_attr(ctx));
  }
};

template <class T, class M>
SetMember<T, M> Set(M T::*member) {
  return SetMember<T, M>{member};
}

// (_val(ctx).*member).push_back(_attr(ctx))
template <class T, class M>
struct PushMember {
  M T::*member;

  template <class Ctx>
  void operator()(Ctx& ctx) const {
    (x3::_val(ctx).*member).push_back(std::move(x3::_attr(ctx)));
  }
};

template <class T, class M>
PushMember<T, M> Push(M T::*member) {
  return PushMember<T, M>{member};
}

// _val(ctx) = _attr(ctx) (a node into the variant of its statement list).
struct SetVal {
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    x3::_val(ctx) = std::move(x3::_attr(ctx));
  }
};

// A step's operator word; also records which kind of step it is.
struct SetStepOp {
  ast::StepKind kind;

  template <class Ctx>
  void operator()(Ctx& ctx) const {
    x3::_val(ctx).op = std::move(x3::_attr(ctx));
    x3::_val(ctx).kind = kind;
  }
};

// A weight list's range runs from its '[' to its ']'.
struct SetListStart {
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    x3::_val(ctx).range = x3::_attr(ctx).range;
  }
};

struct SetListEnd {
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    ast::WeightList& wl = x3::_val(ctx);
    wl.range.length = x3::_attr(ctx).range.offset + 1 - wl.range.offset;
  }
};

template <class Ctx, class Range>
SourceRange RangeOf(Ctx& ctx, const Range& r) {
  const char* base = x3::get<BaseTag>(ctx);
  return SourceRange{static_cast<std::size_t>(r.begin() - base),
                     static_cast<std::size_t>(r.end() - r.begin())};
}

// A token's text, viewed in place.
template <class Range>
std::string_view ViewOf(const Range& r) {
  return std::string_view(r.begin(), static_cast<std::size_t>(r.end() - r.begin()));
}

// A token's text and range.
struct MakeWord {
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    const auto& r = x3::_attr(ctx);
    x3::_val(ctx) = ast::Word{ViewOf(r), RangeOf(ctx, r)};
  }
};

// Accepts the token only if it is one of `words` (a whole-token keyword
// match: "choose" never matches the front of "chooseleaf").
class WordSet {
 public:
  WordSet(std::initializer_list<std::string_view> words) : words_(words) {}

  template <class Range>
  bool Contains(const Range& r) const {
    const std::string_view s(r.begin(), static_cast<std::size_t>(r.end() - r.begin()));
    for (std::string_view w : words_) {
      if (w == s) return true;
    }
    return false;
  }

 private:
  std::vector<std::string_view> words_;
};

// Keyword leaf: a Word if the token is in the set, else no match.
struct MakeKeyword {
  WordSet set;

  template <class Ctx>
  void operator()(Ctx& ctx) const {
    const auto& r = x3::_attr(ctx);
    if (!set.Contains(r)) {
      x3::_pass(ctx) = false;
      return;
    }
    x3::_val(ctx) = ast::Word{ViewOf(r), RangeOf(ctx, r)};
  }
};

// Lookahead filter: passes if the token is in the set (no attribute).
struct InWordSet {
  WordSet set;

  template <class Ctx>
  void operator()(Ctx& ctx) const {
    x3::_pass(ctx) = set.Contains(x3::_attr(ctx));
  }
};

// strtol() on [-]digits, saturating like glibc; fits_int32 tells whether
// Ceph's later cast to int is lossless.
struct MakeNumber {
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    const auto& r = x3::_attr(ctx);
    const char* p = r.begin();
    const bool negative = p != r.end() && *p == '-';
    if (negative) ++p;
    const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
    std::uint64_t v = 0;
    for (; p != r.end(); ++p) {
      const auto d = static_cast<std::uint64_t>(*p - '0');
      if (v > (limit - d) / 10) {
        v = limit;
        break;
      }
      v = v * 10 + d;
    }
    ast::Number& n = x3::_val(ctx);
    if (negative) {
      n.value = v == (std::uint64_t{1} << 63) ? std::numeric_limits<std::int64_t>::min()
                                              : -static_cast<std::int64_t>(v);
    } else {
      n.value = static_cast<std::int64_t>(v);
    }
    n.fits_int32 = n.value >= std::numeric_limits<std::int32_t>::min() &&
                   n.value <= std::numeric_limits<std::int32_t>::max();
    n.range = RangeOf(ctx, r);
  }
};

}  // namespace crushkit::compiler::grammar

#endif  // CRUSHKIT_COMPILER_AST_ADAPTED_H_
