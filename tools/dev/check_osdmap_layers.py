#!/usr/bin/env python3
"""Fails when a library file in an osdmap/ job folder includes a folder above it.

The layers (osdmap/README.md): model <- formats, changes <- planning, balancer.
Each folder's README says what it may include; this keeps that true.
Usage: check_osdmap_layers.py [REPO]   (default: this script's repository)
"""
import pathlib
import re
import sys

ALLOWED = {
    'model': {'model'},
    'formats': {'model', 'formats', 'proto'},
    'changes': {'model', 'changes'},
    'planning': {'model', 'formats', 'changes', 'planning', 'proto'},
    'balancer': {'model', 'formats', 'changes', 'balancer', 'proto'},
}
INCLUDE = re.compile(r'^#include "osdmap/([a-z_]+)/', re.M)


def main():
    repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else __file__).resolve()
    if repo.is_file():
        repo = repo.parents[2]
    bad = []
    checked = 0
    for job, allowed in ALLOWED.items():
        folder = repo / 'osdmap' / job
        if not folder.is_dir():
            bad.append(f'{folder}: missing')
            continue
        for path in sorted(folder.glob('*.[ch]*')):
            if path.stem.endswith(('_test', '_benchmark')):
                continue  # tests load their inputs through any layer
            checked += 1
            for n, line in enumerate(path.read_text().splitlines(), 1):
                m = INCLUDE.match(line)
                if m and m.group(1) not in allowed:
                    bad.append(f'{path.relative_to(repo)}:{n}: osdmap/{job} may not include '
                               f'osdmap/{m.group(1)}/ (allowed: {", ".join(sorted(allowed))})')
    for b in bad:
        print(b, file=sys.stderr)
    print(f'osdmap layers: {checked} files, {len(bad)} violations')
    return 1 if bad or checked == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
