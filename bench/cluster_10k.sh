# Sourced by the bench scripts.
#
# bench_init [CRUSHKIT]: sets CRUSHKIT (absolute path; default
# build/tools/crushkit), OSDS (10000) and PG_BITS (7) unless set, and moves
# into a temporary work directory, removed on exit, that also holds Ceph's
# crash dumps.
bench_init() {
  CRUSHKIT=$(readlink -f "${1:-build/tools/crushkit}")
  OSDS=${OSDS:-10000}
  PG_BITS=${PG_BITS:-7}
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cd "$work"
  export CEPH_ARGS="--crash_dir=$work"
}

# build_bench_cluster: builds the 10,000-OSD cluster they time
# (OSDS x PG_BITS; 20 racks x 20 hosts x 25 OSDs, straw2, one replicated pool
# with OSDS << PG_BITS PGs, all OSDs up and in) as the osdmap `om` and its
# crush map `crush.bin` in the current directory.
# Usage: build_bench_cluster OSDS PG_BITS
build_bench_cluster() {
  local osds=$1 pg_bits=$2
  crushtool --build --num_osds "$osds" host straw2 25 rack straw2 20 root straw2 0 -o crush.bin >/dev/null
  osdmaptool --createsimple "$osds" --with-default-pool --pg-bits "$pg_bits" --pgp-bits "$pg_bits" \
    --clobber --import-crush crush.bin om >/dev/null 2>&1
  # Persist "all up and in" (the marks are written because --save modifies the map).
  osdmaptool om --mark-up-in --adjust-crush-weight 0:1 --save >/dev/null 2>&1
}
