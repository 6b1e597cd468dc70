#!/usr/bin/env python3
# The call graph between harness/'s files, from their objects' symbols (nm):
# prints each circle (files that call each other, directly or round a loop)
# and its edges; nothing when there is none. Usage: callgraph.py BUILD_DIR
import subprocess, sys, glob, os, collections
B = sys.argv[1]
objs = sorted(glob.glob(B + '/harness/*/*.o'))
defs, uses = {}, collections.defaultdict(set)
for o in objs:
    name = o[len(B) + len('/harness/'):-2]
    for line in subprocess.run(['nm', o], capture_output=True, text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'TDRB':
            defs[parts[2]] = name
        elif len(parts) == 2 and parts[0] == 'U':
            uses[name].add(parts[1])
g = collections.defaultdict(set)
for f, syms in uses.items():
    for s in syms:
        d = defs.get(s)
        if d and d != f:
            g[f].add(d)
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
