#!/usr/bin/env bash
# A small real Ceph cluster on 127.0.0.1 for checking crushkit against Ceph itself (issues 35 and 36):
# one monitor, one manager and N memstore OSDs spread over H hosts, auth off, everything under DIR.
#
#   loopback-cluster.sh start DIR [--osds N] [--hosts H] [--port BASE] [--osd-mib M] [--release pacific|tentacle]
#                             [--conf 'option = value' ...]   (each added to ceph.conf's [global], e.g. 'ms bind msgr2 = false')
#   loopback-cluster.sh stop DIR         stops every daemon by the PID it recorded in DIR (never by name)
#   loopback-cluster.sh status DIR       daemons alive, `ceph -s`
#   loopback-cluster.sh add-osds DIR [--count N]   N more OSDs (default 1), class hdd, up and in but outside the
#                                        CRUSH map: place them with the change under test (`osd crush add ...`)
# Then: DIR/ceph <args> runs the `ceph` CLI against this cluster (DIR/rados likewise).
#
# Pacific (16.2) comes from Debian 12 (ceph-mon/ceph-osd/ceph-mgr are installed with apt if missing). Tentacle (20.2)
# runs from a Debian unstable root (CEPH_TENTACLE_ROOT, default /opt/ceph-loopback/tentacle), made with
#   CEPH_ORACLES_PREFIX=/opt/ceph-loopback CEPH_ORACLE_PACKAGES=ceph-base,ceph-mon,ceph-osd,ceph-mgr \
#     bash /work/shared/tools/ceph-oracles.sh tentacle
# (its own prefix, so building it never replaces the crushtool/osdmaptool oracles under /opt/ceph-oracles); every
# daemon and CLI runs chrooted through /work/shared/tools/ceph-chroot.sh, the cluster's files live in
# ROOT/tmp/loopback/NAME-BASE and DIR is a symlink to that directory.
# Ports: the monitor listens on v1 BASE (default 47000); the mgr and OSDs bind inside BASE+1..BASE+199, so clusters
# with bases 200 apart coexist. Memory: memstore keeps each OSD's data in RAM, capped at M MiB per OSD (default 256).
#
# Traps met on such clusters (each handled here):
# - With auth off an OSD must not set its own CRUSH location or class on start: both are off in ceph.conf and the OSDs
#   are placed from the CLI (`osd crush add-bucket`, `osd crush move`, `osd crush add osd.N W host=...`).
# - Options in ceph.conf beat `ceph config set`: only what must never change is written there; change the rest at
#   runtime with `ceph tell osd.N config set` (and `ceph config set` for restarts).
# - memstore reports itself rotational, so the hdd recovery settings (osd_recovery_sleep_hdd 0.1 s) apply.
# - The mgr's balancer is switched off so nothing moves PGs but the change under test.
set -euo pipefail

die() { echo "loopback-cluster.sh: $*" >&2; exit 1; }
usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $# -ge 2 ]] || usage
cmd=$1; D=$2; shift 2
[[ $D == /* ]] || D=$PWD/$D
D=${D%/}

# The cluster's directory as its daemons see it (CD) and what runs a Ceph program (RUN): for Pacific DIR itself and
# nothing; for Tentacle the path inside the root and ceph-chroot.sh. Recorded in DIR/cluster.env by start.
CD=$D RUN=()
if [[ -f $D/cluster.env ]]; then
  # shellcheck disable=SC1091
  source "$D/cluster.env"
  [[ -n ${ROOT:-} ]] && RUN=(bash /work/shared/tools/ceph-chroot.sh "$ROOT")
fi

# The CLI through DIR/ceph, which retries the "problem getting command descriptions" failure.
ceph_cli() { CEPH_TIMEOUT=${CEPH_TIMEOUT:-30} "$D/ceph" "$@"; }
ceph_setup() {  # a setup command: its stdout, and its chatter on stderr only when it fails
  local err rc=0
  err=$(mktemp)
  ceph_cli "$@" 2>"$err" || rc=$?
  ((rc == 0)) || cat "$err" >&2
  rm -f "$err"
  return "$rc"
}

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...: poll COMMAND every 0.5 s until it succeeds
  local limit=$1 what=$2; shift 2
  local end=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < end)) || die "timed out after ${limit}s waiting for $what (logs in $D/*.log)"
    sleep 0.5
  done
}

pid_alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_cluster() {
  [[ -d $D ]] || die "$D: no such cluster directory"
  local f pid left=()
  # OSDs first, then the mgr, then the monitor, so no daemon waits on a dead monitor.
  for f in "$D"/osd.*.pid "$D"/mgr.*.pid "$D"/mon.*.pid; do
    [[ -f $f ]] || continue
    pid=$(cat "$f")
    # Only kill a PID that is still the daemon we started (its command line names this cluster's ceph.conf).
    if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$CD/ceph.conf"; then
      kill "$pid"
      left+=("$pid")
    fi
  done
  local end=$((SECONDS + 20))
  for pid in "${left[@]}"; do
    while kill -0 "$pid" 2>/dev/null; do
      if ((SECONDS >= end)); then kill -9 "$pid" 2>/dev/null || true; break; fi
      sleep 0.2
    done
  done
  rm -f "$D"/*.pid
  echo "stopped ${#left[@]} daemons of $D"
}

status_cluster() {
  [[ -f $D/ceph.conf ]] || die "$D: no cluster here"
  local f
  for f in "$D"/*.pid; do
    [[ -f $f ]] || continue
    if pid_alive "$f"; then echo "$(basename "$f" .pid) pid $(cat "$f") running"; else echo "$(basename "$f" .pid) dead"; fi
  done
  ceph_cli -s
}

start_cluster() {
  local osds=3 hosts=3 port=47000 osd_mib=256 release=pacific weight=1.0 extra_conf=''
  while [[ $# -gt 0 ]]; do
    case $1 in
      --osds) osds=$2; shift 2 ;;
      --hosts) hosts=$2; shift 2 ;;
      --port) port=$2; shift 2 ;;
      --osd-mib) osd_mib=$2; shift 2 ;;
      --weight) weight=$2; shift 2 ;;
      --release) release=$2; shift 2 ;;
      --conf) extra_conf+=$2$'\n'; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  [[ $osds =~ ^[0-9]+$ && $osds -ge 1 ]] || die "--osds wants a positive number, got '$osds'"
  [[ $hosts =~ ^[0-9]+$ && $hosts -ge 1 && $hosts -le $osds ]] || die "--hosts wants 1..osds, got '$hosts'"
  [[ $port =~ ^[0-9]+$ ]] || die "--port wants a number, got '$port'"
  if [[ -d $D ]]; then
    for f in "$D"/*.pid; do [[ -f $f ]] && pid_alive "$f" && die "$D: daemons still running; stop it first"; done
    [[ -L $D ]] && rm -rf --one-file-system "$(readlink -f "$D")"
    rm -rf "$D"
  fi
  case $release in
    pacific)
      if ! command -v ceph-mon >/dev/null || ! command -v ceph-osd >/dev/null || ! command -v ceph-mgr >/dev/null; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ceph-mon ceph-osd ceph-mgr >/dev/null
      fi
      CD=$D RUN=()
      mkdir -p "$D"
      echo "RELEASE=pacific" >"$D/cluster.env"
      ;;
    tentacle)
      ROOT=${CEPH_TENTACLE_ROOT:-/opt/ceph-loopback/tentacle}
      [[ -x $ROOT/usr/bin/ceph-osd && -x $ROOT/usr/bin/ceph-mgr ]] ||
        die "no Tentacle daemons in $ROOT; make them with: CEPH_ORACLES_PREFIX=${ROOT%/*} CEPH_ORACLE_PACKAGES=ceph-base,ceph-mon,ceph-osd,ceph-mgr bash /work/shared/tools/ceph-oracles.sh tentacle"
      CD=/tmp/loopback/$(basename "$D")-$port RUN=(bash /work/shared/tools/ceph-chroot.sh "$ROOT")
      rm -rf "${ROOT:?}$CD"
      mkdir -p "$ROOT$CD" "$(dirname "$D")"
      ln -s "$ROOT$CD" "$D"
      printf 'RELEASE=tentacle\nROOT=%s\nCD=%s\n' "$ROOT" "$CD" >"$D/cluster.env"
      ;;
    *) die "--release $release: pacific or tentacle" ;;
  esac
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then die "port $port is already in use (choose --port)"; fi

  local fsid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat >"$D/ceph.conf" <<CONF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$port
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind port min = $((port + 1))
ms bind port max = $((port + 199))
auth cluster required = none
auth service required = none
auth client required = none
mon allow pool delete = true
mon allow pool size one = true
mon warn on pool no redundancy = false
mon osd down out interval = 3600
osd pool default pg autoscale mode = off
osd pool default size = 3
osd pool default min size = 2
osd crush update on start = false
osd class update on start = false
osd objectstore = memstore
memstore device bytes = $((osd_mib * 1024 * 1024))
# Other engineers compile on this machine: heartbeats must survive a busy CPU.
osd heartbeat grace = 60
mgr initial modules = iostat
# Daemons report PG stats to the mgr every second (default 5 s), so pg dump and status lag the cluster less.
mgr stats period = 1
run dir = $CD
pid file = $CD/\$name.pid
log file = $CD/\$name.log
admin socket = $CD/\$name.asok
crash dir = $CD/crash
mon data = $CD/\$name
mgr data = $CD/\$name
osd data = $CD/\$name
$extra_conf
[client]
log file = $CD/client.log
admin socket =
CONF
  echo "export CEPH_CONF=$D/ceph.conf" >"$D/env"
  local run="${RUN[*]}"
  # DIR/ceph: the CLI for this cluster, retrying the transient "problem getting command descriptions" failure
  # (it happens before the command is sent, so a retry never runs a command twice).
  cat >"$D/ceph" <<WRAP
#!/usr/bin/env bash
for try in 1 2 3 4 5; do
  err=\$(mktemp); timeout \${CEPH_TIMEOUT:-60} $run ceph -c $CD/ceph.conf "\$@" 2>"\$err"; rc=\$?
  if [[ \$rc != 0 ]] && grep -q "problem getting command descriptions" "\$err"; then rm -f "\$err"; sleep 1; continue; fi
  cat "\$err" >&2; rm -f "\$err"; exit \$rc
done
exit \$rc
WRAP
  printf '#!/bin/sh\nexec %s rados -c %s/ceph.conf "$@"\n' "$run" "$CD" >"$D/rados"
  chmod +x "$D/ceph" "$D/rados"

  "${RUN[@]}" monmaptool --create --addv a "[v1:127.0.0.1:$port]" --fsid "$fsid" "$CD/monmap" >/dev/null
  "${RUN[@]}" ceph-mon --mkfs -i a --monmap "$CD/monmap" -c "$CD/ceph.conf"
  "${RUN[@]}" ceph-mon -i a -c "$CD/ceph.conf"
  wait_for 30 "the monitor" ceph_cli -s
  ceph_setup osd set-require-min-compat-client luminous >/dev/null

  # Hosts: h0..h(H-1) under root default; osd.i goes to host h(i mod H).
  local h i uuid
  for ((h = 0; h < hosts; h++)); do
    ceph_setup osd crush add-bucket "h$h" host >/dev/null
    ceph_setup osd crush move "h$h" root=default >/dev/null
  done
  for ((i = 0; i < osds; i++)); do
    uuid=$(cat /proc/sys/kernel/random/uuid)
    [[ $(ceph_setup osd new "$uuid") == "$i" ]] || die "osd new did not give id $i"
    mkdir -p "$D/osd.$i"
    "${RUN[@]}" ceph-osd -i "$i" --mkfs --osd-uuid "$uuid" -c "$CD/ceph.conf" >"$D/osd.$i.mkfs.log" 2>&1 ||
      die "mkfs of osd.$i failed: $D/osd.$i.mkfs.log"
    ceph_setup osd crush add "osd.$i" "$weight" "host=h$((i % hosts))" >/dev/null
    ceph_setup osd crush set-device-class hdd "osd.$i" >/dev/null
    "${RUN[@]}" ceph-osd -i "$i" -c "$CD/ceph.conf" 2>>"$D/osd.$i.start.log"
  done
  mkdir -p "$D/mgr.x"
  "${RUN[@]}" ceph-mgr -i x -c "$CD/ceph.conf" 2>>"$D/mgr.x.start.log"
  wait_for 60 "the mgr" sh -c "CEPH_TIMEOUT=10 '$D/ceph' mgr stat -f json | grep -q '\"available\": *true'"
  wait_for 120 "$osds OSDs up" sh -c "CEPH_TIMEOUT=10 '$D/ceph' osd stat -f json | grep -q '\"num_up_osds\": *$osds,'"
  ceph_cli balancer off >/dev/null 2>&1 || true
  # The mgr creates its device_health_metrics pool on start: wait until every PG is active+clean.
  wait_for 120 "active+clean" sh -c "CEPH_TIMEOUT=10 '$D/ceph' pg stat | grep -Eq '^[0-9]+ pgs: [0-9]+ active\+clean;|^0 pgs'"
  echo "cluster $D ($release) up: mon v1:127.0.0.1:$port, mgr, $osds OSDs on $hosts hosts (use $D/ceph)"
}

# New OSDs for an "add a host" change: created, started and up, with their device class but in no CRUSH bucket (so no
# PG maps to them yet); the change under test then places them (`osd crush add osd.N W host=... rack=...`).
add_osds() {
  local count=1
  while [[ $# -gt 0 ]]; do
    case $1 in
      --count) count=$2; shift 2 ;;
      *) die "unknown option $1" ;;
    esac
  done
  [[ $count =~ ^[0-9]+$ && $count -ge 1 ]] || die "--count wants a positive number, got '$count'"
  [[ -f $D/ceph.conf ]] || die "$D: no cluster here"
  local n i uuid up
  for ((n = 0; n < count; n++)); do
    uuid=$(cat /proc/sys/kernel/random/uuid)
    i=$(ceph_setup osd new "$uuid")
    [[ $i =~ ^[0-9]+$ ]] || die "osd new gave '$i', not an OSD id"
    mkdir -p "$D/osd.$i"
    "${RUN[@]}" ceph-osd -i "$i" --mkfs --osd-uuid "$uuid" -c "$CD/ceph.conf" >"$D/osd.$i.mkfs.log" 2>&1 ||
      die "mkfs of osd.$i failed: $D/osd.$i.mkfs.log"
    ceph_setup osd crush set-device-class hdd "osd.$i" >/dev/null
    "${RUN[@]}" ceph-osd -i "$i" -c "$CD/ceph.conf" 2>>"$D/osd.$i.start.log"
    echo "osd.$i started (not in the CRUSH map)"
  done
  up=$(ceph_setup osd ls | wc -l)
  wait_for 120 "$up OSDs up" sh -c "CEPH_TIMEOUT=10 '$D/ceph' osd stat -f json | grep -q '\"num_up_osds\": *$up,'"
}

case $cmd in
  start) start_cluster "$@" ;;
  add-osds) add_osds "$@" ;;
  stop) stop_cluster ;;
  status) status_cluster ;;
  *) usage ;;
esac
