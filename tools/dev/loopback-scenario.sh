#!/usr/bin/env bash
# The small loopback scenario in one call (CI's ctest loopback_scenario_ci, issues 35 and 36): start a Pacific
# cluster of 4 memstore OSDs on 4 hosts, populate it (3x and EC 2+1 pools, a few MiB, one pg-upmap-items pin),
# capture it and check crushkit maps every PG as Ceph does, check `crushkit import --from-cluster` and
# `--report` (tests/cli/run_from_cluster.py --existing: the self-check agrees, both routes give the same state, a
# wrong port is refused in time), run one change (`osd crush reweight osd.2 0.5`) through loopback-change.py
# (--strict: the remapped PGs, every pushing OSD and every OSD's pushed bytes in the replicated pools exact; the
# duration ratio and the load average are printed on its `timing:` line), and stop every daemon (also on failure or
# Ctrl-C).
#   loopback-scenario.sh [--dir DIR] [--port BASE] [--release pacific|tentacle] [--change 'CEPH COMMAND'] [--keep]
#   --ctest: as ctest runs it: exit 77 (skipped) unless CRUSHKIT_LOOPBACK_TESTS=1, port from
#   $CRUSHKIT_LOOPBACK_PORT (default 47200).
# Exit 0 when every structural check passes, 1 on a mismatch, 2 on a setup failure. Results stay in DIR/runs/ (DIR
# defaults to a new temporary directory; --keep leaves the cluster running).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
D="" port=47200 change="osd crush reweight osd.2 0.5" keep=0 release=pacific
while [[ $# -gt 0 ]]; do
  case $1 in
    --dir) D=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --change) change=$2; shift 2 ;;
    --release) release=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --ctest)
      if [[ ${CRUSHKIT_LOOPBACK_TESTS:-} != 1 ]]; then
        echo "SKIP: set CRUSHKIT_LOOPBACK_TESTS=1 to start a loopback Ceph cluster"
        exit 77
      fi
      port=${CRUSHKIT_LOOPBACK_PORT:-$port}
      shift ;;
    *) echo "loopback-scenario.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ -n $D ]] || D=$(mktemp -d /tmp/loopback-scenario.XXXXXX)/cluster
start=$SECONDS
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() { ((keep)) || bash "$here/loopback-cluster.sh" stop "$D" >/dev/null 2>&1 || true; }
trap cleanup EXIT
step() { echo "[$((SECONDS - start))s] $*"; }

step "start: $D"
bash "$here/loopback-cluster.sh" start "$D" --osds 4 --hosts 4 --port "$port" --osd-mib 128 --release "$release" || exit 2
step "populate"
bash "$here/loopback-populate.sh" "$D" --rep-pgs 16 --ec-pgs 8 --objects 40 --omap 8 >/dev/null || exit 2
step "capture and mapping check"
bash "$here/loopback-capture.sh" "$D" "$D/runs/capture" || exit 1
step "import --from-cluster and --report"
CRUSHKIT_LOOPBACK_TESTS=1 /usr/bin/python3 "$here/../../tests/cli/run_from_cluster.py" --existing --dir "$D" \
  --release "$release" --source "$here/../.." --crushkit "${CRUSHKIT:-$here/../../build/tools/crushkit}" || exit 1
step "change: ceph $change"
rc=0
/usr/bin/python3 "$here/loopback-change.py" "$D" --change "$change" --out "$D/runs/change" --timeout 300 \
  --strict || rc=$?
step "done (exit $rc)"
exit "$rc"
