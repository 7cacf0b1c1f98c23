#!/usr/bin/env bash
# Installs everything crushkit needs to build and test on Debian 12 (as root),
# including Ceph's crushtool/osdmaptool (ceph-base), the differential oracle.
set -euo pipefail
pkgs=(build-essential cmake ninja-build git python3 pkg-config
      libabsl-dev libboost-dev libprotobuf-dev protobuf-compiler libcli11-dev zlib1g-dev
      libgtest-dev libgmock-dev libbenchmark-dev ceph-base chromium
      libjs-chart.js  # Chart.js, inlined into the HTML report (osdmap/planning/movement_html.h)
      pybind11-dev python3-dev python3-numpy python3-pytest
      clang-format dpkg-dev mmdebstrap  # lint.sh; check-deb.sh: dpkg-shlibdeps for cpack, a clean Debian 12 root
      ceph-mon ceph-osd ceph-mgr python3-rados)  # the loopback Ceph cluster (tools/dev/loopback-*)
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

# With --newer-oracles: Ceph 18.2 (Reef) and 20.2 (Tentacle) crushtool, osdmaptool and crushdiff as
# /opt/ceph-oracles/bin/{crushtool,osdmaptool,crushdiff}-{reef,tentacle} (each in its own Debian root,
# about 40 s and 430 MB each; idempotent), the oracles of the newer-release differential suites.
if [[ ${1:-} == --newer-oracles ]]; then
  oracles=$(dirname "$0")/../../../shared/tools/ceph-oracles.sh
  if [[ -f $oracles ]]; then
    bash "$oracles"
  else
    echo "setup: $oracles not found; the Reef/Tentacle suites will skip (or fail in CI)" >&2
  fi
fi
