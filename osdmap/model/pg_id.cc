#include "osdmap/model/pg_id.h"

#include <charconv>
#include <cstdio>

namespace crushkit::osdmap {

std::optional<PgId> ParsePgId(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == text.size()) return std::nullopt;
  PgId pg;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [p1, e1] = std::from_chars(begin, begin + dot, pg.pool, 10);
  if (e1 != std::errc() || p1 != begin + dot || pg.pool < 0) return std::nullopt;
  auto [p2, e2] = std::from_chars(begin + dot + 1, end, pg.ps, 16);
  if (e2 != std::errc() || p2 != end) return std::nullopt;
  return pg;
}

std::string FormatPgId(const PgId& pg) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%lld.%x", static_cast<long long>(pg.pool), pg.ps);
  return buf;
}

}  // namespace crushkit::osdmap
