#!/usr/bin/env python3
"""tests/rootmotion_files.py OUTDIR - writes the locomotion files of
tests/test_rootmotion.sh, the way DCC tools and mocap studios export them:
the character's travel in the hips track, no root bone, in centimetres or
metres, loops that do not close exactly.

The motion is made here from a gait (independently of stance): per foot a
stance phase (the foot still on the ground at the world spot under the hips
at mid-stance) and a swing phase (a raised arc to the next spot); the hips
travel along a path (straight, or turning at a constant rate) with a small
bob; each leg is solved with the two-bone law of cosines, the knee forward.
The feet's world positions are therefore exactly still while planted, up to
the mismatch a file asks for (extra hips travel spread over the cycle).

Formats, written from their specifications:
  BVH (Biovision): HIERARCHY / MOTION, Euler channels "Zrotation Xrotation
  Yrotation" (the rotation is Rz * Rx * Ry), the root with 6 channels.
  glTF 2.0: nodes with translation / rotation (x, y, z, w), one animation
  with LINEAR samplers, buffers as data: URIs; a centimetre file has the
  skeleton under a node scaled 0.01 (as exporters write it).
  COLLADA 1.4.1: <library_visual_scenes> of JOINT nodes with a <matrix
  sid="transform">, <library_animations> sampling float4x4 OUTPUT (row
  major) against INPUT times, LINEAR interpolation.

Prints one line per file: name, the hips' net horizontal travel per cycle
in metres (the reference the test compares the imported root path with),
the leg length in metres, and the cycle's duration."""
import base64
import json
import math
import struct
import sys

THIGH, SHIN, HIP_W, ANKLE_H, FPS = 0.45, 0.45, 0.1, 0.08, 60
JOINTS = ["Hips", "LeftUpLeg", "LeftLeg", "LeftFoot", "RightUpLeg", "RightLeg", "RightFoot", "Spine", "Head"]
PARENT = [-1, 0, 1, 2, 0, 4, 5, 0, 7]
HIPS_REST = 0.98


def rest_offset(i):
    return [(0.0, HIPS_REST, 0.0), (HIP_W, 0.0, 0.0), (0.0, -THIGH, 0.0), (0.0, -SHIN, 0.0),
            (-HIP_W, 0.0, 0.0), (0.0, -THIGH, 0.0), (0.0, -SHIN, 0.0), (0.0, 0.2, 0.0), (0.0, 0.4, 0.0)][i]


# ---- small vector / quaternion helpers ----------------------------------
def add(a, b): return tuple(x + y for x, y in zip(a, b))
def sub(a, b): return tuple(x - y for x, y in zip(a, b))
def mul(a, s): return tuple(x * s for x in a)
def dot(a, b): return sum(x * y for x, y in zip(a, b))
def norm(a):
    l = math.sqrt(dot(a, a))
    return mul(a, 1.0 / l)
def cross(a, b): return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def quat_from_cols(x, y, z):
    """Quaternion (x, y, z, w) of the rotation whose matrix columns are x, y, z."""
    m00, m01, m02 = x[0], y[0], z[0]
    m10, m11, m12 = x[1], y[1], z[1]
    m20, m21, m22 = x[2], y[2], z[2]
    tr = m00 + m11 + m22
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = ((m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s)
    elif m00 > m11 and m00 > m22:
        s = math.sqrt(1.0 + m00 - m11 - m22) * 2
        q = (0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s)
    elif m11 > m22:
        s = math.sqrt(1.0 + m11 - m00 - m22) * 2
        q = ((m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s)
    else:
        s = math.sqrt(1.0 + m22 - m00 - m11) * 2
        q = ((m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s)
    return qn(q)


def qn(q):
    l = math.sqrt(dot(q, q))
    q = mul(q, 1.0 / l)
    return q if q[3] >= 0 else mul(q, -1.0)


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def qconj(q): return (-q[0], -q[1], -q[2], q[3])


def qrot(q, v):
    p = qmul(qmul(q, (v[0], v[1], v[2], 0.0)), qconj(q))
    return p[:3]


def qyaw(a): return (0.0, math.sin(a / 2), 0.0, math.cos(a / 2))


def qmat(q):
    x, y, z, w = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


def euler_zxy(q):
    """Degrees (z, x, y) with R = Rz(z) Rx(x) Ry(y)."""
    m = qmat(q)
    # Rz Rx Ry: m[2][1] = sin x, m[0][1] = -sin z cos x, m[1][1] = cos z cos x,
    # m[2][0] = -cos x sin y, m[2][2] = cos x cos y
    x = math.asin(max(-1.0, min(1.0, m[2][1])))
    z = math.atan2(-m[0][1], m[1][1])
    y = math.atan2(-m[2][0], m[2][2])
    return math.degrees(z), math.degrees(x), math.degrees(y)


def q_from_euler_zxy(z, x, y):
    def ax(a, d):
        v = [0.0, 0.0, 0.0]
        v[a] = math.sin(math.radians(d) / 2)
        return (v[0], v[1], v[2], math.cos(math.radians(d) / 2))
    return qmul(qmul(ax(2, z), ax(0, x)), ax(1, y))


# ---- the gait ------------------------------------------------------------
class Gait:
    def __init__(self, speed, cycle, duty, lift, pelvis, turn_deg=0.0, mismatch=0.0, bob=0.015, drift=0.0):
        self.v, self.T, self.duty, self.lift, self.pelvis = speed, cycle, duty, lift, pelvis
        self.w = math.radians(turn_deg) / cycle  # yaw rate, rad/s
        self.mismatch, self.bob = mismatch, bob
        self.drift = drift  # a planted foot's slide forward, metres per metre the hips travel (0: still)

    def heading(self, t): return self.w * t

    def path(self, t):
        """The path's ground point (x, z) at time t (travel along the heading, +Z at 0)."""
        if abs(self.w) < 1e-12:
            return (0.0, self.v * t)
        return (self.v / self.w * (1 - math.cos(self.w * t)), self.v / self.w * math.sin(self.w * t))

    def hips(self, t):
        px, pz = self.path(t)
        h = self.heading(t)
        extra = self.mismatch * t / self.T  # the loop's mismatch: extra travel along the heading at 0
        y = self.pelvis + self.bob * math.cos(4 * math.pi * t / self.T)
        return (px, y, pz + extra), h

    def spot(self, side, t_mid):
        """The world spot a foot is planted on, for the stance centred at t_mid."""
        (hx, _, hz), h = self.hips(t_mid)
        lat = qrot(qyaw(h), (HIP_W * side, 0.0, 0.0))
        return (hx + lat[0], ANKLE_H, hz + lat[2])

    def planted(self, side, t_mid, t):
        """Where a planted foot is at time t of the stance centred at t_mid: on its spot, or with
        drift sliding forward along the heading at drift x the hips' speed (through the spot at t_mid)."""
        p = self.spot(side, t_mid)
        if self.drift == 0.0:
            return p
        d = qrot(qyaw(self.heading(t_mid)), (0.0, 0.0, self.drift * self.v * (t - t_mid)))
        return add(p, d)

    def foot(self, side, t):
        phase0 = 0.0 if side > 0 else 0.5
        u = (t / self.T - phase0) % 1.0
        c = math.floor(t / self.T - phase0)  # the cycle index of this stance
        st = (c + phase0) * self.T  # stance start
        half = self.duty * self.T / 2
        if u < self.duty:
            return self.planted(side, st + half, t), 1
        a = self.planted(side, st + half, st + 2 * half)  # where the stance ended
        b = self.planted(side, st + self.T + half, st + self.T)  # where the next one starts
        s = (u - self.duty) / (1 - self.duty)
        e = 0.5 - 0.5 * math.cos(math.pi * s)
        p = add(a, mul(sub(b, a), e))
        return (p[0], p[1] + self.lift * math.sqrt(math.sin(math.pi * s)), p[2]), 0  # the foot clears the ground quickly

    def pose(self, t):
        """Local rotations (quaternions) and the hips' translation, metres."""
        hp, h = self.hips(t)
        qh = qyaw(h)
        rots = [qh] + [None] * 8
        for side, (a, b, c) in ((1, (1, 2, 3)), (-1, (4, 5, 6))):
            f, _ = self.foot(side, t)
            F = qrot(qconj(qh), sub(f, hp))  # in the pelvis frame
            H = (HIP_W * side, 0.0, 0.0)
            d = sub(F, H)
            L = math.sqrt(dot(d, d))
            L = min(L, (THIGH + SHIN) * 0.9995)
            dn = norm(d)
            alpha = math.acos(max(-1.0, min(1.0, (THIGH * THIGH + L * L - SHIN * SHIN) / (2 * THIGH * L))))
            fwd = (0.0, 0.0, 1.0)
            n = norm(sub(fwd, mul(dn, dot(fwd, dn))))
            u = add(mul(dn, math.cos(alpha)), mul(n, math.sin(alpha)))  # thigh direction
            K = add(H, mul(u, THIGH))
            w = norm(sub(add(H, mul(dn, L)), K))  # shin direction
            y1 = mul(u, -1.0)
            z1 = norm(sub(n, mul(u, dot(n, u))))
            x1 = cross(y1, z1)
            q1 = quat_from_cols(x1, y1, z1)
            y2 = mul(w, -1.0)
            x2 = x1
            z2 = cross(x2, y2)
            q2w = quat_from_cols(x2, y2, z2)
            rots[a] = q1
            rots[b] = qn(qmul(qconj(q1), q2w))
            rots[c] = qn(qconj(q2w))  # the foot level in the pelvis frame
        rots[7] = rots[8] = (0.0, 0.0, 0.0, 1.0)
        return hp, rots

    def keys(self):
        n = int(round(self.T * FPS))
        return [(k * self.T / n,) + self.pose(k * self.T / n) for k in range(n + 1)]

    def travel(self):
        (ax, _, az), _ = self.hips(0.0)
        (bx, _, bz), _ = self.hips(self.T)
        return math.hypot(bx - ax, bz - az)


# ---- rigs: the joints a file holds and their local keys --------------------
class Rig:
    """names, parents, rest offsets (metres), which joints have translation
    keys, and per key (time, [local translation], [local rotation]).
    "hips": the gait's skeleton, the travel in the hips track (joint 0).
    "root": an Armature node keyed but still (as exporters write the
    armature object's constant keys), then a `root` bone carrying the travel
    on the ground (its rotation root_rot(t), identity unless given), then
    the hips below it."""
    def __init__(self, gait, kind="hips", armature=True, root_rot=None):
        keys = gait.keys()
        if kind == "hips":
            self.names, self.parents = list(JOINTS), list(PARENT)
            self.rest = [rest_offset(i) for i in range(len(JOINTS))]
            self.moving = {0}
            self.keys = [(t, [hp] + self.rest[1:], rots) for t, hp, rots in keys]
            self.hips = 0
            return
        pre = (["Armature"] if armature else []) + ["root"]
        n = len(pre)
        self.names = pre + list(JOINTS)
        self.parents = list(range(-1, n - 1)) + [p + n if p >= 0 else n - 1 for p in PARENT]
        self.hips = n
        self.rest = [(0.0, 0.0, 0.0)] * n + [rest_offset(i) for i in range(len(JOINTS))]
        self.moving = set(range(n + 1))
        self.keys = []
        for t, hp, rots in keys:
            rq = root_rot(t) if root_rot else (0.0, 0.0, 0.0, 1.0)
            rt = (hp[0], 0.0, hp[2])
            hl = qrot(qconj(rq), sub(hp, rt))  # the hips relative to the root bone
            hq = qn(qmul(qconj(rq), rots[0]))
            T = [(0.0, 0.0, 0.0)] * (n - 1) + [rt, hl] + self.rest[n + 1:]
            Q = [(0.0, 0.0, 0.0, 1.0)] * (n - 1) + [qn(rq), hq] + list(rots[1:])
            self.keys.append((t, T, Q))


# ---- writers -------------------------------------------------------------
def write_bvh(path, gait, unit, rig=None):
    rig = rig or Rig(gait)
    keys = rig.keys
    N = len(rig.names)
    lines = ["HIERARCHY"]
    children = {i: [c for c in range(N) if rig.parents[c] == i] for i in range(N)}

    def node(i, depth):
        ind = "  " * depth
        o = mul(rig.rest[i], unit) if i not in rig.moving else (0.0, 0.0, 0.0)  # a moving joint's position is its channels
        lines.append(f"{ind}{'ROOT' if i == 0 else 'JOINT'} {rig.names[i]}")
        lines.append(ind + "{")
        lines.append(f"{ind}  OFFSET {o[0]:.6f} {o[1]:.6f} {o[2]:.6f}")
        if i in rig.moving:
            lines.append(f"{ind}  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation")
        else:
            lines.append(f"{ind}  CHANNELS 3 Zrotation Xrotation Yrotation")
        if children[i]:
            for c in children[i]:
                node(c, depth + 1)
        else:
            e = mul((0.0, -ANKLE_H, 0.12) if rig.names[i].endswith("Foot") else (0.0, 0.1, 0.0), unit)
            lines.append(f"{ind}  End Site")
            lines.append(ind + "  {")
            lines.append(f"{ind}    OFFSET {e[0]:.6f} {e[1]:.6f} {e[2]:.6f}")
            lines.append(ind + "  }")
        lines.append(ind + "}")

    node(0, 0)
    lines.append("MOTION")
    lines.append(f"Frames: {len(keys)}")
    lines.append(f"Frame Time: {gait.T / (len(keys) - 1):.8f}")
    order = []

    def dfs(i):
        order.append(i)
        for c in children[i]:
            dfs(c)
    dfs(0)
    for t, T, rots in keys:
        vals = []
        for i in order:
            if i in rig.moving:
                vals += list(mul(T[i], unit))
            e = euler_zxy(rots[i])
            back = q_from_euler_zxy(*e)
            assert abs(abs(dot(back, rots[i])) - 1.0) < 1e-9, "Euler round trip"
            vals += e
        lines.append(" ".join(f"{v:.6f}" for v in vals))
    open(path, "w").write("\n".join(lines) + "\n")


def write_gltf(path, gait, centimetres, rig=None):
    rig = rig or Rig(gait)
    keys = rig.keys
    N = len(rig.names)
    unit = 100.0 if centimetres else 1.0
    n = len(keys)
    buf = bytearray()
    accessors, views = [], []

    def blob(floats, count, kind, minmax=False):
        off = len(buf)
        buf.extend(struct.pack("<%df" % len(floats), *floats))
        views.append({"buffer": 0, "byteOffset": off, "byteLength": len(floats) * 4})
        a = {"bufferView": len(views) - 1, "componentType": 5126, "count": count, "type": kind}
        if minmax:
            a["min"], a["max"] = [min(floats)], [max(floats)]
        accessors.append(a)
        return len(accessors) - 1

    times = blob([k[0] for k in keys], n, "SCALAR", True)
    nodes = []
    for i in range(N):
        o = mul(rig.rest[i], unit)
        nd = {"name": rig.names[i], "translation": list(o)}
        ch = [c for c in range(N) if rig.parents[c] == i]
        if ch:
            nd["children"] = ch
        nodes.append(nd)
    samplers, channels = [], []
    for i in sorted(rig.moving):
        tr = blob([c * unit for k in keys for c in k[1][i]], n, "VEC3")
        samplers.append({"input": times, "output": tr, "interpolation": "LINEAR"})
        channels.append({"sampler": len(samplers) - 1, "target": {"node": i, "path": "translation"}})
    for i in range(N):
        r = blob([c for k in keys for c in k[2][i]], n, "VEC4")
        samplers.append({"input": times, "output": r, "interpolation": "LINEAR"})
        channels.append({"sampler": len(samplers) - 1, "target": {"node": i, "path": "rotation"}})
    top = 0
    if centimetres:
        nodes.append({"name": "Armature", "scale": [0.01, 0.01, 0.01], "children": [0]})
        top = len(nodes) - 1
    doc = {"asset": {"version": "2.0", "generator": "stance tests/rootmotion_files.py"},
           "scene": 0, "scenes": [{"nodes": [top]}], "nodes": nodes,
           "animations": [{"name": "cycle", "samplers": samplers, "channels": channels}],
           "accessors": accessors, "bufferViews": views,
           "buffers": [{"byteLength": len(buf), "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(buf)).decode()}]}
    open(path, "w").write(json.dumps(doc))


def write_dae(path, gait, unit, rig=None):
    rig = rig or Rig(gait)
    keys = rig.keys
    N = len(rig.names)
    n = len(keys)

    def mat(t, q):
        m = qmat(q)
        return [m[0][0], m[0][1], m[0][2], t[0], m[1][0], m[1][1], m[1][2], t[1], m[2][0], m[2][1], m[2][2], t[2], 0, 0, 0, 1]

    def fl(v): return " ".join(f"{x:.7g}" for x in v)
    anims = []
    for i in range(N):
        mats = []
        for t, T, rots in keys:
            mats += mat(mul(T[i], unit), rots[i])
        a = rig.names[i]
        anims.append(f"""<animation id="{a}-anim"><source id="{a}-in"><float_array id="{a}-in-a" count="{n}">{fl(k[0] for k in keys)}</float_array>
<technique_common><accessor source="#{a}-in-a" count="{n}" stride="1"><param name="TIME" type="float"/></accessor></technique_common></source>
<source id="{a}-out"><float_array id="{a}-out-a" count="{16 * n}">{fl(mats)}</float_array>
<technique_common><accessor source="#{a}-out-a" count="{n}" stride="16"><param name="TRANSFORM" type="float4x4"/></accessor></technique_common></source>
<source id="{a}-interp"><Name_array id="{a}-interp-a" count="{n}">{" ".join(["LINEAR"] * n)}</Name_array>
<technique_common><accessor source="#{a}-interp-a" count="{n}" stride="1"><param name="INTERPOLATION" type="name"/></accessor></technique_common></source>
<sampler id="{a}-sampler"><input semantic="INPUT" source="#{a}-in"/><input semantic="OUTPUT" source="#{a}-out"/><input semantic="INTERPOLATION" source="#{a}-interp"/></sampler>
<channel source="#{a}-sampler" target="{a}/transform"/></animation>""")

    def node(i):
        _, t0, r0 = keys[0]
        ch = "".join(node(c) for c in range(N) if rig.parents[c] == i)
        a = rig.names[i]
        return f'<node id="{a}" name="{a}" sid="{a}" type="JOINT"><matrix sid="transform">{fl(mat(mul(t0[i], unit), r0[i]))}</matrix>{ch}</node>'
    doc = f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><unit name="meter" meter="1"/><up_axis>Y_UP</up_axis></asset>
<library_animations>{"".join(anims)}</library_animations>
<library_visual_scenes><visual_scene id="scene" name="scene">{node(0)}</visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
"""
    open(path, "w").write(doc)


GAITS = {
    # name: speed m/s, cycle s, duty, lift m, pelvis m, turn deg per cycle, loop mismatch m
    "walk": dict(speed=1.2, cycle=1.1, duty=0.6, lift=0.08, pelvis=0.85, mismatch=0.004),
    "run": dict(speed=3.0, cycle=0.7, duty=0.35, lift=0.15, pelvis=0.80),
    "jog_turn": dict(speed=2.0, cycle=0.8, duty=0.45, lift=0.12, pelvis=0.82, turn_deg=20.0),
    # the walk with planted feet that slide forward 3 cm per metre the hips travel (as a badly
    # cleaned capture or a speed-scaled cycle does): locking must mend it, not merely keep it
    "walk_drift": dict(speed=1.2, cycle=1.1, duty=0.6, lift=0.08, pelvis=0.85, drift=0.03),
}
FILES = [
    ("walk_cm.bvh", "walk", "bvh", 100.0), ("walk_m.bvh", "walk", "bvh", 1.0),
    ("walk_cm.gltf", "walk", "gltf", True), ("walk_m.gltf", "walk", "gltf", False),
    ("walk_cm.dae", "walk", "dae", 100.0),
    ("run.bvh", "run", "bvh", 1.0), ("run.gltf", "run", "gltf", False), ("run.dae", "run", "dae", 1.0),
    ("jog_turn.bvh", "jog_turn", "bvh", 100.0), ("jog_turn.gltf", "jog_turn", "gltf", False), ("jog_turn.dae", "jog_turn", "dae", 1.0),
    # an Unreal-style rig: the travel in a `root` bone above the hips (under a static Armature node in glTF and Collada)
    ("walk_root.gltf", "walk", "gltf", False, dict(kind="root")), ("walk_root.dae", "walk", "dae", 1.0, dict(kind="root")),
    ("walk_root.bvh", "walk", "bvh", 1.0, dict(kind="root")),
    ("walk_drift.bvh", "walk_drift", "bvh", 100.0), ("walk_drift.gltf", "walk_drift", "gltf", False),
    ("walk_drift.dae", "walk_drift", "dae", 1.0),
]


def main():
    out = sys.argv[1]
    for name, g, fmt, unit, *rig in FILES:
        kw = dict(GAITS[g])
        gait = Gait(kw.pop("speed"), kw.pop("cycle"), kw.pop("duty"), kw.pop("lift"), kw.pop("pelvis"), **kw)
        p = f"{out}/{name}"
        {"bvh": write_bvh, "gltf": write_gltf, "dae": write_dae}[fmt](p, gait, unit, Rig(gait, **rig[0]) if rig else None)
        print(f"{name} {gait.travel():.6f} {THIGH + SHIN:.6f} {gait.T:.6f}")


if __name__ == "__main__":
    main()
