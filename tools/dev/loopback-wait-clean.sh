#!/usr/bin/env bash
# Wait until every PG of a loopback cluster is active+clean: loopback-wait-clean.sh DIR [SECONDS (default 300)].
# Fails (exit 1, with `ceph pg stat`) when the time runs out. Polls `ceph pg stat -f json` every second.
set -euo pipefail
D=${1%/}; limit=${2:-300}
end=$((SECONDS + limit))
while :; do
  # Clean means: the mgr's PG count equals the pools' pg_num total (so PGs of a just-created pool are counted) and
  # every one of them is active+clean.
  if stat=$("$D/ceph" pg stat -f json 2>/dev/null) && pools=$("$D/ceph" osd pool ls detail -f json 2>/dev/null) &&
    /usr/bin/python3 -c '
import json, sys
s = json.loads(sys.argv[1]); s = s.get("pg_summary", s)
want = sum(p["pg_num"] for p in json.loads(sys.argv[2]))
total = s["num_pgs"]; states = {e["name"]: e["num"] for e in s.get("num_pg_by_state", [])}
sys.exit(0 if total == want and states.get("active+clean", 0) == total else 1)' "$stat" "$pools"; then
    exit 0
  fi
  if ((SECONDS >= end)); then
    echo "loopback-wait-clean.sh: $D not active+clean after ${limit}s:" >&2
    "$D/ceph" pg stat >&2 || true
    exit 1
  fi
  sleep 1
done
