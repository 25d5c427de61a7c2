#!/usr/bin/env python3
"""Call circles between the core's files, for tests/analyse.sh.

A circle: file A uses a function or table file B defines (not static) and
B, or a file B reaches, uses one A defines. Read from the sources, so it sees
what the code uses, not what the headers declare: each file is run through
the C preprocessor first (CPP, default "cc -E", with CIRCLES_CPPFLAGS), so a
use through a macro (the helper's request table, JP_HELPER_REQUESTS) counts,
and only the text that comes from the file itself is read. Then comments,
strings and character constants go in one pass (a "//" inside a string
is no comment). A use is any mention of the name, not only a call: a
function put in a table or handed on as a callback counts. Prints one line
per circle, its files sorted ("circle: a.c b.c"), and under it the names
that make it; exits 0 when every circle is in the allowed list
(tests/circles.known: a dispatcher and its backends, each with its reason),
1 otherwise (2 when a file cannot be read).
usage: circles.py SRCDIR KNOWN [BUILDDIR]
"""
import concurrent.futures
import glob
import os
import re
import shlex
import subprocess
import sys


def strip_c(text):
    """Comments, strings and character constants out, in one pass."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '/' and text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(' ' + '\n' * text.count('\n', i, j))
            i = j
        elif c == '/' and text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def preprocess(path, srcdir, builddir):
    """The file's own text after the preprocessor (its headers' left out)."""
    cpp = shlex.split(os.environ.get('CPP') or 'cc -E')
    flags = ['-DHAVE_CONFIG_H', '-I' + builddir, '-I' + os.path.dirname(srcdir),
             '-I' + os.path.join(os.path.dirname(srcdir), 'include'), '-I' + srcdir]
    flags += shlex.split(os.environ.get('CIRCLES_CPPFLAGS', ''))
    r = subprocess.run(cpp + flags + [path], capture_output=True, text=True, errors='replace')
    if r.returncode != 0:
        sys.stderr.write('circles: %s does not preprocess (CIRCLES_CPPFLAGS?):\n%s' % (path, r.stderr[-2000:]))
        return None
    own, keep, lines = os.path.realpath(path), False, []
    for line in r.stdout.split('\n'):
        m = re.match(r'^# \d+ "(.*)"', line)
        if m:
            keep = os.path.realpath(m.group(1)) == own if m.group(1)[:1] != '<' else False
            continue
        if keep:
            lines.append(line)
    return '\n'.join(lines)


def read_sources(srcdir, builddir):
    paths = sorted(glob.glob(os.path.join(srcdir, '*.c')))
    jobs = max(1, int(os.environ.get('JP_ANALYSE_JOBS') or 2))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        texts = list(pool.map(lambda p: preprocess(p, srcdir, builddir), paths))
    if any(t is None for t in texts):
        return None
    return {os.path.basename(p): strip_c(t) for p, t in zip(paths, texts)}


IDENT = re.compile(r'[A-Za-z_]\w*')


def definitions(src):
    """Functions and tables defined outside any braces, not static."""
    defs = {}
    for name, text in src.items():
        depth = 0  # of { }
        prefix_start = 0  # where the declaration being read starts
        i, n = 0, len(text)
        last_ident = None
        while i < n:
            c = text[i]
            if c == '{':
                depth += 1
            elif c == '}':
                depth -= 1
                if depth == 0:
                    prefix_start = i + 1
                    # "} x;" after a struct: the declaration goes on
                    j = i + 1
                    while j < n and text[j].isspace():
                        j += 1
                    if j < n and text[j] != ';' and not IDENT.match(text, j):
                        pass
            elif depth == 0 and c == ';':
                prefix_start = i + 1
            elif depth == 0 and c == '(':
                fn = last_ident
                # its balanced parentheses, then "{": a definition
                d, j = 1, i + 1
                while j < n and d:
                    d += {'(': 1, ')': -1}.get(text[j], 0)
                    j += 1
                k = j
                while k < n and text[k].isspace():
                    k += 1
                prefix = text[prefix_start:i]
                if fn and k < n and text[k] == '{' and not re.search(r'\b(static|typedef)\b', prefix):
                    defs.setdefault(fn, name)
                i = j
                continue
            elif depth == 0 and c == '=':
                prefix = text[prefix_start:i]
                m = re.search(r'(\w+)\s*(\[[^\]]*\]\s*)*$', prefix)
                if m and not re.search(r'\b(static|typedef|extern)\b', prefix):
                    defs.setdefault(m.group(1), name)
                # the initializer: to its ";" at this depth
                d, j = 0, i + 1
                while j < n and not (d == 0 and text[j] == ';'):
                    d += {'{': 1, '(': 1, '}': -1, ')': -1}.get(text[j], 0)
                    j += 1
                prefix_start = j + 1
                i = j + 1
                continue
            m = IDENT.match(text, i) if (c.isalpha() or c == '_') else None
            if m:
                last_ident = m.group(0)
                i = m.end()
                continue
            if not c.isspace():
                last_ident = None if c not in '*' else last_ident
            i += 1
    return defs


def edges_of(src, defs):
    edges = {f: {} for f in src}
    for f, text in src.items():
        # every mention of a name (a call, a table's entry, a callback
        # handed on), but a member's (s.name, p->name)
        for m in re.finditer(r'(?<![\w.>])(\w+)', text):
            if text[m.start() - 2:m.start()] == '->':
                continue
            g = defs.get(m.group(1))
            if g and g != f:
                edges[f].setdefault(g, set()).add(m.group(1))
    return edges


def circles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def main():
    srcdir, known_path = os.path.abspath(sys.argv[1]), sys.argv[2]
    builddir = os.path.abspath(sys.argv[3] if len(sys.argv) > 3 else os.path.dirname(srcdir))
    known = set()
    with open(known_path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                known.add(' '.join(sorted(line.split())))
    src = read_sources(srcdir, builddir)
    if src is None:
        return 2
    edges = edges_of(src, definitions(src))
    bad = 0
    found = circles(edges)
    for k in sorted(known - {' '.join(c) for c in found}):
        print('# no longer a circle, its line in %s can go: %s' % (os.path.basename(known_path), k))
    for comp in found:
        key = ' '.join(comp)
        allowed = key in known
        bad += not allowed
        print('circle: %s%s' % (key, '' if allowed else '  (not in %s)' % os.path.basename(known_path)))
        for a in comp:
            for b in sorted(edges[a]):
                if b in comp:
                    print('   %s -> %s: %s' % (a, b, ' '.join(sorted(edges[a][b]))))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
