#!/usr/bin/env python3
"""Lists functions over 80 lines and files over 600 lines that carry no marker.

Issue 37's rule for the libraries (crush/, compiler/, osdmap/, tools/ without tools/dev/; tests, benchmarks and fuzz
targets excluded): a function is at most ~80 lines and a file at most ~600, unless it says why.
- A function may be longer when it mirrors a Ceph function line by line. Mark it with a comment directly above its
  definition (in the comment block that ends on the line before it):
      // Mirrors Ceph's pg_pool_t::decode() (src/osd/osd_types.cc) line by line.
  or, for anything else that is long on purpose (a usage text kept verbatim, a data table):
      // Long because: <reason>.
- A file may be longer when its opening comment (the comment lines before its first line of code) holds
  `Long because: <reason>`.

Functions are found by brace matching on the source with comments and string literals blanked, so methods inside
class bodies, constructors and namespace-scope lambdas count too; a function's length runs from the first line of
its signature to its closing brace. Lambdas inside a function count towards that function.

Usage: check-lengths.py [--all] [--max-function N] [--max-file N] [REPO]
  --all   also lists the marked ones (with their marker)
Exit status: 1 when anything unmarked is over a limit, 0 otherwise.
"""
import argparse
import pathlib
import re
import sys

FOLDERS = ('crush', 'compiler', 'osdmap', 'tools')
SKIP_DIRS = ('tools/dev',)
SKIP_SUFFIXES = ('_test.cc', '_benchmark.cc', '_fuzzer.cc', '_test_util.h', '_test.h')
FUNCTION_MARKER = re.compile(r"//\s*(Mirrors Ceph's .+ line by line|Long because:)")
FILE_MARKER = re.compile(r'Long because:')
KEYWORDS_NOT_FUNCTIONS = ('if', 'for', 'while', 'switch', 'catch', 'return', 'sizeof', 'decltype', 'alignof',
                          'static_assert', 'requires')


def blank(text):
    """Returns `text` with comments, string and character literals replaced by spaces (newlines kept)."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == 'R' and text.startswith('"', i + 1) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')
                                                            or text[i - 1] in 'u8LU'):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(')' + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c in '"\'':
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum() and \
                    re.match(r"[0-9a-fA-F]", text[i - 1]) and re.match(r'[0-9]', text[i + 1]):
                out.append(' ')
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + ' ' * (j - i - 2) + c if j - i >= 2 else ' ' * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def looks_like_function(signature):
    """True when the declaration text before a '{' is a function definition's signature."""
    s = signature.strip()
    if '(' not in s or not re.search(r'\)\s*(const|noexcept(\([^)]*\))?|override|final|mutable|&|&&|\s)*'
                                     r'(->\s*[^{;=]+)?$', s) and not re.search(r'\)\s*:\s*[^;]*$', s):
        return False
    if re.search(r'(^|[^=!<>])=\s*[^=]', s.split('(')[0]) and '[' in s:
        return True  # a namespace-scope lambda
    head = s.split('(')[0].split()
    return bool(head) and head[-1] not in KEYWORDS_NOT_FUNCTIONS


def function_name(signature):
    s = ' '.join(signature.split())
    m = re.search(r'(operator\s*\S+?|~?[A-Za-z_][\w:<>,~ ]*?)\s*\(', s)
    name = m.group(1).split()[-1] if m else s[:40]
    return name


def scan(path):
    """Yields (first_line, last_line, name) for every function definition in the file (1-based lines)."""
    text = path.read_text(errors='replace')
    code = blank(text)
    line_of = []
    line = 1
    for ch in code:
        line_of.append(line)
        if ch == '\n':
            line += 1
    stack = []  # scope kinds: 'ns', 'class', 'func', 'other'
    decl_start = 0  # index where the current declaration at namespace/class scope began
    func_start = None
    func_sig = ''
    i = 0
    n = len(code)
    while i < n:
        c = code[i]
        in_body = any(k == 'func' for k in stack)
        if c == '{':
            if in_body:
                stack.append('other')
            else:
                sig = code[decl_start:i]
                if re.search(r'\bnamespace\b', sig) or re.search(r'\bextern\s+"', text[decl_start:i]):
                    stack.append('ns')
                    decl_start = i + 1
                elif re.search(r'\b(class|struct|union|enum)\b[^(=]*$', sig) and not looks_like_function(sig):
                    stack.append('class')
                    decl_start = i + 1
                elif looks_like_function(sig):
                    stack.append('func')
                    func_start = decl_start
                    func_sig = sig
                else:
                    stack.append('other')  # an initializer; the declaration goes on after it
        elif c == '}':
            kind = stack.pop() if stack else 'ns'
            if kind == 'func' and not any(k == 'func' for k in stack):
                first = func_start
                while first < i and code[first].isspace():
                    first += 1
                yield line_of[first], line_of[i], function_name(func_sig), first
                decl_start = i + 1
            elif kind in ('ns', 'class'):
                decl_start = i + 1
        elif c == ';' and not in_body:
            decl_start = i + 1
        elif c == '#' and not in_body and (i == 0 or code[i - 1] == '\n'):
            # A preprocessor line (possibly continued) is not part of a declaration.
            j = i
            while True:
                e = code.find('\n', j)
                if e < 0:
                    e = n
                    break
                if code[e - 1] != '\\':
                    break
                j = e + 1
            i = e
            decl_start = e
            continue
        elif c == ':' and not in_body and re.search(r'\b(public|private|protected)\s*$', code[decl_start:i]):
            decl_start = i + 1
        i += 1


def marker_above(lines, first_line):
    """The marker in the comment block ending right above line `first_line` (1-based), or None."""
    k = first_line - 2
    while k >= 0 and (lines[k].strip().startswith('template') or lines[k].strip().startswith('[[')):
        k -= 1
    while k >= 0 and lines[k].lstrip().startswith('//'):
        m = FUNCTION_MARKER.search(lines[k])
        if m:
            return lines[k].strip()
        k -= 1
    return None


def file_marker(lines):
    for ln in lines:
        s = ln.strip()
        if not s:
            continue
        if not (s.startswith('//') or s.startswith('/*') or s.startswith('*')):
            return None
        if FILE_MARKER.search(s):
            return s
    return None


def sources(repo):
    for folder in FOLDERS:
        for p in sorted((repo / folder).rglob('*')):
            if p.suffix not in ('.cc', '.h') or not p.is_file():
                continue
            rel = p.relative_to(repo).as_posix()
            if any(rel.startswith(d + '/') for d in SKIP_DIRS) or p.name.endswith(SKIP_SUFFIXES):
                continue
            if '/testdata/' in rel or '/test/' in rel:
                continue
            yield p, rel


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--all', action='store_true')
    ap.add_argument('--max-function', type=int, default=80)
    ap.add_argument('--max-file', type=int, default=600)
    ap.add_argument('repo', nargs='?')
    args = ap.parse_args()
    repo = pathlib.Path(args.repo).resolve() if args.repo else pathlib.Path(__file__).resolve().parents[2]
    long_files = []
    long_functions = []
    for p, rel in sources(repo):
        lines = p.read_text(errors='replace').split('\n')
        count = len(lines) - (1 if lines and lines[-1] == '' else 0)
        if count > args.max_file:
            long_files.append((count, rel, file_marker(lines)))
        for first, last, name, _ in scan(p):
            length = last - first + 1
            if length > args.max_function:
                long_functions.append((length, f'{rel}:{first}', name, marker_above(lines, first)))
    bad = 0
    print(f'files over {args.max_file} lines:')
    for count, rel, marker in sorted(long_files, reverse=True):
        if marker is None or args.all:
            print(f'  {count:5d} {rel}' + (f'  [{marker}]' if marker else ''))
        bad += marker is None
    print(f'functions over {args.max_function} lines:')
    for length, loc, name, marker in sorted(long_functions, reverse=True):
        if marker is None or args.all:
            print(f'  {length:5d} {loc} {name}' + (f'  [{marker}]' if marker else ''))
        bad += marker is None
    marked_files = sum(1 for f in long_files if f[2])
    marked_functions = sum(1 for f in long_functions if f[3])
    print(f'{len(long_files) - marked_files} unmarked long files ({marked_files} marked), '
          f'{len(long_functions) - marked_functions} unmarked long functions ({marked_functions} marked)')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
