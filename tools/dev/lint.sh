#!/usr/bin/env bash
# The style checks CI runs (tools/dev/run-tests.sh calls `lint.sh`):
#   lint.sh              every C/C++ file git tracks is formatted as
#                        .clang-format says (Debian 12's clang-format 14);
#                        exit 1 listing the files that are not.
#   lint.sh --fix        formats them in place instead.
#   lint.sh --tidy BUILD also runs clang-tidy (.clang-tidy) on the library
#                        sources (crush/, compiler/, osdmap/) with BUILD's
#                        compile_commands.json; slow (minutes), so CI does
#                        not run it.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format > /dev/null || { echo "lint: clang-format is not installed (apt-get install -y clang-format)" >&2; exit 2; }

mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c')
case "${1:-}" in
  --fix)
    clang-format -i "${files[@]}"
    echo "lint: formatted ${#files[@]} files"
    exit 0
    ;;
  --tidy)
    build=${2:?usage: lint.sh --tidy BUILD_DIR}
    [[ -f "$build/compile_commands.json" ]] || { echo "lint: $build/compile_commands.json missing (configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)" >&2; exit 2; }
    mapfile -t libs < <(git ls-files 'crush/*.cc' 'compiler/*.cc' 'osdmap/*.cc' | grep -v '_test\.cc$\|_benchmark\.cc$\|_fuzzer\.cc$')
    clang-tidy -p "$build" --quiet "${libs[@]}"
    ;;
  "") ;;
  *) echo "usage: lint.sh [--fix | --tidy BUILD_DIR]" >&2; exit 2 ;;
esac

# One clang-format for all files; its warnings start with "FILE:LINE:COL".
mapfile -t bad < <(clang-format --dry-run "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning:.*/\1/p' | sort -u | grep -Fx -f <(printf '%s\n' "${files[@]}") || true)
if ((${#bad[@]})); then
  echo "lint: ${#bad[@]} file(s) not formatted as .clang-format says (fix: tools/dev/lint.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "lint: ${#files[@]} files formatted"
