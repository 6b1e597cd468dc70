#!/usr/bin/env python3
# The call graph between a program's source files, from their objects'
# symbols (nm): prints each circle (files that call each other, directly or
# round a loop) and its edges; nothing when there is none.
#
# Usage: callgraph.py [--layers SPEC] OBJ_DIR SRC_DIR
#   OBJ_DIR/NAME.o (any depth) is the object of SRC_DIR/NAME.c; an object
#   whose source is gone (a file moved since the last build) is left out.
#   build/harness harness: harness/'s files, named "vm/vm"; build/guest guest:
#   the guest agent's.
#   --layers "lib | boot trace | run": the folders, lowest layer first, "|"
#   between layers; also prints each call from a folder to one of its own
#   layer or above ("up: FILE -> FILE: SYMBOL").
# Usage: callgraph.py BUILD_DIR is callgraph.py BUILD_DIR/harness harness.
import subprocess, sys, glob, os, collections

args = sys.argv[1:]
layers = None
if args[:1] == ['--layers']:
    layers, args = args[1], args[2:]
if len(args) == 1:
    args = [args[0] + '/harness', 'harness']
objdir, srcdir = args
objs = sorted(glob.glob(objdir + '/**/*.o', recursive=True))
defs, uses = {}, collections.defaultdict(set)
for o in objs:
    name = os.path.relpath(o, objdir)[:-2]
    if not os.path.exists(os.path.join(srcdir, name + '.c')):
        continue
    uses[name]
    for line in subprocess.run(['nm', o], capture_output=True, text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDRB':
            defs[parts[2]] = name
        elif len(parts) == 2 and parts[0] == 'U':
            uses[name].add(parts[1])
g = collections.defaultdict(set)
via = {}
for f, syms in uses.items():
    for s in sorted(syms):
        d = defs.get(s)
        if d and d != f:
            g[f].add(d)
            via.setdefault((f, d), s)
# strongly connected components (Tarjan)
idx, low, st, on, sccs, n = {}, {}, [], set(), [], [0]
def visit(v):
    idx[v] = low[v] = n[0]; n[0] += 1; st.append(v); on.add(v)
    for w in g[v]:
        if w not in idx:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        c = []
        while True:
            w = st.pop(); on.discard(w); c.append(w)
            if w == v: break
        if len(c) > 1: sccs.append(sorted(c))
sys.setrecursionlimit(10000)
for v in list(g):
    if v not in idx: visit(v)
for c in sccs:
    print('circle:', ' '.join(c))
    for a in c:
        for b in sorted(g[a] & set(c)):
            print('   %s -> %s' % (a, b))
if layers is not None:
    rank = {}
    for r, layer in enumerate(layers.split('|')):
        for folder in layer.split():
            rank[folder] = r
    for f in sorted(g):
        for d in sorted(g[f]):
            a, b = f.split('/')[0], d.split('/')[0]
            if a != b and rank.get(b, 1 << 30) >= rank.get(a, -1):
                print('up: %s -> %s: %s' % (f, d, via[(f, d)]))
