#!/usr/bin/env python3
"""fuzz/v2_seed.py OUT - writes a small version 2 .stance file (a 3-joint
skeleton, one clip, a skin, a skinned mesh with uvs and a rigid mesh),
built from the layout documented in include/stance/asset.h,
src/core/load/asset.c and src/core/load/asset_mesh.c, as a seed for fuzz/fuzz_asset.c."""
import math
import struct
import sys


def name(s):
    b = s.encode()
    return struct.pack("<B", len(b)) + b


def section(tag, body):
    return tag + struct.pack("<IQ", 0, len(body)) + body


def fnv1a64(data):
    h = 14695981039346656037
    for c in data:
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def f32(*v):
    return struct.pack("<%df" % len(v), *v)


skel = struct.pack("<I", 3)
for nm, parent, t in (("root", -1, (0, 0, 0)), ("spine", 0, (0, 1, 0)), ("head", 1, (0, 0.5, 0))):
    skel += name(nm) + struct.pack("<i", parent) + f32(*t, 0, 0, 0, 1, 1, 1, 1)

h = math.sqrt(0.5)
clip = name("nod") + f32(1.0) + struct.pack("<I", 0) + f32(0.0)
clip += struct.pack("<I", 3) + f32(0.0, 0.5, 1.0)
clip += bytes([0, 2, 0]) + struct.pack("<3I", 1, 3, 1)
clip += f32(0, 0, 0, 1, h, 0, 0, h, 0, 0, 0, 1)
clip += struct.pack("<I", 1) + name("tick") + f32(0.5) + struct.pack("<I", 0)

skin = name("body") + struct.pack("<I", 2) + struct.pack("<2I", 1, 2)
skin += f32(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1)
skin += f32(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1.5, 0, 1)

# a tetrahedron
pos = [(0, 1, 0), (1, 1.5, 0), (0, 1.5, 1), (0, 2, 0)]
tris = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]
nrm = []
for p in pos:
    c = [sum(q[i] for q in pos) / 4 for i in range(3)]
    d = [p[i] - c[i] for i in range(3)]
    l = math.sqrt(sum(x * x for x in d))
    nrm.append([x / l for x in d])


def mesh(nm, skin_index, uvs):
    b = name(nm) + struct.pack("<iIII", skin_index, 1 if uvs else 0, len(pos), len(tris))
    b += f32(0.7, 0.5, 0.3, 1.0)
    b += b"".join(f32(*p) for p in pos) + b"".join(f32(*n) for n in nrm)
    if uvs:
        b += b"".join(f32(0.25 * i, 1 - 0.25 * i) for i in range(len(pos)))
    if skin_index >= 0:
        b += b"".join(struct.pack("<4H", i % 2, (i + 1) % 2, 0, 0) for i in range(len(pos)))
        b += b"".join(f32(0.75, 0.25, 0, 0) for _ in pos)
    return b + struct.pack("<%dI" % len(tris), *tris)


payload = section(b"SKEL", skel) + section(b"CLIP", clip) + section(b"SKIN", skin)
payload += section(b"MESH", mesh("tetra", 0, True)) + section(b"MESH", mesh("prop", -1, False))
head = b"STANCE\0\0" + struct.pack("<IIQQ", 2, 0, len(payload), fnv1a64(payload))
with open(sys.argv[1], "wb") as f:
    f.write(head + payload)
