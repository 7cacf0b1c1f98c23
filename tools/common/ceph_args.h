// Ceph-style command line parsing (src/common/ceph_argparse.cc as used by
// Pacific crushtool and osdmaptool), reproduced so that `crushkit crushtool`
// and `crushkit osdmaptool` accept exactly the same spellings and print
// exactly the same errors:
//   * `--foo-bar` and `--foo_bar` are one option (dashes after the first two
//     characters and before any '=' are normalised to underscores);
//   * options taking a value accept `--opt value` and `--opt=value`; flags
//     match only exactly (`--flag=1` is not a flag);
//   * integer values are classified first (ceph_arg_value_type) and then
//     converted strictly (strict_strtol/strict_strtoll), with Ceph's messages.
// Matched arguments are erased from the list, so what remains at the end is
// what Ceph reports as `unrecognized arguments: [...]`.
// Thread-safety: plain values; no shared state.
#ifndef CRUSHKIT_TOOLS_COMMON_CEPH_ARGS_H_
#define CRUSHKIT_TOOLS_COMMON_CEPH_ARGS_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace crushkit::tools {

// Ceph's dashes_to_underscores(): the first two characters are kept, then
// '-' becomes '_' up to the first '=', after which the text is kept verbatim.
std::string DashesToUnderscores(std::string_view arg);

// Ceph's ceph_arg_value_type(): whether a value looks like an option
// ("--x", "-abc") and whether it looks numeric (optional leading '-' when the
// value has at least 2 characters, digits, at most one '.').
struct ArgValueType {
  bool is_option = false;
  bool is_numeric = true;
};

ArgValueType ClassifyArgValue(std::string_view value);

// strict_strtoll()/strict_strtol(): base 10, the whole string must be
// consumed. On failure returns 0 and sets *err to Ceph's message
// ("Expected option value to be integer, got '...'" or
// "The option value '...' seems to be invalid"); on success clears *err.
std::int64_t StrictStrtoll(std::string_view value, std::string* err);
int StrictStrtol(std::string_view value, std::string* err);

// Whether *it matched and what happened, for options taking a value.
enum class ArgMatch {
  kNoMatch,  // not this option; the cursor is unchanged
  kValue,    // matched; the value was extracted and both words erased
  kMissing,  // matched but no value followed; the option word was erased
};

// A mutable argument list with a cursor, as Ceph's vector<const char*> plus
// iterator. Arguments that no rule consumes are skipped with Next() and stay
// in the list.
class ArgList {
 public:
  explicit ArgList(std::vector<std::string> args) : args_(std::move(args)) {}

  bool AtEnd() const { return pos_ >= args_.size(); }

  const std::string& Current() const { return args_[pos_]; }

  // Leaves the current argument in place and moves past it.
  void Next() { ++pos_; }

  // Removes the current argument and returns it.
  std::string Take();

  // Remaining (unconsumed) arguments.
  const std::vector<std::string>& args() const { return args_; }

  // ceph_argparse_double_dash: "--" is erased and true returned.
  bool DoubleDash();
  // ceph_argparse_flag: exact match (after dash normalisation) of any name.
  bool Flag(std::initializer_list<std::string_view> names);
  // va_ceph_argparse_witharg: `--opt value` or `--opt=value`. On kMissing,
  // appends "Option <arg> requires an argument.\n" to *msg.
  ArgMatch WithArg(std::initializer_list<std::string_view> names, std::string* value,
                   std::string* msg);
  // The templated integer ceph_argparse_witharg(): returns true if the option
  // matched (whether or not the value was valid). Errors are appended to
  // *err exactly as Ceph's ostream; an invalid non-numeric value stores 1
  // (EXIT_FAILURE) in *value, as Ceph does.
  bool WithInt(std::initializer_list<std::string_view> names, int* value, std::string* err);
  bool WithInt64(std::initializer_list<std::string_view> names, std::int64_t* value,
                 std::string* err);

 private:
  template <typename T>
  bool WithInteger(std::initializer_list<std::string_view> names, T* value, std::string* err);

  std::vector<std::string> args_;
  std::size_t pos_ = 0;
};

// Ceph's operator<<(ostream, vector<const char*>): "[a,b,c]".
std::string FormatArgVector(const std::vector<std::string>& args);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_CEPH_ARGS_H_
