// `osdmap_perturb SEED IN OUT`: decodes the binary osdmap IN, changes the
// fields OSDMap::check_health reads that Ceph's osdmaptool cannot set
// (map and OSD flags, OSD full states, down OSDs, full ratios, pool flags,
// size, pg_num_target and cache mode, CRUSH node and device class flags,
// up OSDs' features against require_osd_release, degraded stretch mode),
// and the fields only `--print`/`--dump` show (pool HitSet parameters, pool
// snapshots and removed snaps, snap queues, legacy and msgr2 addresses,
// blocklists; on Reef and later maps pg_upmap_primaries), each with some
// probability drawn from SEED, and writes the
// re-encoded map (crc included) to OUT. Ceph's osdmaptool then reads OUT
// like any map, so `--health` and the printers can be compared on states
// its own tools never write.
// Exit 0 on success, 2 on a usage, read or decode error.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "osdmap/formats/osdmap_binary.h"

namespace {

using crushkit::osdmap::OsdMapBinary;

class Perturber {
 public:
  explicit Perturber(std::uint32_t seed) : rng_(seed) {}

  void Apply(OsdMapBinary& m) {
    if (Chance(0.3)) m.flags |= RandomBits(0x7ffcu | (1u << 21), 0.15);
    if (Chance(0.5)) m.flags ^= 1u << 15;  // sortbitwise
    // Most maps get existing, up and in OSDs first (osdmaptool's
    // --mark-up-in leaves them non-existent), so the down checks can fire.
    if (Chance(0.7)) {
      for (std::size_t i = 0; i < m.osd_state.size(); ++i) {
        m.osd_state[i] |= 3;
        if (m.osd_weight[i] == 0 && Chance(0.9)) m.osd_weight[i] = 0x10000;
      }
    }
    // A whole bucket's devices down (a host, a rack's direct members).
    if (Chance(0.4) && !m.crush.buckets.empty()) {
      for (int k = 0; k < 1 + static_cast<int>(Below(2)); ++k) {
        const auto& b = m.crush.buckets[Below(m.crush.buckets.size())];
        for (std::int32_t item : b.items) {
          if (item >= 0 && static_cast<std::size_t>(item) < m.osd_state.size())
            m.osd_state[item] &= ~2u;
        }
      }
    }
    for (std::size_t i = 0; i < m.osd_state.size(); ++i) {
      std::uint32_t& s = m.osd_state[i];
      if (!Chance(0.15)) continue;
      // up/exists/new/full/nearfull/backfillfull and noup..noout.
      s ^= RandomBits((1u << 1) | (1u << 3) | (7u << 4) | (0xfu << 8), 0.3);
      if (Chance(0.1)) s ^= 1u;  // exists
    }
    if (Chance(0.3)) {
      const float ratios[] = {0.0f, 0.5f, 0.85f, 0.9f, 0.95f, 0.97f, 0.99f, 1.2f};
      m.nearfull_ratio_bits = Bits(ratios[Below(8)]);
      m.backfillfull_ratio_bits = Bits(ratios[Below(8)]);
      m.full_ratio_bits = Bits(ratios[Below(8)]);
    }
    for (auto& [id, p] : m.pools) {
      if (Chance(0.3)) p.flags ^= RandomBits((1u << 1) | (1u << 10) | (1u << 11) | (1u << 12), 0.4);
      if (Chance(0.15)) p.size = 1;
      if (Chance(0.2)) p.pg_num_target = static_cast<std::uint32_t>(Below(300) + 1);
      if (Chance(0.15)) p.cache_mode = static_cast<std::uint8_t>(Below(7));
      if (Chance(0.3)) p.opts = RandomPoolOpts();
      if (Chance(0.25)) RandomHitSet(p);
      if (Chance(0.2)) RandomSnaps(p);
    }
    for (auto* queue : {&m.removed_snaps_queue, &m.new_removed_snaps, &m.new_purged_snaps}) {
      if (!Chance(0.15)) continue;
      for (const auto& [id, p] : m.pools) {
        if (Chance(0.6)) (*queue)[id] = RandomIntervals();
      }
    }
    if (Chance(0.2)) {
      for (int k = 0; k < 3; ++k) {
        const int id = Chance(0.5) ? -static_cast<int>(Below(8) + 1) : static_cast<int>(Below(8));
        m.crush_node_flags[id] = RandomBits(0xfu << 8, 0.5);
      }
    }
    if (Chance(0.15)) {
      for (int k = 0; k < 2; ++k)
        m.device_class_flags[static_cast<int>(Below(3))] = RandomBits(0xfu << 8, 0.5);
    }
    if (Chance(0.3)) {
      // Incarnation 3 (bits 57, 28) plus Nautilus (2), Octopus (16), Pacific (20).
      const std::uint64_t base = (1ull << 57) | (1ull << 28);
      const std::uint64_t releases[] = {0, base | 4, base | 4 | (1u << 16),
                                        base | 4 | (1u << 16) | (1u << 20)};
      for (auto& x : m.osd_xinfo) x.features = releases[Below(4)];
      m.require_osd_release = static_cast<std::uint8_t>(12 + Below(5));
    }
    if (Chance(0.3)) m.blocklist = RandomBlocklist();
    if (Chance(0.4)) {
      for (std::size_t i = 0; i < m.osd_state.size(); ++i) {
        if (!(m.osd_state[i] & 1)) continue;
        for (auto* v : {&m.client_addrs, &m.cluster_addrs, &m.hb_back_addrs, &m.hb_front_addrs}) {
          if (i < v->size()) (*v)[i] = RandomAddrvec();
        }
      }
    }
    if (Chance(0.1)) {
      m.stretch_mode_enabled = 1;  // Ceph encodes the stretch fields only then (OSD section v10)
      if (m.osd.v < 10 && m.osd.tail.empty()) m.osd.v = 10;
      m.stretch_mode_bucket = static_cast<std::int32_t>(Below(4));
      m.degraded_stretch_mode = static_cast<std::uint32_t>(Below(3));
      m.recovering_stretch_mode = static_cast<std::uint32_t>(Below(2));
      m.stretch_bucket_count = static_cast<std::uint32_t>(Below(4));
    }
    // Reef's read balancer entries (pg_upmap_primaries), on maps whose
    // client section carries them (v10: Reef and later write it). Pacific's
    // maps never draw here, so their perturbations stay as they were.
    if (m.client.v >= 10 && m.max_osd > 0 && Chance(0.6)) {
      for (const auto& [id, pool] : m.pools) {
        if (pool.pg_num == 0) continue;
        for (int k = static_cast<int>(Below(12)); k > 0; --k) {
          const crushkit::osdmap::PgId pg{id, static_cast<std::uint32_t>(Below(pool.pg_num))};
          m.pg_upmap_primaries[pg] = static_cast<std::int32_t>(Below(m.max_osd));
        }
      }
    }
  }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  std::uint64_t Below(std::uint64_t n) {
    return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_);
  }

  std::uint32_t RandomBits(std::uint32_t mask, double p) {
    std::uint32_t out = 0;
    for (int b = 0; b < 32; ++b) {
      if ((mask >> b) & 1u && Chance(p)) out |= 1u << b;
    }
    return out;
  }

  static std::uint32_t Bits(float f) { return std::bit_cast<std::uint32_t>(f); }

  // HitSet::Params of any type Pacific knows (bloom with its body), with
  // count, period and decay rates (above 100 too: Ceph's grade table wraps).
  void RandomHitSet(crushkit::osdmap::binary::BinaryPool& p) {
    p.hit_set_params.type = static_cast<std::uint8_t>(Below(4));
    p.hit_set_params.impl.clear();
    if (p.hit_set_params.type == 3) {
      const std::uint32_t fpp[] = {0, 1, 50000, 100000, 123457, 999999};
      const std::string body = Le32(fpp[Below(6)]) +
                               Le64(Chance(0.2) ? rng_() * 1000003ull : Below(5000)) +
                               Le64(Chance(0.2) ? ~0ull - Below(3) : Below(100));
      p.hit_set_params.impl =
          std::string("\x01\x01", 2) + Le32(static_cast<std::uint32_t>(body.size())) + body;
    }
    p.hit_set_count = static_cast<std::uint32_t>(Below(7));
    p.hit_set_period = static_cast<std::uint32_t>(Below(4000));
    p.hit_set_grade_decay_rate = static_cast<std::uint32_t>(Chance(0.2) ? Below(200) : Below(60));
    p.hit_set_search_last_n = static_cast<std::uint32_t>(Below(5));
  }

  // 1-5 interval_set entries, usually sorted and disjoint as Ceph writes
  // them, sometimes not (Ceph's decode sorts them and keeps the first of a
  // duplicate start).
  crushkit::osdmap::binary::IntervalSet RandomIntervals() {
    crushkit::osdmap::binary::IntervalSet s;
    std::uint64_t at = 1 + Below(20);
    const int n = 1 + static_cast<int>(Below(5));
    for (int k = 0; k < n; ++k) {
      const std::uint64_t len = 1 + Below(30);
      s.emplace_back(at, len);
      at += len + 1 + Below(40);
    }
    if (Chance(0.2)) std::shuffle(s.begin(), s.end(), rng_);
    if (Chance(0.1)) s.emplace_back(s.front().first, 1 + Below(3));
    return s;
  }

  // Pool snapshots (the key usually the snapid), removed snaps, snap_seq.
  void RandomSnaps(crushkit::osdmap::binary::BinaryPool& p) {
    p.snaps.clear();
    const int n = static_cast<int>(Below(4));
    for (int k = 0; k < n; ++k) {
      crushkit::osdmap::binary::PoolSnap snap;
      snap.frame = {2, 2, {}};
      snap.snapid = 1 + Below(300);
      snap.stamp = {
          static_cast<std::uint32_t>(Chance(0.2) ? Below(1000) : 1700000000 + Below(100000000)),
          static_cast<std::uint32_t>(Below(1000000000))};
      snap.name = "snap-" + std::to_string(Below(1000));
      p.snaps[Chance(0.9) ? snap.snapid : snap.snapid + 1] = snap;
    }
    p.removed_snaps = Chance(0.6) ? RandomIntervals() : crushkit::osdmap::binary::IntervalSet{};
    p.snap_seq = Chance(0.8) ? 300 + Below(100) : 0;
    p.snap_epoch = static_cast<std::uint32_t>(Below(50));
  }

  // 1-3 options with the value types Ceph declares (key -> 0 string, 1 int,
  // 2 double), ascending keys as Ceph's std::map encodes them; now and then
  // a key 16.2 does not know.
  crushkit::osdmap::binary::PoolOpts RandomPoolOpts() {
    static constexpr int kTypes[] = {2, 2, 2, 1, 1, 1, 0, 0, 2, 1, 1, 1,
                                     1, 1, 0, 1, 1, 2, 2, 2, 1, 0, 1, 1};
    static constexpr const char* kStrings[] = {"none", "snappy", "aggressive", "sha1", "fastcdc"};
    static constexpr double kDoubles[] = {0.0,  0.1,     0.875,         1.0,    3.0,
                                          1e-7, 86400.0, 123456789.125, 4.0 / 3};
    std::map<std::int32_t, crushkit::osdmap::binary::PoolOpt> chosen;
    const int n = 1 + static_cast<int>(Below(3));
    for (int k = 0; k < n; ++k) {
      crushkit::osdmap::binary::PoolOpt o;
      o.key = static_cast<std::int32_t>(Chance(0.05) ? 24 + Below(4) : Below(24));
      o.type = o.key < 24 ? kTypes[o.key] : 1;
      if (o.type == 0) o.str = kStrings[Below(5)];
      if (o.type == 1) o.i = static_cast<std::int64_t>(Below(2000000)) - 1000;
      if (o.type == 2) o.double_bits = std::bit_cast<std::uint64_t>(kDoubles[Below(9)]);
      chosen[o.key] = o;
    }
    crushkit::osdmap::binary::PoolOpts opts;
    for (auto& [key, o] : chosen) opts.opts.push_back(o);
    return opts;
  }

  // One entity_addr_t: the in-memory image Ceph sorts and hashes (type,
  // nonce, 28-byte sockaddr union) and its MSG_ADDR2 encoding.
  struct Addr {
    std::string image;
    std::string wire;
  };

  Addr RandomAddr(std::uint32_t type) {
    const std::uint32_t nonce = static_cast<std::uint32_t>(Chance(0.5) ? Below(4) : rng_());
    const bool v6 = Chance(0.25);
    std::string sa(v6 ? 28 : 16, '\0');
    sa[0] = v6 ? 10 : 2;  // AF_INET6 / AF_INET, little-endian
    const std::uint32_t port = 6800 + static_cast<std::uint32_t>(Below(4));
    sa[2] = static_cast<char>(port >> 8);
    sa[3] = static_cast<char>(port);
    for (int b = 0; b < (v6 ? 16 : 4); ++b) {
      sa[(v6 ? 8 : 4) + b] = static_cast<char>(Below(4) + (b == 0 ? 10 : 0));
    }
    std::string image = Le32(type) + Le32(nonce) + sa;
    image.resize(36, '\0');
    const std::string body =
        Le32(type) + Le32(nonce) + Le32(static_cast<std::uint32_t>(sa.size())) + sa;
    return {image,
            std::string("\x01\x01\x01", 3) + Le32(static_cast<std::uint32_t>(body.size())) + body};
  }

  // A legacy (pre-msgr2, marker 0) entity_addr_t: 128-byte sockaddr_storage
  // with a big-endian family; Ceph makes it v1 (IPv4/IPv6) or a blank
  // address of type none (another family).
  Addr RandomLegacyAddr() {
    const std::uint32_t nonce = static_cast<std::uint32_t>(Chance(0.5) ? Below(4) : rng_());
    const int kind = static_cast<int>(Below(10));  // 0-5 IPv4, 6-8 IPv6, 9 another family
    const std::uint16_t family = kind < 6 ? 2 : kind < 9 ? 10 : 99;
    std::string storage(128, '\0');
    storage[0] = static_cast<char>(family >> 8);
    storage[1] = static_cast<char>(family & 0xff);
    const std::uint32_t port = Chance(0.2) ? 0 : 6800 + static_cast<std::uint32_t>(Below(4));
    storage[2] = static_cast<char>(port >> 8);
    storage[3] = static_cast<char>(port);
    for (int b = 0; b < (family == 10 ? 16 : 4); ++b)
      storage[(family == 10 ? 8 : 4) + b] = static_cast<char>(Below(4) + (b == 0 ? 10 : 0));
    std::string image;
    if (family == 99) {
      image = Le32(0) + Le32(nonce);
    } else {
      const std::size_t size = family == 10 ? 28 : 16;
      image =
          Le32(1) + Le32(nonce) + static_cast<char>(family) + '\0' + storage.substr(2, size - 2);
    }
    image.resize(36, '\0');
    return {image, std::string(4, '\0') + Le32(nonce) + storage};
  }

  // An entity_addrvec_t of 1-2 addresses (v2 then v1, as OSDs bind), or
  // now and then a legacy single address.
  std::string RandomAddrvec() {
    if (Chance(0.15)) return RandomLegacyAddr().wire;
    const bool both = Chance(0.6);
    std::string raw = "\x02" + Le32(both ? 2 : 1) + RandomAddr(2).wire;
    if (both) raw += RandomAddr(1).wire;
    return raw;
  }

  // A map<entity_addr_t, utime_t> as Ceph encodes it (count, then per
  // entry the address and the expiry): 1-40 v1/v2/any addresses, usually in
  // Ceph's sorted (memcmp of the in-memory struct) order, sometimes
  // shuffled.
  std::string RandomBlocklist() {
    std::vector<Addr> entries;
    const int n = 1 + static_cast<int>(Below(40));
    for (int k = 0; k < n; ++k) {
      Addr a =
          Chance(0.15) ? RandomLegacyAddr() : RandomAddr(1 + static_cast<std::uint32_t>(Below(3)));
      a.wire += Le32(1700000000 + static_cast<std::uint32_t>(Below(1000000))) +
                Le32(static_cast<std::uint32_t>(Below(1000000000)));
      entries.push_back(std::move(a));
    }
    std::sort(entries.begin(), entries.end(),
              [](const Addr& a, const Addr& b) { return a.image < b.image; });
    entries.erase(std::unique(entries.begin(), entries.end(),
                              [](const Addr& a, const Addr& b) { return a.image == b.image; }),
                  entries.end());
    if (Chance(0.3)) std::shuffle(entries.begin(), entries.end(), rng_);
    std::string raw = Le32(static_cast<std::uint32_t>(entries.size()));
    for (const Addr& e : entries) raw += e.wire;
    return raw;
  }

  static std::string Le32(std::uint32_t v) {
    std::string s(4, '\0');
    for (int i = 0; i < 4; ++i) s[i] = static_cast<char>(v >> (8 * i));
    return s;
  }

  static std::string Le64(std::uint64_t v) {
    return Le32(static_cast<std::uint32_t>(v)) + Le32(static_cast<std::uint32_t>(v >> 32));
  }

  std::mt19937 rng_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::cerr << "usage: osdmap_perturb SEED IN OUT [BLOCKLIST]\n";
    return 2;
  }
  std::ifstream in(argv[2], std::ios::binary);
  if (!in) {
    std::cerr << argv[2] << ": cannot read\n";
    return 2;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto map = crushkit::osdmap::DecodeOsdMap(bytes);
  if (!map.ok()) {
    std::cerr << argv[2] << ": " << map.status() << "\n";
    return 2;
  }
  Perturber(static_cast<std::uint32_t>(std::stoul(argv[1]))).Apply(*map);
  if (argc == 5) {
    // A raw encoded blocklist (count included) to put in as is.
    std::ifstream bl(argv[4], std::ios::binary);
    map->blocklist.assign(std::istreambuf_iterator<char>(bl), std::istreambuf_iterator<char>());
  }
  std::ofstream out(argv[3], std::ios::binary | std::ios::trunc);
  out << crushkit::osdmap::EncodeOsdMap(*map);
  return out ? 0 : 2;
}
