#!/usr/bin/env bash
# Builds the crushkit Debian package and proves it installs and runs on a
# clean Debian 12:
#   1. builds the CLI and libcrushkit.so in BUILD_DIR (default: build;
#      configured as a Release tree without tests if it has no CMakeCache)
#      and runs `cpack -G DEB` there (cmake/CrushPackage.cmake);
#   2. checks the package: its Depends come from dpkg-shlibdeps and name
#      real runtime packages (libc6, libstdc++6, libabsl20220623, ...: each
#      must exist in apt's cache), and it holds the
#      CLI, the shared library, the headers, the CMake package and crushkit.pc;
#   3. makes a minimal Debian 12 root with Debian's own mmdebstrap (variant
#      apt, from the mirror this machine's apt uses, or CRUSH_DEB_MIRROR) and,
#      inside it, installs the .deb with apt (its dependencies resolve from
#      the mirror) plus gcc, libc6-dev and pkg-config, then runs
#      `crushkit --version` (must print the project version and, with no
#      Ceph in the root, "default Ceph release: tentacle (no Ceph installed)"),
#      `crushkit crushtool -c` (as Pacific) on samples/6host-classes-ec.crush (must give
#      the bytes Ceph 16.2 wrote, samples/embed/6host-classes-ec.crushmap),
#      and builds samples/embed_c with `gcc $(pkg-config --cflags --libs
#      crushkit)` and runs it (must print what `crushkit crushtool --test
#      --show-mappings` prints); when the build has the Python module, also
#      `import crushkit` with the root's python3 (the same mappings).
# Needs root (mmdebstrap's root mode) and the network to the mirror. Prints
# the time each phase took. Env: BUILD_DIR, JOBS (default 2), KEEP=1 keeps
# the temp directory (the root is deleted either way unless KEEP=1).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-build}
[[ "$build" = /* ]] || build=$repo/$build
jobs=${JOBS:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/crushkit-deb.XXXXXX")
if [[ "${KEEP:-0}" == 1 ]]; then
  echo "check-deb: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
fail() { echo "check-deb: FAILED: $*" >&2; exit 1; }
t0=$SECONDS
stamp() { echo "== [$((SECONDS - t0)) s] $*"; }
for tool in cpack dpkg-deb dpkg-shlibdeps mmdebstrap; do
  command -v "$tool" > /dev/null || fail "$tool not found (tools/dev/setup.sh installs it)"
done

stamp "build crushkit and libcrushkit.so in $build"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCRUSH_BUILD_TESTS=OFF \
    -DCRUSH_BUILD_BENCHMARKS=OFF > "$work/configure.log" || { cat "$work/configure.log"; fail "configuring"; }
fi
grep -q '^CRUSH_INSTALL:BOOL=ON' "$build/CMakeCache.txt" || fail "$build is configured with CRUSH_INSTALL=OFF"
targets="crushkit crush_shared"
python_module=0
if grep -q '^CRUSH_BUILD_PYTHON:BOOL=ON' "$build/CMakeCache.txt"; then
  targets="$targets crushkit_python"
  python_module=1
fi
cmake --build "$build" --target $targets -j "$jobs" > "$work/build.log" \
  || { cat "$work/build.log"; fail "building"; }

stamp "cpack -G DEB"
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg") > "$work/cpack.log" 2>&1 \
  || { cat "$work/cpack.log"; fail "cpack -G DEB"; }
deb=$(find "$work/pkg" -maxdepth 1 -name 'crushkit_*.deb' | head -n 1)
[[ -n "$deb" ]] || { cat "$work/cpack.log"; fail "no crushkit_*.deb made"; }
version=$(sed -n 's/^project(crushkit VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
[[ $(dpkg-deb -f "$deb" Package) == crushkit ]] || fail "package name is not crushkit"
[[ $(dpkg-deb -f "$deb" Version) == "$version" ]] || fail "package version is not $version"
depends=$(dpkg-deb -f "$deb" Depends)
echo "   $(basename "$deb"): $(du -k "$deb" | cut -f1) KiB, Depends: $depends"
dep_names=$(tr ',' '\n' <<< "$depends" | sed -E 's/^ *([^ (|]+).*/\1/')
# libcrushkit.so needs the first three; the CLI links protobuf statically
# unless built with -DCRUSH_STATIC_CLI=OFF (cmake/CrushStaticCli.cmake).
for p in libc6 libstdc++6 libabsl20220623; do
  grep -qxF "$p" <<< "$dep_names" || fail "Depends lacks $p"
done
# Every dependency is a runtime package apt knows (no -dev package, nothing invented).
while IFS= read -r p; do
  [[ "$p" != *-dev ]] || fail "Depends names a -dev package: $p"
  apt-cache show "$p" > /dev/null 2>&1 || fail "Depends names $p, which apt does not know"
done <<< "$dep_names"
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' > "$work/files.txt"
for f in /usr/bin/crushkit 'libcrushkit\.so\.'"$version" '/include/crush/crushkit\.h' \
  '/include/osdmap/crushkit_osdmap\.h' '/include/compiler/compile\.h' \
  '/cmake/crushkit/crushkitConfig\.cmake' '/pkgconfig/crushkit\.pc'; do
  grep -q "$f" "$work/files.txt" || fail "the package lacks $f"
done
if [[ $python_module == 1 ]]; then
  grep -q '/usr/lib/python3/dist-packages/crushkit\..*\.so' "$work/files.txt" \
    || fail "the package lacks the Python module"
fi

mirror=${CRUSH_DEB_MIRROR:-}
if [[ -z "$mirror" ]]; then
  # The first Debian archive apt uses here (deb822 .sources or one-line lists).
  mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null \
    | awk '/^URIs:/ { print $2 }' | grep -m 1 '/debian/*$' || true)
  [[ -n "$mirror" ]] || mirror=$(grep -hsE '^deb +(\[[^]]*\] +)?[a-z]+://[^ ]*/debian/? +bookworm' \
    /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{ print ($2 ~ /^\[/) ? $3 : $2 }' | head -n 1)
  [[ -n "$mirror" ]] || fail "no Debian archive in this machine's apt sources; set CRUSH_DEB_MIRROR"
fi

mkdir -p "$work/in-root"
cp "$deb" "$work/in-root/"
cp "$repo/samples/6host-classes-ec.crush" "$repo/samples/embed/6host-classes-ec.crushmap" \
  "$repo/samples/embed_c/map_rule.c" "$work/in-root/"
cat > "$work/in-root/check.sh" <<EOF
set -eu
cd /root/check
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --no-install-recommends ./$(basename "$deb") gcc libc6-dev pkg-config \
  $([[ $python_module == 1 ]] && echo python3) > apt.log \
  || { cat apt.log; exit 1; }
echo "   installed: \$(dpkg-query -W -f='\${Package} \${Version}' crushkit)"
v=\$(crushkit --version)
echo "   crushkit --version: \$v"
# No Ceph in this root: the default release is the current one.
[ "\$v" = "crushkit $version
default Ceph release: tentacle (no Ceph installed)" ] || { echo "expected 'crushkit $version' and the default release"; exit 1; }
CRUSHKIT_CEPH_RELEASE=pacific crushkit crushtool -c 6host-classes-ec.crush -o compiled.bin
cmp compiled.bin 6host-classes-ec.crushmap || { echo "crushtool -c: not Ceph 16.2's bytes"; exit 1; }
echo "   CRUSHKIT_CEPH_RELEASE=pacific crushkit crushtool -c: Ceph 16.2's bytes"
gcc -std=c99 -Wall -Wextra -Werror -pedantic -o map_rule map_rule.c \$(pkg-config --cflags --libs crushkit)
./map_rule compiled.bin 0 3 0 99 > c.txt
crushkit crushtool -i compiled.bin --test --show-mappings --rule 0 --num-rep 3 --min-x 0 --max-x 99 > cli.txt
cmp c.txt cli.txt || { diff c.txt cli.txt | head; exit 1; }
echo "   C sample (gcc + pkg-config, libcrushkit.so): \$(wc -l < c.txt) mappings, as crushtool --test"
if [ $python_module = 1 ]; then
  python3 -c "import crushkit
m = crushkit.CrushMap.from_binary(open('compiled.bin', 'rb').read())
for x in range(100):
    print('CRUSH rule 0 x %d [%s]' % (x, ','.join(map(str, m.do_rule(0, x, 3)))))" > py.txt
  cmp py.txt cli.txt || { diff py.txt cli.txt | head; exit 1; }
  echo "   import crushkit (/usr/lib/python3/dist-packages): \$(wc -l < py.txt) mappings, as crushtool --test"
fi
EOF

stamp "clean Debian 12 root (mmdebstrap --variant=apt bookworm, $mirror); install the .deb with apt; run"
if ! mmdebstrap --variant=apt --mode=root --quiet \
  --customize-hook="copy-in $work/in-root /root" \
  --customize-hook='mv "$1/root/in-root" "$1/root/check"' \
  --customize-hook='chroot "$1" sh /root/check/check.sh' \
  bookworm /dev/null "$mirror" > "$work/mmdebstrap.log" 2>&1; then
  cat "$work/mmdebstrap.log"
  fail "in the Debian 12 root (above: mmdebstrap's log and the checks' output)"
fi
grep '^   ' "$work/mmdebstrap.log" || true
stamp "check-deb: OK ($(basename "$deb"))"
