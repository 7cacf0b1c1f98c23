#!/usr/bin/env bash
# Runs crushkit's multi-threaded commands with one thread and with four
# and requires byte-identical output:
#   crushkit crushtool --test (CRUSHKIT_THREADS=1 vs 4) on a bundled sample;
#   crushkit map-pgs and crushkit balance (--threads 1 vs 4) on a state
#   imported from an OSDMap that osdmaptool --createsimple builds (skipped if
#   osdmaptool is absent).
# Meant for the TSan build (run-sanitized-tests.sh tsan), where any data
# race in those paths aborts the run (TSAN_OPTIONS=halt_on_error=1), but
# works with any build.
#
#   tools/dev/check-threaded-cli.sh [BUILD_DIR]      (default: build)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
ck=${1:-build}/tools/crushkit
[[ $ck == /* ]] || ck=$repo/$ck
work=$(mktemp -d "${TMPDIR:-/tmp}/crushkit-threads.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "check-threaded-cli: FAILED: $*" >&2; exit 1; }

"$ck" compile --ceph-release pacific "$repo/samples/6host-classes-ec.crush" -o "$work/map.bin"
for t in 1 4; do
  CRUSHKIT_CEPH_RELEASE=pacific CRUSHKIT_THREADS=$t "$ck" crushtool -i "$work/map.bin" --test --show-mappings \
    --show-utilization --show-statistics --show-choose-tries --min-x 0 --max-x 4999 \
    > "$work/test.$t" 2>&1 || fail "crushtool --test with $t thread(s) exited $?"
done
cmp -s "$work/test.1" "$work/test.4" || fail "crushtool --test output depends on the thread count"
echo "check-threaded-cli: crushtool --test, 1 vs 4 threads: $(wc -l < "$work/test.1") identical lines"

if ! command -v osdmaptool > /dev/null; then
  echo "check-threaded-cli: osdmaptool not installed, map-pgs check skipped"
  exit 0
fi
export CEPH_ARGS="${CEPH_ARGS:---crash_dir=$work}"
om=$work/om
timeout 60 osdmaptool --createsimple 24 --pg_bits 7 --with-default-pool --clobber "$om" > /dev/null 2>&1 \
  || fail "osdmaptool --createsimple"
timeout 60 osdmaptool "$om" --export-crush "$work/crush.bin" > /dev/null 2>&1 \
  || fail "osdmaptool --export-crush"
timeout 60 osdmaptool "$om" --dump json > "$work/om.json" 2> /dev/null || fail "osdmaptool --dump json"
"$ck" import --osdmap "$work/om.json" --crush "$work/crush.bin" -o "$work/state"
for t in 1 4; do
  "$ck" map-pgs "$work/state" --threads $t > "$work/pgs.$t" || fail "map-pgs --threads $t exited $?"
done
[[ -s "$work/pgs.1" ]] || fail "map-pgs printed nothing"
cmp -s "$work/pgs.1" "$work/pgs.4" || fail "map-pgs output depends on --threads"
echo "check-threaded-cli: map-pgs, 1 vs 4 threads: $(wc -l < "$work/pgs.1") identical PG lines"
# The balancer needs OSDs that are up and in, and hosts to spread over:
# the sample's 6 hosts (24 OSDs, as the map has) instead of --createsimple's
# single one.
cp "$om" "$work/om-in"
timeout 60 osdmaptool "$work/om-in" --import-crush "$work/map.bin" > /dev/null 2>&1 \
  || fail "osdmaptool --import-crush"
timeout 60 osdmaptool "$work/om-in" --mark-up-in --dump json 2> /dev/null | sed -n '/^{/,$p' \
  > "$work/om-in.json" || fail "osdmaptool --mark-up-in --dump json"
"$ck" import --osdmap "$work/om-in.json" --crush "$work/map.bin" -o "$work/state-in"
for t in 1 4; do
  "$ck" balance "$work/state-in" --max 50 --deviation 1 --threads $t -o "$work/balanced.$t" \
    > "$work/balance.$t" || fail "balance --threads $t exited $?"
done
grep -q "pg-upmap-items" "$work/balance.1" || fail "balance made no move"
cmp -s "$work/balance.1" "$work/balance.4" || fail "balance output depends on --threads"
cmp -s "$work/balanced.1" "$work/balanced.4" || fail "balance -o state depends on --threads"
echo "check-threaded-cli: balance, 1 vs 4 threads: $(grep -c pg-upmap-items "$work/balance.1") identical commands"
