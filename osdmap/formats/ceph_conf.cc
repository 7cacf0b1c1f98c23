#include "osdmap/formats/ceph_conf.h"

#include <cerrno>
#include <cstdlib>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace crushkit::osdmap {
namespace {

using Sections = std::map<std::string, std::map<std::string, std::string>>;

std::string NormaliseKey(absl::string_view k) {
  std::string s(absl::StripAsciiWhitespace(k));
  for (char& c : s) {
    if (c == ' ' || c == '-') c = '_';
  }
  return s;
}

std::string StripComment(absl::string_view line) {
  std::string out;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == ';' || c == '#')) break;
    out += c;
  }
  return out;
}

absl::StatusOr<Sections> Parse(std::string_view conf) {
  Sections sections;
  std::string current;
  int lineno = 0;
  for (absl::string_view raw : absl::StrSplit(absl::string_view(conf.data(), conf.size()), '\n')) {
    ++lineno;
    const std::string line(absl::StripAsciiWhitespace(StripComment(raw)));
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']')
        return absl::InvalidArgumentError(absl::StrCat("line ", lineno, ": bad section header"));
      current = std::string(absl::StripAsciiWhitespace(line.substr(1, line.size() - 2)));
      sections[current];
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string value(absl::StripAsciiWhitespace(line.substr(eq + 1)));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    sections[current][NormaliseKey(line.substr(0, eq))] = value;
  }
  return sections;
}

std::string Lookup(const Sections& s, const std::string& section, const std::string& key) {
  for (const std::string& name : {std::string("osd"), section}) {
    auto sec = s.find(name);
    if (sec == s.end()) continue;
    auto v = sec->second.find(key);
    if (v != sec->second.end()) return v->second;
  }
  return "";
}

}  // namespace

absl::StatusOr<std::vector<OsdLocation>> OsdLocationsFromConf(std::string_view conf) {
  auto sections = Parse(conf);
  if (!sections.ok()) return sections.status();
  std::vector<OsdLocation> out;
  for (const auto& [name, keys] : *sections) {
    if (name.rfind("osd.", 0) != 0) continue;
    const char* begin = name.c_str() + 4;
    char* end = nullptr;
    errno = 0;
    const long id = std::strtol(begin, &end, 10);
    if (*end != '\0' || errno != 0 || id < 0 || id > 0x7fffffff) continue;
    OsdLocation l;
    l.id = static_cast<std::int32_t>(id);
    l.host = Lookup(*sections, name, "host");
    l.rack = Lookup(*sections, name, "rack");
    l.row = Lookup(*sections, name, "row");
    l.room = Lookup(*sections, name, "room");
    l.datacenter = Lookup(*sections, name, "datacenter");
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace crushkit::osdmap
