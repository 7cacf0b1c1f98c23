// `osdmap_set_primaries IN OUT COMMANDS`: decodes the binary osdmap IN, sets
// the pg_upmap_primaries that COMMANDS names (the `[./bin/]ceph osd
// pg-upmap-primary PG OSD` lines `osdmaptool --read` writes; other lines are
// ignored), as the monitor's `ceph osd pg-upmap-primary` would, and writes
// the re-encoded map (crc included) to OUT. The read balancer's differential
// builds Reef/Tentacle states with pg_upmap_primaries this way, for
// osdmaptool and crushkit to map across a change. A `ceph osd pool set POOL
// read_ratio N` line sets that pool option (Tentacle's size-aware read
// balance score), as an int, on the pool named POOL.
// Exit 0 on success, 2 on a usage, read, parse or decode error.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "osdmap/formats/osdmap_binary.h"
#include "osdmap/model/pg_id.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: osdmap_set_primaries IN OUT COMMANDS\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << argv[1] << ": cannot read\n";
    return 2;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto map = crushkit::osdmap::DecodeOsdMap(bytes);
  if (!map.ok()) {
    std::cerr << argv[1] << ": " << map.status() << "\n";
    return 2;
  }
  std::ifstream commands(argv[3]);
  std::string line;
  const std::string verb = "ceph osd pg-upmap-primary ";
  const std::string pool_set = "ceph osd pool set ";
  while (std::getline(commands, line)) {
    if (const std::size_t at = line.find(pool_set); at != std::string::npos) {
      std::istringstream fields(line.substr(at + pool_set.size()));
      std::string name;
      std::string key;
      long long value = 0;
      if (!(fields >> name >> key >> value) || key != "read_ratio") {
        std::cerr << argv[3] << ": cannot parse '" << line << "' (only read_ratio N)\n";
        return 2;
      }
      bool found = false;
      for (auto& [id, pool_name] : map->pool_name) {
        if (pool_name != name || !map->pools.count(id)) continue;
        auto& opts = map->pools.at(id).opts.opts;
        std::erase_if(opts, [](const auto& o) { return o.key == 24; });
        crushkit::osdmap::binary::PoolOpt o;
        o.key = 24;  // pool_opts_t::READ_RATIO
        o.type = 1;  // int
        o.i = value;
        opts.push_back(o);
        std::sort(opts.begin(), opts.end(),
                  [](const auto& a, const auto& b) { return a.key < b.key; });
        found = true;
      }
      if (!found) {
        std::cerr << argv[3] << ": no pool '" << name << "'\n";
        return 2;
      }
      continue;
    }
    const std::size_t at = line.find(verb);
    if (at == std::string::npos) continue;
    std::istringstream fields(line.substr(at + verb.size()));
    std::string pg_text;
    std::int32_t osd = -1;
    unsigned long long pool = 0;
    unsigned int ps = 0;
    if (!(fields >> pg_text >> osd) || std::sscanf(pg_text.c_str(), "%llu.%x", &pool, &ps) != 2) {
      std::cerr << argv[3] << ": cannot parse '" << line << "'\n";
      return 2;
    }
    map->pg_upmap_primaries[crushkit::osdmap::PgId{static_cast<std::int64_t>(pool), ps}] = osd;
  }
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out << crushkit::osdmap::EncodeOsdMap(*map);
  return out ? 0 : 2;
}
