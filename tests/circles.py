#!/usr/bin/env python3
"""Call circles between the core's files, for tests/analyse.sh.

A circle: file A calls a function file B defines (not static) and B, or a
file B reaches, calls one A defines. Read from the sources as text (comments
and strings left out), so it sees what the code calls, not what the headers
declare. Prints one line per circle, its files sorted ("circle: a.c b.c"),
and under it the calls that make it; exits 0 when every circle is in the
allowed list (tests/circles.known: a dispatcher and its backends, each with
its reason), 1 otherwise.
usage: circles.py SRCDIR KNOWN
"""
import glob
import os
import re
import sys


def read_sources(srcdir):
    src = {}
    for path in sorted(glob.glob(os.path.join(srcdir, '*.c'))):
        with open(path, errors='replace') as f:
            text = f.read()
        text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
        text = re.sub(r'//[^\n]*', '', text)
        text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
        src[os.path.basename(path)] = text
    return src


def definitions(src):
    defs = {}
    for name, text in src.items():
        # a definition starts a line: a type, then the name and "(";
        # "static" ones are the file's own
        for m in re.finditer(r'^(?!static\b)[A-Za-z_][\w \*]*?\b(\w+)\(', text, re.M):
            defs.setdefault(m.group(1), name)
    return defs


def edges_of(src, defs):
    edges = {f: {} for f in src}
    for f, text in src.items():
        for m in re.finditer(r'\b(\w+)\s*\(', text):
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
    srcdir, known_path = sys.argv[1], sys.argv[2]
    known = set()
    with open(known_path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                known.add(' '.join(sorted(line.split())))
    src = read_sources(srcdir)
    edges = edges_of(src, definitions(src))
    bad = 0
    for comp in circles(edges):
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
