#include "tools/common/ceph_args.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>

namespace crushkit::tools {

std::string DashesToUnderscores(std::string_view arg) {
  std::string out;
  out.reserve(arg.size());
  for (std::size_t i = 0; i < arg.size(); ++i) {
    const char c = arg[i];
    if (i < 2) {
      out.push_back(c);
      continue;
    }
    if (c == '=') {
      out.append(arg.substr(i));
      break;
    }
    out.push_back(c == '-' ? '_' : c);
  }
  return out;
}

ArgValueType ClassifyArgValue(std::string_view value) {
  // Mirrors ceph_arg_value_type() character for character, including its
  // quirks: "-" alone is an option, "1.2.3" is not numeric, "" is numeric.
  ArgValueType t;
  t.is_option = value.size() >= 2 && value[0] == '-' && value[1] == '-';
  bool is_float = false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (c >= '0' && c <= '9') continue;
    if (i == 0 && value.size() >= 2 && c == '-') continue;
    if (c == '.' && !is_float) {
      is_float = true;
      continue;
    }
    t.is_numeric = false;
    break;
  }
  if (!value.empty() && value[0] == '-' && !t.is_numeric) t.is_option = true;
  return t;
}

std::int64_t StrictStrtoll(std::string_view value, std::string* err) {
  const std::string s(value);
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str() || end != s.c_str() + s.size()) {
    *err = "Expected option value to be integer, got '" + s + "'";
    return 0;
  }
  if (errno != 0) {
    *err = "The option value '" + s + "' seems to be invalid";
    return 0;
  }
  err->clear();
  return v;
}

int StrictStrtol(std::string_view value, std::string* err) {
  const std::int64_t v = StrictStrtoll(value, err);
  if (!err->empty()) return 0;
  if (v < INT_MIN || v > INT_MAX) {
    *err = "The option value '" + std::string(value) + "' seems to be invalid";
    return 0;
  }
  return static_cast<int>(v);
}

std::string ArgList::Take() {
  std::string s = std::move(args_[pos_]);
  args_.erase(args_.begin() + static_cast<std::ptrdiff_t>(pos_));
  return s;
}

bool ArgList::DoubleDash() {
  if (Current() != "--") return false;
  Take();
  return true;
}

bool ArgList::Flag(std::initializer_list<std::string_view> names) {
  const std::string first = DashesToUnderscores(Current());
  for (std::string_view name : names) {
    if (DashesToUnderscores(name) == first) {
      Take();
      return true;
    }
  }
  return false;
}

ArgMatch ArgList::WithArg(std::initializer_list<std::string_view> names, std::string* value,
                          std::string* msg) {
  const std::string first = DashesToUnderscores(Current());
  for (std::string_view name : names) {
    const std::string a = DashesToUnderscores(name);
    if (first.compare(0, a.size(), a) != 0) continue;
    if (first.size() > a.size() && first[a.size()] == '=') {
      *value = first.substr(a.size() + 1);
      Take();
      return ArgMatch::kValue;
    }
    if (first.size() == a.size()) {
      if (pos_ + 1 >= args_.size()) {
        msg->append("Option " + Current() + " requires an argument.\n");
        Take();
        return ArgMatch::kMissing;
      }
      Take();
      *value = Take();
      return ArgMatch::kValue;
    }
  }
  return ArgMatch::kNoMatch;
}

template <typename T>
bool ArgList::WithInteger(std::initializer_list<std::string_view> names, T* value,
                          std::string* err) {
  std::string str;
  const ArgMatch m = WithArg(names, &str, err);
  if (m == ArgMatch::kNoMatch) return false;
  if (m == ArgMatch::kMissing) return true;
  const ArgValueType t = ClassifyArgValue(str);
  if (t.is_option || !t.is_numeric) {
    *value = 1;  // Ceph stores EXIT_FAILURE in the option
    if (t.is_option) {
      err->append("Missing option value");
    } else {
      err->append("The option value '" + str + "' is invalid");
    }
    return true;
  }
  std::string conv_err;
  if constexpr (sizeof(T) == sizeof(int)) {
    *value = StrictStrtol(str, &conv_err);
  } else {
    *value = StrictStrtoll(str, &conv_err);
  }
  err->append(conv_err);
  return true;
}

bool ArgList::WithInt(std::initializer_list<std::string_view> names, int* value, std::string* err) {
  return WithInteger(names, value, err);
}

bool ArgList::WithInt64(std::initializer_list<std::string_view> names, std::int64_t* value,
                        std::string* err) {
  return WithInteger(names, value, err);
}

std::string FormatArgVector(const std::vector<std::string>& args) {
  std::string out = "[";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out.push_back(',');
    out += args[i];
  }
  out.push_back(']');
  return out;
}

}  // namespace crushkit::tools
