#!/usr/bin/env bash
# Proves that crushkit's mapper embeds as documented (crush/README.md):
#   1. configures crushkit with only the library (no compiler/osdmap/tools/
#      tests), builds crush_core and installs it into a temporary prefix;
#   2. checks the installed tree: lib/libcrushkit_crush.a, libcrushkit.so (its
#      SONAME, only crushkit symbols exported), the CMake package, crushkit.pc,
#      version.h, and
#      that every installed header compiles on its own (the header set is
#      closed) and nothing from compiler/, osdmap/ or tools/ is installed;
#   3. configures and builds samples/embed (a standalone CMake project using
#      only find_package(crushkit)) against that prefix, and the C sample
#      (samples/embed_c) with pkg-config against the shared library;
#   4. runs it on the bundled map for every rule (threaded vs single-threaded
#      must agree), and, if Ceph's crushtool is installed, diffs its raw
#      mappings against `crushtool --test --show-mappings`, and, if
#      osdmaptool is installed, its pg mappings against an OSDMap's;
#   5. feeds it a truncated map: it must fail cleanly (exit 2), not crash.
# Exits non-zero on any failure. Env: JOBS (default 2), KEEP=1 keeps the temp
# directory, CXX/generator as usual for CMake.
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
fail() { echo "check-embed: FAILED: $*" >&2; exit 1; }

echo "== build and install crush_core into $work/prefix"
cmake -S "$repo" -B "$work/build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCRUSH_BUILD_COMPILER=OFF -DCRUSH_BUILD_OSDMAP=OFF -DCRUSH_BUILD_TOOLS=OFF \
  -DCRUSH_BUILD_TESTS=OFF -DCRUSH_BUILD_BENCHMARKS=OFF -DCRUSH_INSTALL=ON > "$work/configure.log" \
  || { cat "$work/configure.log"; fail "configuring crushkit"; }
cmake --build "$work/build" --target crush_core crush_shared -j "$jobs" > "$work/build.log" \
  || { cat "$work/build.log"; fail "building crush_core"; }
cmake --install "$work/build" --prefix "$work/prefix" > "$work/install.log" \
  || { cat "$work/install.log"; fail "installing"; }

echo "== check the installed tree"
prefix=$work/prefix
libdir=$(find "$prefix" -name libcrushkit_crush.a -printf '%h\n' | head -n 1)
[[ -n "$libdir" ]] || fail "libcrushkit_crush.a not installed"
[[ -f "$libdir/cmake/crushkit/crushkitConfig.cmake" ]] || fail "crushkitConfig.cmake not installed"
[[ -f "$libdir/cmake/crushkit/crushkitConfigVersion.cmake" ]] || fail "crushkitConfigVersion.cmake not installed"
[[ -f "$libdir/pkgconfig/crushkit.pc" ]] || fail "crushkit.pc not installed"
version=$(sed -n 's/^project(crushkit VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
so=$libdir/libcrushkit.so.$version
[[ -f "$so" ]] || fail "libcrushkit.so.$version not installed"
soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
[[ "$soname" == "libcrushkit.so.${version%.*}" ]] || fail "SONAME is '$soname', expected libcrushkit.so.${version%.*}"
foreign=$(nm -D --defined-only -C "$so" | awk '{ $1 = ""; $2 = ""; print }' | grep -v '^ *crushkit' || true)
[[ -z "$foreign" ]] || fail "libcrushkit.so exports more than the crushkit API: $(echo "$foreign" | head -n 3)"
grep -q "CRUSHKIT_VERSION_STRING \"$version\"" "$prefix/include/crush/version.h" \
  || fail "include/crush/version.h does not say $version"
for h in types.h model.h codec.h map.h mapper.h hash.h ln.h status_macros.h crushkit.h version.h; do
  [[ -f "$prefix/include/crush/$h" ]] || fail "include/crush/$h not installed"
done
extra=$(find "$prefix/include" -mindepth 1 -maxdepth 1 ! -name crush)
[[ -z "$extra" ]] || fail "unexpected installed headers: $extra"
for h in "$prefix"/include/crush/*.h "$prefix"/include/crush/internal/*.h; do
  rel=${h#"$prefix/include/"}
  echo "#include \"$rel\"" > "$work/hdr.cc"
  ${CXX:-c++} -std=c++20 -fsyntax-only -I "$prefix/include" "$work/hdr.cc" \
    || fail "installed header $rel does not compile on its own"
done

echo "== build the C sample with pkg-config and run it (C99, shared library)"
${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -o "$work/map_rule_c" \
  "$repo/samples/embed_c/map_rule.c" $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs crushkit) \
  || fail "building samples/embed_c/map_rule.c with pkg-config"
LD_LIBRARY_PATH="$libdir" "$work/map_rule_c" "$repo/samples/embed/6host-classes-ec.crushmap" 0 3 0 3 \
  > "$work/c.out" || fail "running the C sample"
[[ $(wc -l < "$work/c.out") -eq 4 ]] || fail "C sample printed: $(cat "$work/c.out")"
sed 's/^/   /' "$work/c.out"

echo "== build samples/embed against the installed package"
cmake -S "$repo/samples/embed" -B "$work/embed" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/embed-configure.log" \
  || { cat "$work/embed-configure.log"; fail "configuring samples/embed"; }
cmake --build "$work/embed" -j "$jobs" > "$work/embed-build.log" \
  || { cat "$work/embed-build.log"; fail "building samples/embed"; }
app=$work/embed/crush_pg_mapper

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
else
  echo "== osdmaptool not installed: skipping the pg comparison with Ceph"
fi

echo "== a truncated map is refused cleanly"
head -c 100 "$map" > "$work/truncated.crushmap"
set +e
"$app" "$work/truncated.crushmap" > "$work/trunc.out" 2>&1
rc=$?
set -e
[[ $rc -eq 2 ]] || { cat "$work/trunc.out"; fail "truncated map: exit $rc, expected 2"; }
sed 's/^/   /' "$work/trunc.out"

echo "check-embed: OK"
