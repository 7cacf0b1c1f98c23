// `osdmap_set_primaries IN OUT COMMANDS`: decodes the binary osdmap IN, sets
// the pg_upmap_primaries that COMMANDS names (the `[./bin/]ceph osd
// pg-upmap-primary PG OSD` lines `osdmaptool --read` writes; other lines are
// ignored), as the monitor's `ceph osd pg-upmap-primary` would, and writes
// the re-encoded map (crc included) to OUT. The read balancer's differential
// builds Reef/Tentacle states with pg_upmap_primaries this way, for
// osdmaptool and crushkit to map across a change.
// Exit 0 on success, 2 on a usage, read, parse or decode error.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "osdmap/formats/osdmap_binary.h"
#include "osdmap/model/pg_id.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    std::cerr << "usage: osdmap_set_primaries IN OUT COMMANDS\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << argv[1] << ": cannot read\n";
    return 2;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  auto map = crushkit::osdmap::DecodeOsdMap(bytes);
  if (!map.ok()) {
    std::cerr << argv[1] << ": " << map.status() << "\n";
    return 2;
  }
  std::ifstream commands(argv[3]);
  std::string line;
  const std::string verb = "ceph osd pg-upmap-primary ";
  while (std::getline(commands, line)) {
    const std::size_t at = line.find(verb);
    if (at == std::string::npos)
      continue;
    std::istringstream fields(line.substr(at + verb.size()));
    std::string pg_text;
    std::int32_t osd = -1;
    unsigned long long pool = 0;
    unsigned int ps = 0;
    if (!(fields >> pg_text >> osd) ||
        std::sscanf(pg_text.c_str(), "%llu.%x", &pool, &ps) != 2) {
      std::cerr << argv[3] << ": cannot parse '" << line << "'\n";
      return 2;
    }
    map->pg_upmap_primaries[crushkit::osdmap::PgId{
        static_cast<std::int64_t>(pool), ps}] = osd;
  }
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out << crushkit::osdmap::EncodeOsdMap(*map);
  return out ? 0 : 2;
}
