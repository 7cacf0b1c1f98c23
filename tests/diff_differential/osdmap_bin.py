"""Small in-place edits of a binary OSDMap that Ceph's osdmaptool cannot make.

osdmaptool cannot create erasure-coded or second pools, change pg_num,
pgp_num, size or min_size, or persist `osd out` / `osd down` / `osd reweight`
on their own. This module edits the map the way the monitor would have
written it, so that Ceph's own osdmaptool stays the oracle for the mappings
of the edited map. Layout facts: /work/shared/reference/ceph-osdmap-encoding.md
(sections 1, 2, 3, 5, 6): the wrapper ENCODE_START(8,7), the client section
(fsid, epoch, created, modified, pools, pool_name, pool_max, flags, max_osd,
osd_state, osd_weight, ...), pg_pool_t's leading fields and the trailing
crc32c. Only maps written by a Pacific osdmaptool are supported (16-byte
fsid, pg_pool_t v29 with no snapshots).
"""
import struct

# pg_pool_t body offsets (after its 6-byte ENCODE_START header).
POOL_TYPE, POOL_SIZE, POOL_RULE = 0, 1, 2
POOL_PG_NUM, POOL_PGP_NUM = 4, 8
# type, size, crush_rule, object_hash (4) + pg_num, pgp_num, lpg_num,
# lpgp_num, last_change (20) + snap_seq (8) + snap_epoch (4) + empty snaps
# map (4) + empty removed_snaps (4) + auid (8) + flags (8) +
# crash_replay_interval (4).
POOL_MIN_SIZE = 64
# ... min_size (1) + quota_max_bytes, quota_max_objects (16) + empty tiers
# (4) + tier_of (8) + cache_mode (1) + read_tier, write_tier (16) + empty
# properties (4) + "none" hit_set_params (7) + hit_set_period, hit_set_count,
# stripe_width (12) + target_max_bytes, target_max_objects (16) + four u32
# cache ratios and ages (16): the v14 erasure_code_profile string.
POOL_EC_PROFILE = 165

CEPH_OSD_UP = 2


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def ceph_crc32c(data, seed=0xFFFFFFFF):
    """Ceph's raw crc32c: Castagnoli, reflected, no final xor."""
    c = seed
    for b in data:
        c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c


class OsdMapBin:
    """A binary OSDMap with the offsets of the fields this module edits."""

    def __init__(self, data):
        self.b = bytearray(data)
        self._index()

    def _index(self):
        b = self.b
        if b[0] != 8 or b[6] != 9:
            raise ValueError("not a Pacific osdmap (wrapper v%d, client v%d)" % (b[0], b[6]))
        off = 12 + 16 + 4 + 8 + 8
        self.pools_off = off
        (n,) = struct.unpack_from("<I", b, off)
        off += 4
        self.pools = {}  # id -> (offset of the pool's 6-byte header, header+body length)
        for _ in range(n):
            (pid,) = struct.unpack_from("<q", b, off)
            (blen,) = struct.unpack_from("<I", b, off + 8 + 2)
            self.pools[pid] = (off + 8, 6 + blen)
            off += 8 + 6 + blen
        self.pool_name_off = off
        (n,) = struct.unpack_from("<I", b, off)
        off += 4
        self.pool_names = {}
        for _ in range(n):
            (pid, slen) = struct.unpack_from("<qI", b, off)
            self.pool_names[pid] = bytes(b[off + 12:off + 12 + slen]).decode()
            off += 12 + slen
        self.pool_max_off = off
        off += 4 + 4  # pool_max, flags
        (self.max_osd,) = struct.unpack_from("<i", b, off)
        off += 4
        (n,) = struct.unpack_from("<I", b, off)
        self.osd_state_off = off + 4
        off += 4 + 4 * n
        (n,) = struct.unpack_from("<I", b, off)
        self.osd_weight_off = off + 4
        self.num_weights = n
        off += 4 + 4 * n
        (n,) = struct.unpack_from("<I", b, off)  # client_addrs
        off += 4
        for _ in range(n):
            off = _skip_addrvec(b, off)
        self.pg_temp_off = off
        off = _skip_pg_map(b, off, lambda o: o + 4 + 4 * struct.unpack_from("<I", b, o)[0])
        self.pg_temp_end = off
        off = _skip_pg_map(b, off, lambda o: o + 4)  # primary_temp
        (n,) = struct.unpack_from("<I", b, off)  # osd_primary_affinity
        off += 4 + 4 * n
        (n,) = struct.unpack_from("<I", b, off)  # crush bufferlist
        off += 4 + n
        self.ec_profiles_off = off
        self.ec_profiles = {}
        (n,) = struct.unpack_from("<I", b, off)  # erasure_code_profiles
        off += 4
        for _ in range(n):
            name, off = _read_string(b, off)
            (m,) = struct.unpack_from("<I", b, off)
            off += 4
            prof = self.ec_profiles.setdefault(name, {})
            for _ in range(m):
                key, off = _read_string(b, off)
                prof[key], off = _read_string(b, off)
        self.pg_upmap_off = off
        self.pg_upmap = {}
        (n,) = struct.unpack_from("<I", b, off)
        off += 4
        for _ in range(n):
            pool, seed = struct.unpack_from("<qI", b, off + 1)
            (m,) = struct.unpack_from("<I", b, off + 17)
            self.pg_upmap[(pool, seed)] = list(struct.unpack_from("<%di" % m, b, off + 21))
            off += 21 + 4 * m
        self.pg_upmap_items = {}
        (n,) = struct.unpack_from("<I", b, off)
        off += 4
        for _ in range(n):
            pool, seed = struct.unpack_from("<qI", b, off + 1)
            (m,) = struct.unpack_from("<I", b, off + 17)
            flat = struct.unpack_from("<%di" % (2 * m), b, off + 21)
            self.pg_upmap_items[(pool, seed)] = [(flat[2 * i], flat[2 * i + 1]) for i in range(m)]
            off += 21 + 8 * m
        self.upmaps_end = off

    def _body(self, pool, field):
        return self.pools[pool][0] + 6 + field

    def set_pool_u8(self, pool, field, value):
        self.b[self._body(pool, field)] = value

    def set_pool_u32(self, pool, field, value):
        struct.pack_into("<I", self.b, self._body(pool, field), value)

    def pool_u8(self, pool, field):
        return self.b[self._body(pool, field)]

    def pool_u32(self, pool, field):
        return struct.unpack_from("<I", self.b, self._body(pool, field))[0]

    def _tail(self, pool, back):
        start, length = self.pools[pool]
        return start + length - back

    # pg_pool_t v28 fields, located from the body's end: pg_num_target,
    # pgp_num_target, pg_num_pending, two u32 zeros, last_force_op_resend
    # (u32), pg_autoscale_mode (u8), then v29's 59-byte last_pg_merge_meta.
    _PG_NUM_TARGET_BACK = 59 + 1 + 4 + 8 + 4 + 4 + 4

    def set_pg_nums(self, pool, pg_num, pgp_num):
        """pg_num and pgp_num of a settled pool, as the monitor keeps them:
        pg_num_target = pg_num_pending = pg_num, pgp_num_target = pgp_num
        (a pg_num_pending below pg_num would mark PGs as merge sources, which
        OSDMap::clean_pg_upmaps treats specially)."""
        if self.b[self.pools[pool][0]] != 29:
            raise ValueError("pg_pool_t v%d, expected 29" % self.b[self.pools[pool][0]])
        self.set_pool_u32(pool, POOL_PG_NUM, pg_num)
        self.set_pool_u32(pool, POOL_PGP_NUM, pgp_num)
        at = self._tail(pool, self._PG_NUM_TARGET_BACK)
        struct.pack_into("<III", self.b, at, pg_num, pgp_num, pg_num)

    def pg_num_fields(self, pool):
        at = self._tail(pool, self._PG_NUM_TARGET_BACK)
        return struct.unpack_from("<III", self.b, at)

    def set_osd_weight(self, osd, weight_16_16):
        struct.pack_into("<I", self.b, self.osd_weight_off + 4 * osd, weight_16_16)

    def osd_weight(self, osd):
        return struct.unpack_from("<I", self.b, self.osd_weight_off + 4 * osd)[0]

    def mark_down(self, osd):
        (s,) = struct.unpack_from("<I", self.b, self.osd_state_off + 4 * osd)
        struct.pack_into("<I", self.b, self.osd_state_off + 4 * osd, s & ~CEPH_OSD_UP)

    def add_pool_copy(self, src, new_id, name):
        """Appends a copy of pool `src` as pool `new_id` named `name`."""
        b = self.b
        start, length = self.pools[src]
        entry = struct.pack("<q", new_id) + bytes(b[start:start + length])
        # Pools are a map ordered by id: new_id is the largest, so append.
        insert_at = self.pool_name_off
        b[insert_at:insert_at] = entry
        struct.pack_into("<I", b, self.pools_off, len(self.pools) + 1)
        name_entry = struct.pack("<qI", new_id, len(name)) + name.encode()
        at = self.pool_max_off + len(entry)
        b[at:at] = name_entry
        struct.pack_into("<I", b, self.pool_name_off + len(entry), len(self.pool_names) + 1)
        grown = len(entry) + len(name_entry)
        struct.pack_into("<i", b, self.pool_max_off + grown, new_id)
        self._grow(grown)
        self._index()

    def _grow(self, n):
        for len_off in (2, 8):  # wrapper and client section lengths
            (v,) = struct.unpack_from("<I", self.b, len_off)
            struct.pack_into("<I", self.b, len_off, v + n)

    def set_upmaps(self, pg_upmap, pg_upmap_items):
        """Replaces pg_upmap ({(pool, seed): [osd...]}) and pg_upmap_items
        ({(pool, seed): [(from, to)...]})."""
        out = bytearray(struct.pack("<I", len(pg_upmap)))
        for (pool, seed), osds in sorted(pg_upmap.items()):
            out += _pg_t(pool, seed) + struct.pack("<I%di" % len(osds), len(osds), *osds)
        out += struct.pack("<I", len(pg_upmap_items))
        for (pool, seed), pairs in sorted(pg_upmap_items.items()):
            flat = [x for pair in pairs for x in pair]
            out += _pg_t(pool, seed) + struct.pack("<I%di" % len(flat), len(pairs), *flat)
        grown = len(out) - (self.upmaps_end - self.pg_upmap_off)
        self.b[self.pg_upmap_off:self.upmaps_end] = out
        self._grow(grown)
        self._index()

    def _replace(self, start, end, data):
        self.b[start:end] = data
        self._grow(len(data) - (end - start))
        self._index()

    def set_pool_ec_profile(self, pool, name):
        """Sets the pool's erasure_code_profile name (ceph osd pool create
        ... erasure NAME); the pool body grows or shrinks with it."""
        header = self.pools[pool][0]
        if self.b[header] != 29:
            raise ValueError("pg_pool_t v%d, expected 29" % self.b[header])
        at = self._body(pool, POOL_EC_PROFILE)
        (old,) = struct.unpack_from("<I", self.b, at)
        data = struct.pack("<I", len(name)) + name.encode()
        (blen,) = struct.unpack_from("<I", self.b, header + 2)
        struct.pack_into("<I", self.b, header + 2, blen + len(data) - (4 + old))
        self._replace(at, at + 4 + old, data)

    def set_ec_profiles(self, profiles):
        """Replaces erasure_code_profiles ({name: {key: value}})."""
        out = bytearray(struct.pack("<I", len(profiles)))
        for name in sorted(profiles):
            out += _string(name) + struct.pack("<I", len(profiles[name]))
            for key in sorted(profiles[name]):
                out += _string(key) + _string(profiles[name][key])
        self._replace(self.ec_profiles_off, self.pg_upmap_off, out)

    def set_pg_temp(self, pg_temp):
        """Replaces pg_temp ({(pool, seed): [osd...]}), as the monitor
        writes it while a PG backfills."""
        out = bytearray(struct.pack("<I", len(pg_temp)))
        for (pool, seed), osds in sorted(pg_temp.items()):
            out += _pg_t(pool, seed) + struct.pack("<I%di" % len(osds), len(osds), *osds)
        self._replace(self.pg_temp_off, self.pg_temp_end, out)

    def bump_epoch(self):
        (e,) = struct.unpack_from("<I", self.b, 28)
        struct.pack_into("<I", self.b, 28, e + 1)

    def finish(self):
        """Recomputes the CRC; returns the bytes."""
        struct.pack_into("<I", self.b, len(self.b) - 4, ceph_crc32c(self.b[:-4]))
        return bytes(self.b)


def _pg_t(pool, seed):
    return struct.pack("<BqIi", 1, pool, seed, -1)


def _string(text):
    return struct.pack("<I", len(text)) + text.encode()


def _read_string(b, off):
    (n,) = struct.unpack_from("<I", b, off)
    return bytes(b[off + 4:off + 4 + n]).decode(), off + 4 + n


def _skip_string(b, off):
    return off + 4 + struct.unpack_from("<I", b, off)[0]


def _skip_entity_addr(b, off):
    if b[off] == 0:  # legacy form: u32 0, u32 nonce, 128-byte sockaddr_storage
        return off + 136
    return off + 1 + 6 + struct.unpack_from("<I", b, off + 3)[0]


def _skip_addrvec(b, off):
    marker = b[off]
    if marker == 2:
        (n,) = struct.unpack_from("<I", b, off + 1)
        off += 5
        for _ in range(n):
            off = _skip_entity_addr(b, off)
        return off
    return _skip_entity_addr(b, off)


def _skip_pg_map(b, off, skip_value):
    (n,) = struct.unpack_from("<I", b, off)
    off += 4
    for _ in range(n):
        off = skip_value(off + 17)
    return off


def load(path):
    with open(path, "rb") as f:
        return OsdMapBin(f.read())


def save(m, path):
    with open(path, "wb") as f:
        f.write(m.finish())
