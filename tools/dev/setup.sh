#!/usr/bin/env bash
# Installs everything crushkit needs to build and test on Debian 12 (as root),
# including Ceph's crushtool/osdmaptool (ceph-base), the differential oracle.
set -euo pipefail
pkgs=(build-essential cmake ninja-build git python3
      libabsl-dev libboost-dev libprotobuf-dev protobuf-compiler libcli11-dev
      libgtest-dev libgmock-dev libbenchmark-dev ceph-base chromium)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Ceph 20.2's crushtool (crushtool-tentacle), the oracle of the MSR
# differential suite, from the shared oracle installer beside the repository
# (idempotent; a missing oracle fails that suite when CRUSHKIT_REQUIRE_ORACLE
# is set).
oracles=$(dirname "$0")/../../../shared/tools/ceph-oracles.sh
if [[ ! -x /opt/ceph-oracles/bin/crushtool-tentacle && -f $oracles ]]; then
  echo "setup: installing Ceph 20.2 oracle tools"
  bash "$oracles" tentacle
fi
