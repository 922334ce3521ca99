#!/usr/bin/env python3
"""tests/check_circles.py - no circle of files in src/ (issue 23).

Builds the graph of src/ files: an edge A -> B when A #includes B (a src/
header) or when A's object uses a symbol B's object defines (`nm`: A's
undefined symbols against every object's defined ones). A circle is a
strongly connected component of more than one file: files that call or
include one another in a loop. Every circle must be one of the KNOWN ones
below (each a set of files and who removes it); any other fails the test,
with one loop through it spelled out. A known circle that is gone is said
(remove its entry: the check tightens).

The folders of src/core are layers: a file of one folder may use (include
or call) only files of its own folder and of the folders before it in
LAYERS. A use that goes up the list fails the test, naming the two files and
why (issue 23 item 4: folders that show the layers). A folder of src/core
that LAYERS does not list fails too.

usage: check_circles.py SOURCE_DIR BUILD_DIR
"""
import glob
import os
import re
import subprocess
import sys

# src/core's folders, lowest first (README "Layout", docs/frame.md).
LAYERS = ["base", "math", "rig", "clip", "ik", "graph", "load", "frame", "control", "lod"]

# Known circles: (files, who removes it). A component passes when all its
# files are in one entry. Patterns are fnmatch-style paths under src/.
KNOWN = [
    # none left (issue 23 item 4 removed the last seven); an entry is
    # (["dir/file.c", ...], "who removes it and when")
]


def src_files(src):
    out = []
    for ext in ("c", "cpp", "h"):
        out += glob.glob(os.path.join(src, "**", "*." + ext), recursive=True)
    return sorted(os.path.relpath(p, src) for p in out)


def object_of(build, rel):
    hits = glob.glob(os.path.join(build, "CMakeFiles", "*.dir", "src", rel + ".o"))
    return hits[0] if hits else None


def symbols(obj):
    """(defined, undefined) external symbols of one object."""
    text = subprocess.run(["nm", "-g", "-C", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in text.splitlines():
        if line[:1].isspace():  # "                 U name" (names may hold spaces: C++)
            parts = line.split(None, 1)
            if len(parts) == 2 and parts[0] == "U":
                undefined.add(parts[1])
            continue
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[1] not in ("U", "w", "v"):
            defined.add(parts[2])
    return defined, undefined


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def includes(src, rel, files):
    found = set()
    here = os.path.dirname(rel)
    with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
        for line in f:
            m = INCLUDE.match(line)
            if not m:
                continue
            for cand in (m.group(1), os.path.normpath(os.path.join(here, m.group(1)))):
                if cand in files:
                    found.add(cand)
                    break
    return found


def components(nodes, edges):
    """Tarjan's strongly connected components, without recursion."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def loop_in(comp, edges, why):
    """One loop through the component's first file, each step with its reason."""
    members, start = set(comp), comp[0]
    prev, frontier = {start: None}, [start]
    while frontier:  # breadth first from start back to start
        nxt = []
        for v in frontier:
            for w in sorted(edges[v]):
                if w not in members:
                    continue
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    path.reverse()
                    path.append(start)
                    return " -> ".join(f"{a} ({why[(a, b)]})" for a, b in zip(path, path[1:])) + f" -> {start}"
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return " ".join(comp)


def layer_of(f):
    """f's index in LAYERS, -1 for an unlisted folder of src/core, None outside src/core's folders."""
    parts = f.split("/")
    if len(parts) < 3 or parts[0] != "core":
        return None
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else -1


def known_entry(comp):
    import fnmatch
    for k, (pats, who) in enumerate(KNOWN):
        if all(any(fnmatch.fnmatch(f, p) for p in pats) for f in comp):
            return k
    return -1


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1])
        return 2
    src, build = os.path.join(sys.argv[1], "src"), sys.argv[2]
    files = src_files(src)
    fileset = set(files)
    edges = {f: set() for f in files}
    why = {}
    defined_by, undefined = {}, {}
    missing = []
    for f in files:
        for inc in includes(src, f, fileset):
            if inc != f:
                edges[f].add(inc)
                why[(f, inc)] = "includes it"
        if f.endswith(".h"):
            continue
        obj = object_of(build, f)
        if not obj:
            missing.append(f)
            continue
        d, u = symbols(obj)
        undefined[f] = u
        for s in d:
            defined_by.setdefault(s, f)
    if missing:
        # every source file of src/ has an object in the build (the glob lists them all)
        print("check_circles: no object for: " + ", ".join(missing) + f" (under {build}/CMakeFiles/*.dir/src/)")
        return 1
    for f, u in undefined.items():
        for s in sorted(u):
            g = defined_by.get(s)
            if g and g != f:
                if (f, g) not in why or why[(f, g)] == "includes it":
                    why[(f, g)] = f"calls {s}" if (f, g) not in why else why[(f, g)] + f", calls {s}"
                edges[f].add(g)
    comps = [c for c in components(files, edges) if len(c) > 1]
    bad_layers = 0
    for f in files:
        lf = layer_of(f)
        if lf is None:
            continue
        if lf < 0:
            print(f"LAYER: {f} is in a folder of src/core that LAYERS in tests/check_circles.py does not list")
            bad_layers += 1
            continue
        for g in sorted(edges[f]):
            lg = layer_of(g)
            if lg is not None and lg > lf:
                print(f"LAYER: {f} ({LAYERS[lf]}) uses {g} ({LAYERS[lg]}, a later layer): {why[(f, g)]}")
                bad_layers += 1
    bad, seen = 0, set()
    for c in comps:
        k = known_entry(c)
        if k >= 0:
            seen.add(k)
            print(f"known circle ({KNOWN[k][1]}): {', '.join(c)}")
            continue
        bad += 1
        print(f"CIRCLE of {len(c)} files: {loop_in(c, edges, why)}")
    for k, (pats, who) in enumerate(KNOWN):
        if k not in seen:
            print(f"note: the known circle {', '.join(pats)} is gone: remove its entry from tests/check_circles.py")
    edge_count = sum(len(e) for e in edges.values())
    print(f"check_circles: {len(files)} files of src/, {edge_count} edges, {len(comps)} circles, {bad} not known; "
          f"{bad_layers} uses against src/core's layers ({' < '.join(LAYERS)})")
    return 1 if bad or bad_layers else 0


if __name__ == "__main__":
    sys.exit(main())
