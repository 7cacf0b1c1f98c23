// Helpers shared by the embedding samples (pg_mapper.cc, map_daemon.cc):
// argument parsing, Ceph's PG -> CRUSH input hash and map loading. Header
// only, so each sample stays one translation unit against the installed
// package.
#ifndef CRUSHKIT_SAMPLES_EMBED_SAMPLE_UTIL_H_
#define CRUSHKIT_SAMPLES_EMBED_SAMPLE_UTIL_H_

#include <cstdint>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"

#include "crush/codec.h"
#include "crush/hash.h"
#include "crush/map.h"
#include "crush/model.h"

namespace crush_sample {

namespace crush = crushkit::crush;

// Parses a decimal integer in [lo, hi]; nullopt on anything else.
inline std::optional<std::int64_t> ParseInt(std::string_view text, std::int64_t lo,
                                            std::int64_t hi) {
  if (text.empty() || text.size() > 18) return std::nullopt;  // no int64 overflow
  std::size_t i = 0;
  const bool negative = text[0] == '-';
  if (negative) i = 1;
  if (i == text.size()) return std::nullopt;
  std::int64_t v = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  if (negative) v = -v;
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

// One integer option "--name N" of a sample: its accepted range and where
// the value goes.
struct IntFlag {
  std::string_view name;
  std::int64_t lo;
  std::int64_t hi;
  std::function<void(std::int64_t)> set;
};

// Parses "MAP --flag N ..." with exactly one map path and the integer
// options of `flags`. false with `error` set on a bad argument, or with
// `error` empty for -h/--help.
inline bool ParseMapArgs(int argc, char** argv, std::span<const IntFlag> flags,
                         std::string& map_path, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      error = "";
      return false;
    }
    if (!arg.starts_with("--")) {
      if (!map_path.empty()) {
        error = "more than one map given: '" + std::string(arg) + "'";
        return false;
      }
      map_path = arg;
      continue;
    }
    const IntFlag* flag = nullptr;
    for (const IntFlag& f : flags) {
      if (f.name == arg) flag = &f;
    }
    if (flag == nullptr) {
      error = "unknown option '" + std::string(arg) + "'";
      return false;
    }
    if (i + 1 >= argc) {
      error = std::string(arg) + " needs a value";
      return false;
    }
    const std::string_view value = argv[++i];
    const std::optional<std::int64_t> v = ParseInt(value, flag->lo, flag->hi);
    if (!v) {
      error = std::string(arg) + ": expected an integer in [" + std::to_string(flag->lo) + ", " +
              std::to_string(flag->hi) + "], got '" + std::string(value) + "'";
      return false;
    }
    flag->set(*v);
  }
  if (map_path.empty()) {
    error = "no map given";
    return false;
  }
  return true;
}

// Ceph's ceph_stable_mod(): folds a PG seed into [0, b) so that PGs keep
// their placement while pg_num grows towards the next power of two.
inline std::uint32_t StableMod(std::uint32_t x, std::uint32_t b, std::uint32_t bmask) {
  return (x & bmask) < b ? (x & bmask) : (x & (bmask >> 1));
}

// The pgp_num mask Ceph derives from pgp_num: the next power of two, minus 1.
inline std::uint32_t PgpNumMask(std::uint32_t pgp_num) {
  std::uint32_t mask = 1;
  while (mask < pgp_num) mask <<= 1;
  return mask - 1;
}

// pg_pool_t::raw_pg_to_pps() for a pool with the hashpspool flag (the
// default since Luminous): the CRUSH input x of PG `ps` in `pool`.
inline std::uint32_t PgToPps(std::uint32_t ps, std::uint32_t pgp_num, std::uint32_t pgp_num_mask,
                             std::int64_t pool) {
  return crush::Hash32_2(StableMod(ps, pgp_num, pgp_num_mask), static_cast<std::uint32_t>(pool));
}

// Reads the whole file; nullopt if it cannot be opened.
inline std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Reads, decodes and validates a binary crush map (what `crushtool -c` or
// `ceph osd getcrushmap` writes). Errors: the reason, prefixed with the path.
inline absl::StatusOr<crush::CrushMap> LoadCrushMap(const std::string& path) {
  const std::optional<std::string> bytes = ReadFile(path);
  if (!bytes) return absl::NotFoundError("cannot read '" + path + "'");
  absl::StatusOr<crush::MapModel> model = crush::DecodeCrushMap(*bytes);
  if (!model.ok()) {
    return absl::Status(model.status().code(), path + ": " + std::string(model.status().message()));
  }
  absl::StatusOr<crush::CrushMap> built = crush::CrushMap::Build(*model);
  if (!built.ok()) {
    return absl::Status(built.status().code(), path + ": " + std::string(built.status().message()));
  }
  return built;
}

// The lowest rule id of `map`, or -1 if it has none.
inline int FirstRule(const crush::CrushMap& map) {
  for (int r = 0; r < map.max_rules(); ++r) {
    if (map.RuleExists(r)) return r;
  }
  return -1;
}

}  // namespace crush_sample

#endif  // CRUSHKIT_SAMPLES_EMBED_SAMPLE_UTIL_H_
