#!/usr/bin/env bash
# Proves that crushkit embeds as documented (crush/README.md, samples/embed/):
#   1. builds the libraries (crush, compiler, osdmap; no tools or tests) and
#      installs the three components into a temporary prefix;
#   2. checks the installed tree: the static libraries, libcrushkit.so (its
#      SONAME, only crushkit symbols exported), the CMake package (the crush
#      component's export names neither protobuf nor Boost; no source or
#      build path leaks), crushkit.pc, version.h; that every installed header
#      compiles on its own (the header set is closed; the C headers also as
#      C99) and that only crush/, compiler/ and osdmap/ headers are installed,
#      each a copy of a source header (nothing from tools/ or tests/, no
#      generated .pb.h);
#   3. builds samples/embed (a standalone CMake project using only
#      find_package(crushkit COMPONENTS ...)) against that prefix, and the C
#      sample (samples/embed_c) with pkg-config against the shared library;
#   4. runs crush_pg_mapper on the bundled map for every rule (threaded vs
#      single-threaded must agree), and, if Ceph's crushtool is installed,
#      diffs its raw mappings against `crushtool --test --show-mappings`, and,
#      if osdmaptool is installed, its pg mappings against an OSDMap's and
#      crush_compile_and_map's objects against `osdmaptool --test-map-object`;
#      crush_compile_and_map's compiled map must equal Ceph's bytes;
#   5. feeds crush_pg_mapper a truncated map: it must fail cleanly (exit 2);
#   6. ThreadSanitizer: installs a TSan build of the crush component into a
#      second prefix, builds crush_map_daemon (readers mapping PGs while a
#      control thread hot-swaps map versions) against it with
#      -fsanitize=thread and runs it: exit 0 and no TSan report.
# Exits non-zero on any failure. Env: JOBS (default 2), KEEP=1 keeps the temp
# directory, CXX/CC/generator as usual for CMake, and, to reuse trees a CI
# run has already built instead of configuring new ones:
#   CRUSH_EMBED_BUILD_DIR       a configured crushkit tree with the compiler
#                               and osdmap on (CI: its Release CLI tree);
#   CRUSH_EMBED_TSAN_BUILD_DIR  a tree configured with -DCRUSH_SANITIZE=thread
#                               -DCRUSH_BUILD_SHARED=OFF (CI: build-tsan, whose
#                               crush_core the TSan tests have built already).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
jobs=${JOBS:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/crushkit-embed.XXXXXX")
if [[ "${KEEP:-0}" == 1 ]]; then
  echo "check-embed: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
launcher=()
command -v ccache > /dev/null \
  && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fail() { echo "check-embed: FAILED: $*" >&2; exit 1; }
t0=$SECONDS
stamp() { echo "== [$((SECONDS - t0)) s] $*"; }

# configure_lib DIR LOG ARGS...: configures crushkit into DIR without tools,
# tests or benchmarks.
configure_lib() {
  local dir=$1 log=$2
  shift 2
  cmake -S "$repo" -B "$dir" "${gen[@]}" "${launcher[@]}" -DCRUSH_BUILD_TOOLS=OFF \
    -DCRUSH_BUILD_TESTS=OFF -DCRUSH_BUILD_BENCHMARKS=OFF -DCRUSH_INSTALL=ON "$@" > "$log" \
    || { cat "$log"; fail "configuring crushkit ($dir)"; }
}

# install_components BUILD PREFIX COMPONENT...
install_components() {
  local build=$1 dest=$2
  shift 2
  for c in "$@"; do
    cmake --install "$build" --prefix "$dest" --component "$c" >> "$work/install.log" \
      || { cat "$work/install.log"; fail "installing component $c"; }
  done
}

prefix=$work/prefix
if [[ -n "${CRUSH_EMBED_BUILD_DIR:-}" ]]; then
  build=$(cd "$CRUSH_EMBED_BUILD_DIR" && pwd)
  stamp "reusing $build; building the libraries, installing into $prefix"
  grep -q '^CRUSH_BUILD_OSDMAP:BOOL=ON' "$build/CMakeCache.txt" \
    && grep -q '^CRUSH_BUILD_COMPILER:BOOL=ON' "$build/CMakeCache.txt" \
    || fail "$build is not configured with the compiler and osdmap"
else
  build=$work/build
  stamp "configure crush + compiler + osdmap, build, install into $prefix"
  configure_lib "$build" "$work/configure.log" -DCMAKE_BUILD_TYPE=Release \
    -DCRUSH_BUILD_COMPILER=ON -DCRUSH_BUILD_OSDMAP=ON
fi
cmake --build "$build" --target crush_core crush_shared crush_compiler crush_osdmap -j "$jobs" \
  > "$work/build.log" || { cat "$work/build.log"; fail "building the libraries"; }
install_components "$build" "$prefix" crush compiler osdmap

stamp "check the installed tree"
libdir=$(find "$prefix" -name libcrushkit_crush.a -printf '%h\n' | head -n 1)
[[ -n "$libdir" ]] || fail "libcrushkit_crush.a not installed"
for f in libcrushkit_compiler.a libcrushkit_osdmap.a libcrushkit_osdmap_proto.a \
  libcrushkit_osdmap_model.a libcrushkit_osdmap_planning.a libcrushkit_crush_edit.a \
  cmake/crushkit/crushkitConfig.cmake cmake/crushkit/crushkitConfigVersion.cmake \
  cmake/crushkit/crushkitTargets.cmake cmake/crushkit/crushkit-compilerTargets.cmake \
  cmake/crushkit/crushkit-osdmapTargets.cmake pkgconfig/crushkit.pc; do
  [[ -f "$libdir/$f" ]] || fail "$f not installed"
done
version=$(sed -n 's/^project(crushkit VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
so=$libdir/libcrushkit.so.$version
[[ -f "$so" ]] || fail "libcrushkit.so.$version not installed"
soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
[[ "$soname" == "libcrushkit.so.${version%.*}" ]] || fail "SONAME is '$soname', expected libcrushkit.so.${version%.*}"
foreign=$(nm -D --defined-only -C "$so" | awk '{ $1 = ""; $2 = ""; print }' | grep -v '^ *crushkit' || true)
[[ -z "$foreign" ]] || fail "libcrushkit.so exports more than the crushkit API: $(echo "$foreign" | head -n 3)"
grep -q "CRUSHKIT_VERSION_STRING \"$version\"" "$prefix/include/crush/version.h" \
  || fail "include/crush/version.h does not say $version"
# The crush component stays dependency-light: Abseil only.
cmakedir=$libdir/cmake/crushkit
if grep -El 'protobuf|Boost' "$cmakedir"/crushkitTargets*.cmake "$cmakedir"/crushkit-compilerTargets*.cmake; then
  fail "the crush or compiler component's exports name protobuf or Boost"
fi
grep -q 'protobuf::libprotobuf' "$cmakedir"/crushkit-osdmapTargets.cmake \
  || fail "crushkit::osdmap does not link protobuf"
if grep -rlF -e "$repo" -e "$build" "$libdir/cmake" "$libdir/pkgconfig"; then
  fail "installed CMake/pkg-config files name the source or build tree"
fi
extra=$(find "$prefix/include" -mindepth 1 -maxdepth 1 ! -name crush ! -name compiler ! -name osdmap)
[[ -z "$extra" ]] || fail "unexpected installed headers: $extra"
for h in crush/types.h crush/map.h crush/mapper.h crush/codec.h crush/crushkit.h crush/version.h \
  compiler/compile.h osdmap/crushkit_osdmap.h osdmap/model/pg_mapping.h; do
  [[ -f "$prefix/include/$h" ]] || fail "include/$h not installed"
done
# Every installed header is a copy of a source header of its module (so no
# tools/, tests/ or generated protobuf header), except the generated version.h.
while IFS= read -r rel; do
  [[ "$rel" == crush/version.h ]] && continue
  cmp -s "$prefix/include/$rel" "$repo/$rel" || fail "installed include/$rel is not $rel of the source tree"
done < <(cd "$prefix/include" && find . -type f | sed 's|^\./||')
# Each header compiles on its own from the installed tree alone (the set is
# closed), in parallel. A header whose .cc includes it first already compiled
# on its own in the build, so here it is only preprocessed (every include it
# reaches is installed: ~0.2 s instead of ~3 s); the others are compiled.
export CRUSH_HDR_PREFIX=$prefix CRUSH_HDR_CXX=${CXX:-c++} CRUSH_HDR_REPO=$repo
(cd "$prefix/include" && find . -name '*.h' | sed 's|^\./||') \
  | xargs -P "$jobs" -I{} bash -c 'mode=-fsyntax-only; cc=$CRUSH_HDR_REPO/${1%.h}.cc
      [[ -f $cc && $(grep -m1 "^#include" "$cc") == "#include \"$1\"" ]] && mode="-E -o /dev/null"
      # shellcheck disable=SC2086  # mode is one or three words
      printf "#include \"%s\"\n" "$1" \
      | $CRUSH_HDR_CXX -std=c++20 $mode -x c++ -I "$CRUSH_HDR_PREFIX/include" - \
      || { echo "check-embed: FAILED: installed header $1 does not compile on its own" >&2; exit 255; }' _ {} \
  || fail "the installed header set is not closed"
for h in crush/crushkit.h osdmap/crushkit_osdmap.h; do
  echo "#include \"$h\"" | ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -fsyntax-only -x c \
    -I "$prefix/include" - || fail "installed $h does not compile as C99"
done
echo "   $(find "$prefix/include" -name '*.h' | wc -l) headers, each compiles on its own"

stamp "build the C sample with pkg-config and run it (C99, shared library)"
${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -o "$work/map_rule_c" \
  "$repo/samples/embed_c/map_rule.c" $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs crushkit) \
  || fail "building samples/embed_c/map_rule.c with pkg-config"
LD_LIBRARY_PATH="$libdir" "$work/map_rule_c" "$repo/samples/embed/6host-classes-ec.crushmap" 0 3 0 3 \
  > "$work/c.out" || fail "running the C sample"
[[ $(wc -l < "$work/c.out") -eq 4 ]] || fail "C sample printed: $(cat "$work/c.out")"
sed 's/^/   /' "$work/c.out"

stamp "build samples/embed against the installed package (components compiler, osdmap)"
cmake -S "$repo/samples/embed" -B "$work/embed" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/embed-configure.log" \
  || { cat "$work/embed-configure.log"; fail "configuring samples/embed"; }
cmake --build "$work/embed" -j "$jobs" > "$work/embed-build.log" \
  || { cat "$work/embed-build.log"; fail "building samples/embed"; }
app=$work/embed/crush_pg_mapper
[[ -x "$work/embed/crush_compile_and_map" ]] || fail "crush_compile_and_map not built (components missing?)"

map=$repo/samples/embed/6host-classes-ec.crushmap
# rule:size pairs of the bundled map (replicated_hdd, replicated_ssd, ec_4_2_hdd).
cases=("0:3" "1:3" "2:6")
for c in "${cases[@]}"; do
  rule=${c%%:*}
  size=${c##*:}
  echo "== crush_pg_mapper rule $rule size $size, 4 threads"
  "$app" "$map" --rule "$rule" --size "$size" --pool 3 --pgs 4096 --threads 4 --show 4 \
    || fail "crush_pg_mapper rule $rule"
done

echo "== crush_map_daemon (Release): 4 readers, map versions hot-swapped"
"$work/embed/crush_map_daemon" "$map" --rule 2 --size 6 --threads 4 --epochs 6 > "$work/daemon-release.out" \
  || { cat "$work/daemon-release.out"; fail "crush_map_daemon"; }
sed 's/^/   /' "$work/daemon-release.out"

echo "== crush_compile_and_map: compiler component vs Ceph's bytes"
golden_osdmap=$repo/tests/golden/osdmap_binary/pacific-upmap.osdmap
objects=(rbd_data.1 foo bar.0000000000000007 obj-42)
"$work/embed/crush_compile_and_map" "$repo/samples/6host-classes-ec.crush" "$work/compiled.bin" \
  "$golden_osdmap" 1 "${objects[@]}" > "$work/compile-map.out" \
  || { cat "$work/compile-map.out"; fail "crush_compile_and_map"; }
sed 's/^/   /' "$work/compile-map.out"
cmp -s "$work/compiled.bin" "$map" || fail "compiled map differs from $map (Ceph 16.2's bytes)"
[[ $(grep -c ' acting \[' "$work/compile-map.out") -eq ${#objects[@]} ]] \
  || fail "crush_compile_and_map mapped fewer objects than asked"

if command -v crushtool > /dev/null; then
  for c in "${cases[@]}"; do
    rule=${c%%:*}
    size=${c##*:}
    echo "== raw mappings vs crushtool --test, rule $rule num-rep $size, x 0..4095"
    "$app" "$map" --rule "$rule" --size "$size" --crushtool-mappings 4095 > "$work/ours.txt"
    CEPH_ARGS="--crash_dir=$work/crash" timeout 120 crushtool -i "$map" --test --show-mappings \
      --rule "$rule" --num-rep "$size" --min-x 0 --max-x 4095 > "$work/ceph.txt" \
      || fail "crushtool --test rule $rule"
    diff -q "$work/ours.txt" "$work/ceph.txt" > /dev/null \
      || { diff "$work/ours.txt" "$work/ceph.txt" | head -n 10; fail "mappings differ from crushtool (rule $rule)"; }
    echo "   identical ($(wc -l < "$work/ceph.txt") lines)"
  done
else
  echo "== crushtool not installed: skipping the comparison with Ceph"
fi

if command -v osdmaptool > /dev/null; then
  # pg -> pps -> rule as an OSDMap does it: pool 1 of `osdmaptool
  # --createsimple 24 --pg_bits 4` (pg_num 384, not a power of two, so
  # stable_mod folds), crush map imported, every OSD up and in.
  echo "== pg mappings vs osdmaptool --test-map-pgs-dump-all, pool 1, 384 pgs"
  om=$work/osdmap
  export CEPH_ARGS="--crash_dir=$work/crash"
  timeout 120 osdmaptool --createsimple 24 "$om" --with-default-pool --pg_bits 4 > /dev/null 2>&1 \
    || fail "osdmaptool --createsimple"
  timeout 120 osdmaptool "$om" --import-crush "$map" > /dev/null 2>&1 || fail "osdmaptool --import-crush"
  timeout 120 osdmaptool "$om" --mark-up-in --test-map-pgs-dump-all --pool 1 2> /dev/null \
    | sed -nE 's/^([0-9]+\.[0-9a-f]+) raw \(\[([0-9,]*)\].*/pg \1 -> [\2]/p' > "$work/ceph-pgs.txt"
  [[ $(wc -l < "$work/ceph-pgs.txt") -eq 384 ]] || fail "unexpected osdmaptool output"
  "$app" "$map" --rule 0 --size 3 --pool 1 --pgs 384 --show 384 | grep '^pg ' > "$work/our-pgs.txt"
  diff -q "$work/our-pgs.txt" "$work/ceph-pgs.txt" > /dev/null \
    || { diff "$work/our-pgs.txt" "$work/ceph-pgs.txt" | head -n 10; fail "pg mappings differ from osdmaptool"; }
  echo "   identical (384 pgs)"

  echo "== osdmap component (C API) vs osdmaptool --test-map-object on $(basename "$golden_osdmap")"
  for o in "${objects[@]}"; do
    timeout 120 osdmaptool "$golden_osdmap" --test-map-object "$o" --pool 1 2> /dev/null \
      | sed -nE "s/^ object '(.*)' -> ([0-9]+\.[0-9a-f]+) -> (\[.*\])$/\1 -> pg \2 acting \3/p"
  done > "$work/ceph-objects.txt"
  sed -E 's/ up \[[^]]*\]//' "$work/compile-map.out" | grep ' -> pg ' > "$work/our-objects.txt"
  diff -q "$work/our-objects.txt" "$work/ceph-objects.txt" > /dev/null \
    || { diff "$work/our-objects.txt" "$work/ceph-objects.txt"; fail "object mappings differ from osdmaptool"; }
  echo "   identical (${#objects[@]} objects)"
else
  echo "== osdmaptool not installed: skipping the pg and object comparisons with Ceph"
fi

echo "== a truncated map is refused cleanly"
head -c 100 "$map" > "$work/truncated.crushmap"
set +e
"$app" "$work/truncated.crushmap" > "$work/trunc.out" 2>&1
rc=$?
set -e
[[ $rc -eq 2 ]] || { cat "$work/trunc.out"; fail "truncated map: exit $rc, expected 2"; }
sed 's/^/   /' "$work/trunc.out"

# ThreadSanitizer only sees races in code it instrumented, so the library
# must be a TSan build as well as the daemon. Only the crush component is
# needed (the daemon links crushkit::crush), so the TSan tree builds
# crush_core alone (-DCRUSH_BUILD_SHARED=OFF), or is CI's TSan tree, which
# has built it already.
tsan_prefix=$work/prefix-tsan
if [[ -n "${CRUSH_EMBED_TSAN_BUILD_DIR:-}" ]]; then
  tsan_build=$(cd "$CRUSH_EMBED_TSAN_BUILD_DIR" && pwd)
  stamp "TSan: reusing $tsan_build's crush_core, installing into $tsan_prefix"
  grep -q '^CRUSH_SANITIZE:STRING=thread' "$tsan_build/CMakeCache.txt" \
    || fail "$tsan_build is not a -DCRUSH_SANITIZE=thread tree"
else
  tsan_build=$work/build-tsan
  stamp "TSan: configure crush only (-fsanitize=thread), build, install into $tsan_prefix"
  configure_lib "$tsan_build" "$work/configure-tsan.log" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCRUSH_SANITIZE=thread -DCRUSH_BUILD_SHARED=OFF \
    -DCRUSH_BUILD_COMPILER=OFF -DCRUSH_BUILD_OSDMAP=OFF
fi
cmake --build "$tsan_build" --target crush_core -j "$jobs" > "$work/build-tsan.log" \
  || { cat "$work/build-tsan.log"; fail "building the TSan crush_core"; }
install_components "$tsan_build" "$tsan_prefix" crush
tsan_lib=$(find "$tsan_prefix" -name libcrushkit_crush.a | head -n 1)
nm "$tsan_lib" 2> /dev/null | grep -c __tsan_func_entry > /dev/null || fail "$tsan_lib is not a TSan build"
# That prefix holds the crush component only: asking for osdmap must fail
# with the reason, not with a missing target later.
mkdir -p "$work/needs-osdmap"
printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(needs_osdmap LANGUAGES CXX)' \
  'find_package(crushkit CONFIG REQUIRED COMPONENTS osdmap)' > "$work/needs-osdmap/CMakeLists.txt"
if cmake -S "$work/needs-osdmap" -B "$work/needs-osdmap/build" -DCMAKE_PREFIX_PATH="$tsan_prefix" \
  > "$work/needs-osdmap.log" 2>&1; then
  fail "find_package(crushkit COMPONENTS osdmap) succeeded on a crush-only install"
fi
grep -q "component 'osdmap' was not built in this installation" "$work/needs-osdmap.log" \
  || { cat "$work/needs-osdmap.log"; fail "a missing component is not reported as such"; }
cmake -S "$repo/samples/embed" -B "$work/embed-tsan" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" -DCMAKE_PREFIX_PATH="$tsan_prefix" \
  > "$work/embed-tsan-configure.log" \
  || { cat "$work/embed-tsan-configure.log"; fail "configuring samples/embed for TSan"; }
cmake --build "$work/embed-tsan" --target crush_map_daemon -j "$jobs" > "$work/embed-tsan-build.log" \
  || { cat "$work/embed-tsan-build.log"; fail "building crush_map_daemon with TSan"; }
daemon_tsan=$work/embed-tsan/crush_map_daemon
nm "$daemon_tsan" | grep -c __tsan_init > /dev/null || fail "crush_map_daemon is not a TSan build"

stamp "crush_map_daemon under TSan: 4 readers, 6 map versions hot-swapped"
set +e
TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" "$daemon_tsan" "$map" \
  --rule 0 --size 3 --pgs 1024 --threads 4 --epochs 6 > "$work/daemon.out" 2>&1
rc=$?
set -e
sed 's/^/   /' "$work/daemon.out"
[[ $rc -ne 66 ]] || fail "ThreadSanitizer reported a race in crush_map_daemon"
[[ $rc -eq 0 ]] || fail "crush_map_daemon exited $rc"
! grep -q 'ThreadSanitizer' "$work/daemon.out" || fail "ThreadSanitizer printed a report"

stamp "check-embed: OK"
