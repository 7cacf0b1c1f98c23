# Sourced by the bench scripts: the set-up they share.

# bench_workdir: moves into a temporary work directory, removed on exit
# together with the monitor mon_start started there, if any; Ceph's crash
# dumps go into it too. Sets `work`.
bench_workdir() {
  work=$(mktemp -d)
  mon_pid=
  trap bench_cleanup EXIT
  cd "$work"
  export CEPH_ARGS="--crash_dir=$work/crash"
}

bench_cleanup() {
  if [ -n "${mon_pid:-}" ]; then kill "$mon_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}

# bench_init [CRUSHKIT]: sets CRUSHKIT (absolute path; default
# build/tools/crushkit), OSDS (10000) and PG_BITS (7) unless set, and moves
# into a work directory (bench_workdir).
bench_init() {
  CRUSHKIT=$(readlink -f "${1:-build/tools/crushkit}")
  OSDS=${OSDS:-10000}
  PG_BITS=${PG_BITS:-7}
  bench_workdir
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

# build_bench_state: build_bench_cluster "$OSDS" "$PG_BITS", then the
# crushkit state `om.pb` imported from its JSON dump (om.json) and crush map
# (om.crush), as the planner benchmarks read it.
build_bench_state() {
  build_bench_cluster "$OSDS" "$PG_BITS"
  osdmaptool om --export-crush om.crush --dump json 2>/dev/null | sed -n '/^{/,$p' > om.json
  "$CRUSHKIT" import --osdmap om.json --crush om.crush -o om.pb 2>/dev/null
}

# write_add_rack_ops FILE: the change file adding a 21st rack (rack20) of
# OSDS/500 hosts x 25 OSDs at the existing OSDs' CRUSH weight.
write_add_rack_ops() {
  local hosts=$((OSDS / 25 / 20)) h
  {
    echo "osd crush add-bucket rack20 rack root=root"
    for h in $(seq 0 $((hosts - 1))); do
      echo "add-host newhost$h osds=25 weight=1 rack=rack20 root=root"
    done
  } > "$1"
}

# best NAME CMD...: runs CMD (stdout to /dev/null) REPS times; prints
# "NAME min_wall min_cpu max_rss_kib".
best() {
  local name=$1; shift
  local w u s m c bw=1e9 bc=1e9 bm=0
  for _ in $(seq "$REPS"); do
    /usr/bin/time -f "%e %U %S %M" -o t.txt "$@" > /dev/null 2>/dev/null
    read -r w u s m < t.txt
    c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
    bw=$(awk -v a="$bw" -v b="$w" 'BEGIN { print (b < a) ? b : a }')
    bc=$(awk -v a="$bc" -v b="$c" 'BEGIN { print (b < a) ? b : a }')
    bm=$(( m > bm ? m : bm ))
  done
  echo "$name $bw $bc $bm"
}

# mon_start PORT OSDMAP: a Ceph 16.2 monitor on v1:127.0.0.1:PORT with its
# data, logs and ceph.conf in the work directory (bench_workdir first),
# seeded with the binary OSDMAP (`ceph-mon --mkfs --osdmap`, so that all its
# OSDs exist without `ceph osd create`, which takes minutes for 1,000);
# PG autoscaling off and the PG-per-OSD limits lifted. Sets mon_pid (stopped
# on exit). Installs ceph-mon with apt if missing, as
# /work/shared/tools/ceph-mon-sandbox.sh does. Needs root.
mon_start() {
  local port=$1 osdmap=$2 fsid
  command -v ceph-mon >/dev/null || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ceph-mon >/dev/null
  }
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat > ceph.conf <<CONF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$port
auth cluster required = none
auth service required = none
auth client required = none
osd pool default pg autoscale mode = off
mon max pg per osd = 1000000
mon osd max initial pgs = 65536
run dir = $work
log file = $work/\$name.log
admin socket = $work/\$name.asok
pid file = $work/\$name.pid
crash dir = $work/crash
[mon.a]
mon data = $work/mon.a
CONF
  monmaptool --create --addv a "[v1:127.0.0.1:$port]" --fsid "$fsid" monmap >/dev/null
  ceph-mon --mkfs -i a --monmap monmap --osdmap "$osdmap" -c ceph.conf
  ceph-mon -i a -c ceph.conf
  for _ in $(seq 50); do timeout 5 ceph -c ceph.conf -s >/dev/null 2>&1 && break; sleep 0.2; done
  mon_pid=$(cat "$work/mon.a.pid")
}

# mon_cmd ARGS...: a command to mon_start's monitor; its output only if it
# fails (a young monitor sometimes refuses the first command: retried).
mon_cmd() {
  for _ in 1 2 3; do timeout 60 ceph -c ceph.conf "$@" > cmd.log 2>&1 && return 0; sleep 1; done
  cat cmd.log >&2
  return 1
}
