#!/usr/bin/env bash
# DoRule vs Ceph's mapper compiled from source at -O2 and linked into the
# same static benchmark binary (issue 40's reference; the dlopen'd Debian
# libceph-common of bench/mapper_vs_ceph is a slower one: PIC, calls
# through the PLT). Builds bench/mapper_vs_ceph.cc with Ceph's builder.c,
# crush.c, hash.c and mapper.c (gcc -O2, no -fPIC) into one executable that
# exports their symbols, and runs it with CRUSHKIT_CEPH_COMMON_LIB=self
# (tests/testing/ceph_mapper.h), so CephMapper finds Ceph's functions in the
# program itself. Both mappers must agree on 20,000 inputs per rule first.
# Nothing of Ceph is kept: the sources are read from CEPH_CRUSH_DIR, the
# objects and the binary go to a temporary directory.
#
# Usage: bench/mapper_vs_ceph_static.sh CEPH_CRUSH_DIR [BUILD_DIR] [-- benchmark args]
#   CEPH_CRUSH_DIR: Ceph's src/crush (or github.com/ceph/libcrush's crush/,
#     the same C files extracted; its int_types.h wants an acconfig.h, which
#     is written to the temporary directory when the folder lacks one)
#   BUILD_DIR: a Release build of this project (default build/) whose
#     crush_core, crush_cluster_builder and crush_ceph_mapper are built
#   benchmark args default to --benchmark_repetitions=5
#     --benchmark_report_aggregates_only=true
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ceph_dir=$(readlink -f "${1:?usage: $0 CEPH_CRUSH_DIR [BUILD_DIR] [-- benchmark args]}")
shift
build=$(readlink -f "${1:-$root/build}")
[[ $# -gt 0 && $1 != -- ]] && shift
[[ ${1:-} == -- ]] && shift
args=("$@")
((${#args[@]})) || args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true)

for f in builder.c crush.c hash.c mapper.c; do
  [[ -f $ceph_dir/$f ]] || { echo "$0: no $f in $ceph_dir" >&2; exit 2; }
done
for lib in crush/libcrushkit_crush.a crush/libcrush_cluster_builder.a crush/libcrush_ceph_mapper.a; do
  [[ -f $build/$lib ]] || { echo "$0: no $build/$lib (build crush_core crush_cluster_builder crush_ceph_mapper)" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ ! -f $ceph_dir/acconfig.h ]]; then
  printf '#define HAVE_INTTYPES_H 1\n#define HAVE_STDINT_H 1\n' > "$work/acconfig.h"
fi
objs=()
for f in builder crush hash mapper; do
  gcc -O2 -I"$ceph_dir" -I"$ceph_dir/.." -I"$work" -w -c "$ceph_dir/$f.c" -o "$work/$f.o"
  objs+=("$work/$f.o")
done
# The absl libraries crush_core and the test helpers link (Debian 12 shared ones).
absl_libs=(-labsl_statusor -labsl_status -labsl_cord -labsl_cordz_info -labsl_cord_internal
  -labsl_cordz_functions -labsl_cordz_handle -labsl_synchronization -labsl_strings
  -labsl_strings_internal -labsl_str_format_internal -labsl_int128 -labsl_base
  -labsl_raw_logging_internal -labsl_throw_delegate -labsl_spinlock_wait)
g++ -std=c++20 -O3 -DNDEBUG -I"$root" -I"$build" "$root/bench/mapper_vs_ceph.cc" "${objs[@]}" \
  "$build/crush/libcrush_ceph_mapper.a" "$build/crush/libcrush_cluster_builder.a" \
  "$build/crush/libcrushkit_crush.a" -rdynamic -lbenchmark "${absl_libs[@]}" -ldl -lpthread \
  -o "$work/mapper_vs_ceph_static"
CRUSHKIT_CEPH_COMMON_LIB=self "$work/mapper_vs_ceph_static" "${args[@]}"
