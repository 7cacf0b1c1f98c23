#!/usr/bin/env bash
# Regenerates the committed seed corpora under tests/fuzz/corpus/ from the
# shared compat data (../shared/compat) and from maps Ceph's crushtool and
# osdmaptool write. Run from anywhere: bash tests/fuzz/make_seeds.sh
# Seeds are small (files > 16 KB are skipped; total well under 2 MB) and
# named by content hash, so re-running is idempotent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
compat=${COMPAT_DIR:-$here/../../../shared/compat}
ct=$compat/ceph-cli-tests/pacific/crushtool
corpus=$here/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CEPH_ARGS="--crash_dir=$tmp/crash"
max=16384

put() {  # put TARGET FILE: copy FILE into the corpus under its hash
  local size
  size=$(stat -c %s "$2")
  if ((size > 0 && size <= max)); then
    cp "$2" "$corpus/$1/$(sha1sum "$2" | cut -c1-16)"
  fi
}

mkdir -p "$corpus"/{decode,compile,mapper,osdmap_import,crushtool_args}

# Binary maps: the compat ones, crushtool -c of every text map, and
# crushtool --build with each bucket algorithm.
text_maps=()
for f in "$ct"/*.crushmap.txt "$ct"/*.crush "$ct"/straw2.txt "$ct"/rules.txt \
         "$ct"/show-choose-tries.txt "$compat"/examples/*.crush.txt; do
  [[ -f $f ]] && text_maps+=("$f")
done
n=0
for f in "${text_maps[@]}"; do
  put compile "$f"
  if timeout 20 crushtool -c "$f" -o "$tmp/c$n" >/dev/null 2>&1; then put decode "$tmp/c$n"; fi
  n=$((n + 1))
done
for f in "$ct"/*.crushmap "$ct"/foo "$ct"/simple.template* "$ct"/tree.template* \
         "$ct"/crush-classes/{a,c,d,e,flax} "$compat"/examples/*.crushmap; do
  [[ -f $f ]] || continue
  put decode "$f"
  if timeout 20 crushtool -d "$f" -o "$tmp/d$n" >/dev/null 2>&1; then put compile "$tmp/d$n"; fi
  n=$((n + 1))
done
for alg in uniform list tree straw straw2; do
  timeout 20 crushtool --outfn "$tmp/b-$alg" --build --num_osds 12 \
    host "$alg" 3 rack "$alg" 2 root "$alg" 0 >/dev/null 2>&1 && put decode "$tmp/b-$alg"
done

# osd dump JSON (+ separator + crush map) from osdmaptool.
om=$compat/examples/om8-pg128-pgp64.osdmap
if [[ -f $om ]]; then
  timeout 20 osdmaptool "$om" --dump json >"$tmp/om.json" 2>/dev/null
  timeout 20 osdmaptool "$om" --export-crush "$tmp/om.crush" >/dev/null 2>&1
  put osdmap_import "$tmp/om.json"
  { cat "$tmp/om.json"; printf '\n--crush--\n'; cat "$tmp/om.crush"; } >"$tmp/om.both"
  put osdmap_import "$tmp/om.both"
fi
timeout 20 osdmaptool --createsimple 6 --with-default-pool "$tmp/simple.om" --clobber >/dev/null 2>&1 &&
  timeout 20 osdmaptool "$tmp/simple.om" --dump json >"$tmp/simple.json" 2>/dev/null &&
  put osdmap_import "$tmp/simple.json"

# Crush dumps (ceph osd crush dump -f json): crushtool --dump of the sample
# maps and of random maps, and the committed Ceph dumps.
mkdir -p "$corpus/crush_dump_json"
for f in "$here"/../../samples/*.crush; do
  timeout 20 crushtool -c "$f" -o "$tmp/cd.bin" >/dev/null 2>&1 &&
    timeout 20 crushtool -i "$tmp/cd.bin" --dump --format json >"$tmp/cd.json" 2>/dev/null &&
    put crush_dump_json "$tmp/cd.json"
done
python3 "$here/../differential/gen_maps.py" --seed 3 --count 12 --out "$tmp/gm" >/dev/null
for i in $(seq 0 11); do
  timeout 20 crushtool -c "$tmp/gm/map-$i.txt" -o "$tmp/gm/$i.bin" >/dev/null 2>&1 &&
    timeout 20 crushtool -i "$tmp/gm/$i.bin" --dump --format json >"$tmp/gm/$i.json" 2>/dev/null &&
    put crush_dump_json "$tmp/gm/$i.json"
done
for f in "$here"/../data/crush-dump/*.json "$here"/../data/loopback-pacific/crush-dump.json; do
  [[ -f $f ]] && put crush_dump_json "$f"
done

# Binary osdmaps: the committed golden maps (osdmaptool 16.2, Reef,
# Tentacle) and the shared example.
mkdir -p "$corpus/osdmap_binary"
for f in "$here"/../golden/osdmap_binary/*.osdmap "$om"; do
  [[ -f $f ]] && put osdmap_binary "$f"
done

# crushtool command lines from the cram tests, NUL-separated.
python3 - "$ct" "$corpus/crushtool_args" <<'PY'
import hashlib, os, shlex, sys
src, out = sys.argv[1], sys.argv[2]
seen = set()
for name in sorted(os.listdir(src)):
    if not name.endswith('.t'):
        continue
    for line in open(os.path.join(src, name), errors='replace'):
        line = line.strip()
        if not line.startswith('$ crushtool '):
            continue
        cmd = line[len('$ crushtool '):].split('|')[0].split('>')[0].split('2>')[0]
        try:
            args = shlex.split(cmd)
        except ValueError:
            continue
        data = '\0'.join(args).encode()
        if data in seen or len(seen) >= 80:
            continue
        seen.add(data)
        open(os.path.join(out, hashlib.sha1(data).hexdigest()[:16]), 'wb').write(data)
PY

# Structured mapper seeds: a few random byte strings of different lengths.
python3 - "$corpus/mapper" <<'PY'
import hashlib, os, random, sys
rng = random.Random(20261202)
for n in (16, 64, 128, 256, 512, 1024, 2048, 4096):
    for _ in range(2):
        data = bytes(rng.randrange(256) for _ in range(n))
        open(os.path.join(sys.argv[1], hashlib.sha1(data).hexdigest()[:16]), 'wb').write(data)
PY
du -sh "$corpus"/*
