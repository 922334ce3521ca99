#!/usr/bin/env python3
# tests/gltf_check.py - the glTF importer checked from outside: this script
# reads glTF files itself (JSON + buffers, its own accessor reader) and
# evaluates every channel with the specification's formulas (STEP, LINEAR
# with slerp, CUBICSPLINE Hermite with tangents times the key interval,
# rotations normalized), then compares `stance sample --json` at many times.
# It also writes hostile and partial glTF files and checks the CLI's exit
# status and its one-line messages. Run by tests/test_io_gltf.sh.
import base64, json, math, os, struct, subprocess, sys, tempfile, time

CLI = os.environ["STANCE_CLI"]
DATA = os.environ["STANCE_DATA"]
failures = 0
checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL:", what)


def run(*args, timeout=120):
    t0 = time.time()
    p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.time() - t0


# ---- reading glTF (independent of the importer) --------------------------------

COMP = {5120: ("b", 1), 5121: ("B", 1), 5122: ("h", 2), 5123: ("H", 2), 5125: ("I", 4), 5126: ("f", 4)}
NCOMP = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def load_gltf(path):
    raw = open(path, "rb").read()
    if raw[:4] == b"glTF":
        jlen = struct.unpack_from("<I", raw, 12)[0]
        doc = json.loads(raw[20:20 + jlen])
        off = 20 + jlen
        bin_chunk = raw[off + 8: off + 8 + struct.unpack_from("<I", raw, off)[0]] if off < len(raw) else b""
    else:
        doc = json.loads(raw)
        bin_chunk = b""
    bufs = []
    for b in doc.get("buffers", []):
        uri = b.get("uri")
        if uri is None:
            bufs.append(bin_chunk)
        elif uri.startswith("data:"):
            bufs.append(base64.b64decode(uri.split(",", 1)[1]))
        else:
            bufs.append(open(os.path.join(os.path.dirname(path), uri), "rb").read())
    return doc, bufs


def accessor(doc, bufs, i):
    a = doc["accessors"][i]
    fmt, size = COMP[a["componentType"]]
    n = NCOMP[a["type"]]
    bv = doc["bufferViews"][a["bufferView"]]
    stride = bv.get("byteStride", size * n)
    base = bv.get("byteOffset", 0) + a.get("byteOffset", 0)
    buf = bufs[bv["buffer"]]
    out = []
    for k in range(a["count"]):
        v = list(struct.unpack_from("<" + fmt * n, buf, base + k * stride))
        if a.get("normalized"):
            v = [max(x / 127.0, -1.0) if fmt == "b" else x / 255.0 if fmt == "B" else
                 max(x / 32767.0, -1.0) if fmt == "h" else x / 65535.0 for x in v]
        out.append(v)
    return out


def qnorm(q):
    l = math.sqrt(sum(x * x for x in q))
    return [x / l for x in q]


def slerp(a, b, u):
    d = sum(x * y for x, y in zip(a, b))
    if d < 0:
        b, d = [-x for x in b], -d
    if d > 1 - 1e-12:
        return qnorm([x + (y - x) * u for x, y in zip(a, b)])
    th = math.acos(min(d, 1.0))
    wa, wb = math.sin((1 - u) * th) / math.sin(th), math.sin(u * th) / math.sin(th)
    return [wa * x + wb * y for x, y in zip(a, b)]


def spec_value(times, values, interp, path, t):
    """The glTF 2.0 specification's value of a sampler at time t."""
    n = len(times)
    cubic = interp == "CUBICSPLINE"
    val = (lambda k: values[3 * k + 1]) if cubic else (lambda k: values[k])
    if t <= times[0]:
        v = val(0)
    elif t >= times[-1]:
        v = val(n - 1)
    else:
        k = max(i for i in range(n - 1) if times[i] <= t)
        td = times[k + 1] - times[k]
        u = (t - times[k]) / td
        if interp == "STEP":
            v = val(k)
        elif interp == "LINEAR":
            a, b = val(k), val(k + 1)
            v = slerp(qnorm(a), qnorm(b), u) if path == "rotation" else [x + (y - x) * u for x, y in zip(a, b)]
        else:
            v0, b0, v1, a1 = values[3 * k + 1], values[3 * k + 2], values[3 * (k + 1) + 1], values[3 * (k + 1)]
            u2, u3 = u * u, u * u * u
            v = [(2 * u3 - 3 * u2 + 1) * p + td * (u3 - 2 * u2 + u) * m0 + (-2 * u3 + 3 * u2) * q + td * (u3 - u2) * m1
                 for p, m0, q, m1 in zip(v0, b0, v1, a1)]
    return qnorm(v) if path == "rotation" else list(v)


def angle(a, b):
    d = abs(sum(x * y for x, y in zip(qnorm(a), qnorm(b))))
    return 2 * math.acos(min(1.0, d))


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_prev(x):
    (i,) = struct.unpack("<I", struct.pack("<f", x))
    return struct.unpack("<f", struct.pack("<I", i - 1 if x > 0 else i))[0]


def sample(path, clip, times):
    arg = ",".join(repr(t) for t in times)
    rc, out, err, _ = run("sample", path, "--clip", clip, "--times", arg, "--json")
    check(rc == 0, "sample %s %s: exit %d %s" % (path, clip, rc, err.strip()))
    return json.loads(out) if rc == 0 else None


def compare_file(path, min_times=100, want_interps=None):
    """Every channel of every animation against the spec, at >= min_times times."""
    doc, bufs = load_gltf(path)
    worst = {"translation": 0.0, "rotation": 0.0, "scale": 0.0}
    seen = set()
    for ai, an in enumerate(doc["animations"]):
        name = an.get("name") or "clip%d" % ai
        chans = []
        key_times = set()
        end = 0.0
        for ch in an["channels"]:
            smp = an["samplers"][ch["sampler"]]
            interp = smp.get("interpolation", "LINEAR")
            ts = [v[0] for v in accessor(doc, bufs, smp["input"])]
            vs = accessor(doc, bufs, smp["output"])
            node = doc["nodes"][ch["target"]["node"]].get("name")
            chans.append((node, ch["target"]["path"], interp, ts, vs))
            key_times.update(ts)
            end = max(end, ts[-1])
            seen.add((interp, ch["target"]["path"]))
        times = [end * i / (min_times - 1) for i in range(min_times)]  # between keys
        for k in sorted(key_times):  # at keys, and the floats around them
            times += [k, f32_prev(k), k + 1e-3, max(0.0, k - 1e-3)]
        times = sorted(set(f32(t) for t in times if 0.0 <= t <= end))
        d = sample(path, name, times)
        if not d:
            continue
        names = [j["name"] for j in d["joints"]]
        for node, pth, interp, ts, vs in chans:
            j = names.index(node)
            for smp in d["clips"][0]["samples"]:
                want = spec_value(ts, vs, interp, pth, f32(smp["t"]))  # %.9g: the float exactly
                row = smp["local"][j]
                if pth == "rotation":
                    e = angle(want, row[3:7])
                else:
                    got = row[0:3] if pth == "translation" else row[7:10]
                    e = max(abs(x - y) for x, y in zip(want, got))
                if e > worst[pth]:
                    worst[pth] = e
                if e > 1e-4:
                    check(False, "%s clip '%s' %s %s %s at t=%r: error %.3g (want %s got %s)" %
                          (os.path.basename(path), name, node, interp, pth, smp["t"], e, want, row))
                    return worst
        check(len(d["clips"][0]["samples"]) >= min_times, "clip '%s': %d samples" % (name, len(d["clips"][0]["samples"])))
    if want_interps:
        check(want_interps <= seen, "covers %s (saw %s)" % (want_interps, seen))
    return worst


# ---- glTF writing -----------------------------------------------------------------

def gltf_doc(nodes, animations, blobs, scene_nodes=None):
    """blobs: list of (bytes, componentType, type, count, extra accessor fields)."""
    data = b""
    views, accs = [], []
    for raw, ct, typ, count, extra in blobs:
        while len(data) % 4:
            data += b"\0"
        views.append({"buffer": 0, "byteOffset": len(data), "byteLength": len(raw)})
        a = {"bufferView": len(views) - 1, "componentType": ct, "type": typ, "count": count}
        a.update(extra)
        accs.append(a)
        data += raw
    doc = {"asset": {"version": "2.0"}, "nodes": nodes, "animations": animations,
           "scenes": [{"nodes": scene_nodes if scene_nodes is not None else [0]}], "scene": 0,
           "accessors": accs, "bufferViews": views,
           "buffers": [{"byteLength": len(data), "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()}]}
    return doc


def floats(vals):
    return struct.pack("<%df" % len(vals), *vals)


def write(tmp, name, doc):
    p = os.path.join(tmp, name)
    with open(p, "w") as f:
        json.dump(doc, f)
    return p


def simple(tmp, name, times, values, interp="LINEAR", path="translation", typ=None, ct=5126, n_out=None, extra=None,
           more_anims=()):
    """One node, one animation (plus more_anims), values flattened."""
    comps = {"translation": 3, "rotation": 4, "scale": 3}[path]
    typ = typ or {3: "VEC3", 4: "VEC4"}[comps]
    ncomp = NCOMP[typ]
    if ct == 5126:
        raw = floats(values)
    else:
        fmt = COMP[ct][0]
        raw = struct.pack("<%d%s" % (len(values), fmt), *values)
    blobs = [(floats(times), 5126, "SCALAR", len(times), {}),
             (raw, ct, typ, n_out if n_out is not None else len(values) // ncomp, extra or {})]
    anims = [{"name": "bad", "samplers": [{"input": 0, "output": 1, "interpolation": interp}],
              "channels": [{"sampler": 0, "target": {"node": 0, "path": path}}]}]
    for i, a in enumerate(more_anims):
        anims.append(a)
    nodes = [{"name": "joint"}]
    return write(tmp, name, gltf_doc(nodes, anims, blobs))


def expect_error(path, want, what, args=()):
    rc, out, err, secs = run("info", path, *args)
    lines = err.strip().splitlines()
    check(rc == 1 and len(lines) == 1 and want.lower() in err.lower(),
          "%s: want exit 1, one line containing '%s'; got exit %d: %s" % (what, want, rc, err.strip()[:300]))
    return secs


def main():
    interp = os.path.join(DATA, "interpolation_test", "interpolation_test.gltf")
    # 1. InterpolationTest against the spec
    worst = compare_file(interp, 120, {("STEP", "translation"), ("STEP", "rotation"), ("STEP", "scale"),
                                       ("LINEAR", "translation"), ("LINEAR", "rotation"),
                                       ("CUBICSPLINE", "translation"), ("CUBICSPLINE", "rotation"),
                                       ("CUBICSPLINE", "scale")})
    print("     InterpolationTest: max error translation %.2g, rotation %.2g rad, scale %.2g" %
          (worst["translation"], worst["rotation"], worst["scale"]))
    rc, out, err, _ = run("info", interp, "--json")
    info = json.loads(out)
    by = {c["name"]: c for c in info["clips"]}
    check(by["Step Translation"]["interpolation"] == ["STEP"] and by["Step Translation"]["keys_added"] == 4,
          "info: Step Translation interpolation and hold keys: %s" % by["Step Translation"])
    check(by["CubicSpline Rotation"]["interpolation"] == ["CUBICSPLINE"] and by["CubicSpline Rotation"]["keys_added"] > 0,
          "info: CubicSpline Rotation")
    check(by["Linear Translation"]["keys_added"] == 0, "info: Linear Translation adds no keys")
    check([j["name"] for j in info["joints"]].count("Light") == 0 and "Camera" not in [j["name"] for j in info["joints"]],
          "no camera or light joints")
    # a coarser tolerance adds fewer keys and still meets it
    with tempfile.TemporaryDirectory() as tmp:
        st = os.path.join(tmp, "it.stance")
        # (--error-cm 0: exact clips, so only the resampling tolerance is measured)
        rc, _, err, _ = run("import", interp, "-o", st, "--tolerance", "1e-3,1e-3", "--error-cm", "0")
        check(rc == 0, "import --tolerance: " + err)
        rc, out, _, _ = run("info", st, "--json")
        coarse = {c["name"]: c["keys"] for c in json.loads(out)["clips"]}
        check(coarse["CubicSpline Translation"] < by["CubicSpline Translation"]["keys"], "coarser tolerance, fewer keys")
        # stance sample: the JSON shape, and a .stance file samples like its import
        rc, out, err, _ = run("sample", interp, "--times", "0,0.5,1.25", "--json")
        d = json.loads(out)
        check(rc == 0 and len(d["clips"]) == 9 and all(len(c["samples"]) == 3 for c in d["clips"]) and
              all(len(s["local"]) == len(d["joints"]) and all(len(r) == 10 for r in s["local"]) and
                  len(s["model"]) == len(d["joints"]) and all(len(r) == 3 for r in s["model"])
                  for c in d["clips"] for s in c["samples"]) and
              d["joints"][0]["parent"] is None and all(j["parent"] == "root" for j in d["joints"][1:]),
              "sample --json shape")
        rc2, out2, _, _ = run("import", interp, "-o", os.path.join(tmp, "full.stance"), "--error-cm", "0")
        rc2, out2, _, _ = run("sample", os.path.join(tmp, "full.stance"), "--times", "0,0.5,1.25", "--json")
        check(rc2 == 0 and json.loads(out2) == d, "a .stance file samples like its import")
        rc, out, err, _ = run("sample", interp, "--clip", "Step Scale", "--times", "0.1")
        check(rc == 0 and "Cube" in out and "model position" in out, "sample text output")
        rc, out, err, _ = run("sample", interp, "--clip", "nope", "--times", "0.1")
        check(rc == 1 and len(err.strip().splitlines()) == 1 and "nope" in err, "sample: unknown clip")
        rc, out, err, _ = run("sample", interp, "--times", "0.1,x")
        check(rc == 2, "sample: bad --times")
        doc, bufs = load_gltf(interp)
        an = [a for a in doc["animations"] if a["name"] == "CubicSpline Translation"][0]
        smp = an["samplers"][0]
        ts = [v[0] for v in accessor(doc, bufs, smp["input"])]
        vs = accessor(doc, bufs, smp["output"])
        tt = [f32(ts[-1] * i / 199) for i in range(200)]
        d = sample(st, "CubicSpline Translation", tt)
        j = [x["name"] for x in d["joints"]].index("Cube.008")
        e = max(max(abs(a - b) for a, b in zip(spec_value(ts, vs, "CUBICSPLINE", "translation", s["t"]), s["local"][j][0:3]))
                for s in d["clips"][0]["samples"])
        check(e <= 1e-3 * 1.01, "--tolerance 1e-3: error %.3g" % e)
        print("     --tolerance 1e-3,1e-3: CubicSpline Translation %d keys (default %d), max error %.2g" %
              (coarse["CubicSpline Translation"], by["CubicSpline Translation"]["keys"], e))

    with tempfile.TemporaryDirectory() as tmp:
        # 2. 180-degree and > 90-degree LINEAR rotation intervals: slerp
        def axis_angle(ax, deg):
            h = math.radians(deg) / 2
            return [ax[0] * math.sin(h), ax[1] * math.sin(h), ax[2] * math.sin(h), math.cos(h)]

        def qmul(a, b):
            return [a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]]
        q0 = [0.0, 0.0, 0.0, 1.0]
        q1 = [0.0, 1.0, 0.0, 0.0]  # 180 degrees about Y
        q2 = qmul(q1, axis_angle([1, 0, 0], 120))
        q3 = qmul(q2, axis_angle([0, 0.6, 0.8], 95))
        p = simple(tmp, "r180.gltf", [0.0, 1.0, 2.0, 3.0], q0 + q1 + q2 + q3, path="rotation")
        w = compare_file(p, 200)
        print("     180/120/95-degree key intervals: max rotation error against slerp %.2g rad" % w["rotation"])
        rc, out, _, _ = run("info", p, "--json")
        c = json.loads(out)["clips"][0]
        check(c["interpolation"] == ["LINEAR"] and c["keys_added"] > 0, "slerp keys added: %s" % c)
        # normalized SHORT rotations are decoded as the spec says
        qs = [int(round(x * 32767)) for x in q0 + axis_angle([0, 0, 1], 60) + axis_angle([1, 0, 0], 30)]
        p = simple(tmp, "short.gltf", [0.0, 0.5, 1.0], qs, path="rotation", ct=5122, extra={"normalized": True})
        w = compare_file(p, 100)
        check(w["rotation"] <= 1e-4, "normalized SHORT rotation")
        # a sparse output accessor without a buffer view: zeros, key 1 set to (0, 5, 0)
        raw_t = floats([0.0, 0.5, 1.0])
        raw_i = struct.pack("<I", 1)
        raw_v = floats([0.0, 5.0, 0.0])
        doc = gltf_doc([{"name": "joint"}], [{"name": "sparse", "samplers": [{"input": 0, "output": 1}],
                                                "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}],
                       [(raw_t, 5126, "SCALAR", 3, {}), (raw_i, 5125, "SCALAR", 1, {}), (raw_v, 5126, "VEC3", 1, {})])
        doc["accessors"] = [doc["accessors"][0],
                            {"componentType": 5126, "type": "VEC3", "count": 3,
                             "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5125}, "values": {"bufferView": 2}}}]
        d = sample(write(tmp, "sparse_ok.gltf", doc), "sparse", [0.0, 0.25, 0.5, 0.75, 1.0])
        ys = [s["local"][-1][1] for s in d["clips"][0]["samples"]] if d else []
        check(ys == [0, 2.5, 5, 2.5, 0], "sparse accessor on zeros: %s" % ys)
        # STEP exactness at the float before a key
        p = simple(tmp, "step.gltf", [0.0, 0.5, 1.0], [0, 0, 0, 0, 10, 0, 0, 20, 0], interp="STEP")
        d = sample(p, "bad", [f32_prev(0.5), 0.5, f32_prev(1.0), 1.0, 0.25, 0.75])
        ys = [s["local"][-1][1] for s in d["clips"][0]["samples"]]
        check(ys == [0, 10, 10, 20, 0, 10], "STEP holds to the float before each key: %s" % ys)

        # 3. bad files: exit 1 and one line naming the clip / channel / problem
        good_anim = {"name": "good", "samplers": [{"input": 0, "output": 2}],
                     "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]}
        expect_error(simple(tmp, "vec2.gltf", [0.0, 1.0], [0, 0, 1, 1], typ="VEC2"), "VEC2", "VEC2 translation")
        expect_error(simple(tmp, "bezier.gltf", [0.0, 1.0], [0] * 6, interp="BEZIER"), "BEZIER", "BEZIER interpolation")
        expect_error(simple(tmp, "count.gltf", [0.0, 1.0], [0] * 9), "needs 2 output values", "2 times, 3 values")
        expect_error(simple(tmp, "cubic.gltf", [0.0, 1.0], [0] * 6, interp="CUBICSPLINE"), "needs 6 output values",
                     "CUBICSPLINE without tangents")
        expect_error(simple(tmp, "huge.gltf", [0.0, 1e30], [0] * 6), "time", "times of 1e30 s")
        expect_error(simple(tmp, "neg.gltf", [-1.0, 1.0], [0] * 6), "time", "a negative time")
        expect_error(simple(tmp, "order.gltf", [0.0, 1.0, 1.0], [0] * 9), "not after", "times not increasing")
        expect_error(simple(tmp, "nan.gltf", [0.0, float("nan")], [0] * 6), "time", "a NaN time")
        expect_error(simple(tmp, "infv.gltf", [0.0, 1.0], [0, 0, 0, float("inf"), 0, 0]), "finite", "an infinite value")
        expect_error(simple(tmp, "rot3.gltf", [0.0, 1.0], [0] * 6, path="rotation", typ="VEC3"), "VEC3", "VEC3 rotation")
        expect_error(simple(tmp, "rotint.gltf", [0, 1], [0, 0, 0, 127, 0, 0, 0, 127], path="rotation", ct=5120),
                     "normalized", "un-normalized BYTE rotation")
        expect_error(simple(tmp, "zero.gltf", [0.0, 1.0], [0] * 8, path="rotation"), "normalized", "zero quaternion")
        expect_error(simple(tmp, "zerocubic.gltf", [0.0, 1.0], [0] * 24, path="rotation", interp="CUBICSPLINE"), "normalized",
                     "a CUBICSPLINE rotation of zeros")
        doc = json.load(open(simple(tmp, "base.gltf", [0.0, 1.0], [0] * 6)))
        d2 = json.loads(json.dumps(doc)); d2["bufferViews"][1]["byteLength"] = 12
        expect_error(write(tmp, "oob.gltf", d2), "runs past", "accessor past its buffer view")
        d2 = json.loads(json.dumps(doc)); d2["bufferViews"][1]["byteOffset"] = 1 << 20
        expect_error(write(tmp, "oobv.gltf", d2), "", "buffer view past its buffer")
        d2 = json.loads(json.dumps(doc)); d2["nodes"] = [{"name": "a", "children": [1]}, {"name": "b", "children": [0]}]
        expect_error(write(tmp, "cycle.gltf", d2), "", "a cycle in the node tree")
        d2 = json.loads(json.dumps(doc)); d2["nodes"][0]["children"] = [5]
        expect_error(write(tmp, "child.gltf", d2), "child", "a child that does not exist")
        d2 = json.loads(json.dumps(doc)); d2["buffers"][0] = {"byteLength": 64, "uri": "missing.bin"}
        expect_error(write(tmp, "nobuf.gltf", d2), "", "a missing buffer file")
        d2 = json.loads(json.dumps(doc)); d2["animations"][0]["channels"].append(dict(d2["animations"][0]["channels"][0]))
        expect_error(write(tmp, "twice.gltf", d2), "second channel", "two channels for one target")
        d2 = json.loads(json.dumps(doc)); d2["animations"][0]["samplers"][0]["input"] = 9
        expect_error(write(tmp, "noacc.gltf", d2), "accessor", "a sampler naming a missing accessor")
        d2 = json.loads(json.dumps(doc)); d2["accessors"][1]["sparse"] = {
            "count": 1, "indices": {"bufferView": 0, "componentType": 5125}, "values": {"bufferView": 0}}
        # index = bits of 0.0f = 0 is fine; make it 1e9 by pointing at the float 1.0 (0x3f800000)
        d2["accessors"][1]["sparse"]["indices"]["byteOffset"] = 4
        expect_error(write(tmp, "sparse.gltf", d2), "sparse", "a sparse index past the count")
        with open(os.path.join(tmp, "trunc.glb"), "wb") as f:
            f.write(b"glTF" + struct.pack("<II", 2, 1000) + b"\0" * 20)
        expect_error(os.path.join(tmp, "trunc.glb"), "GLB", "a truncated GLB")
        with open(os.path.join(tmp, "bad.gltf"), "w") as f:
            f.write('{"asset": {"version": "2.0"}, "nodes": [')
        expect_error(os.path.join(tmp, "bad.gltf"), "", "malformed JSON")
        # 4. partial files: the good clip stays, one warning names the dropped one
        times = floats([0.0, 1.0])
        blobs = [(times, 5126, "SCALAR", 2, {}), (floats([0] * 6), 5126, "VEC2", 3, {}),
                 (floats([0, 0, 0, 1, 0, 0.7071, 0, 0.7071]), 5126, "VEC4", 2, {})]
        bad_anim = {"name": "broken", "samplers": [{"input": 0, "output": 1}],
                    "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}
        p = write(tmp, "partial.gltf", gltf_doc([{"name": "joint"}], [bad_anim, good_anim], blobs))
        rc, out, err, _ = run("info", p, "--json")
        lines = err.strip().splitlines()
        check(rc == 0 and [c["name"] for c in json.loads(out)["clips"]] == ["good"] and len(lines) == 1 and
              "broken" in err and "dropped" in err, "partial file: exit %d, %s" % (rc, err))
        rc, out, err, _ = run("import", p, "-o", os.path.join(tmp, "p.stance"), "--strict")
        check(rc == 1 and len(err.strip().splitlines()) == 1 and "broken" in err, "partial file with --strict: %d %s" % (rc, err))
        rc, out, err, _ = run("import", interp, "-o", os.path.join(tmp, "m.stance"), "--max-memory", "64K")
        check(rc == 1 and len(err.strip().splitlines()) == 1 and "memory budget" in err, "--max-memory 64K: %d %s" % (rc, err))
        # a rigid mesh with a bad node transform is dropped with a warning; the clip stays
        d2 = json.loads(json.dumps(json.load(open(simple(tmp, "meshbase.gltf", [0.0, 1.0], [0] * 6)))))
        d2["nodes"] = [{"name": "joint", "children": [1]}, {"name": "m", "mesh": 0, "rotation": [0, 0, 0, 0]}]
        d2["meshes"] = [{"primitives": [{"attributes": {"POSITION": 1}}]}]
        d2["accessors"][1]["count"] = 2
        rc, out, err, _ = run("info", write(tmp, "badmesh.gltf", d2))
        check(rc == 0 and len(err.strip().splitlines()) == 1 and "mesh of node 'm' not imported" in err, "bad rigid mesh: %d %s" % (rc, err))
        p = write(tmp, "allbad.gltf", gltf_doc([{"name": "joint"}], [bad_anim, dict(bad_anim, name="broken2")], blobs))
        expect_error(p, "no animation could be imported", "no good clip")
        # 5. 2^20 keys on 1,024 nodes: refused by the memory budget, quickly
        K, J = 1 << 20, 1023  # a root and 1,023 children: 1,024 nodes, all animated
        import array
        tarr = array.array("f", (i / 30.0 for i in range(K))).tobytes()
        varr = bytes(12 * K)
        bin_data = tarr + varr
        doc = {"asset": {"version": "2.0"},
               "nodes": [{"name": "root", "children": list(range(1, J + 1))}] + [{"name": "n%d" % i} for i in range(J)],
               "scenes": [{"nodes": [0]}], "scene": 0,
               "buffers": [{"byteLength": len(bin_data)}],
               "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(tarr)},
                               {"buffer": 0, "byteOffset": len(tarr), "byteLength": len(varr)}],
               "accessors": [{"bufferView": 0, "componentType": 5126, "type": "SCALAR", "count": K},
                             {"bufferView": 1, "componentType": 5126, "type": "VEC3", "count": K}],
               "animations": [{"name": "big", "samplers": [{"input": 0, "output": 1}],
                               "channels": [{"sampler": 0, "target": {"node": i, "path": "translation"}} for i in range(J + 1)]}]}
        js = json.dumps(doc).encode()
        js += b" " * ((4 - len(js) % 4) % 4)
        glb = b"glTF" + struct.pack("<II", 2, 12 + 8 + len(js) + 8 + len(bin_data)) + struct.pack("<I", len(js)) + b"JSON" + js
        glb += struct.pack("<I", len(bin_data)) + b"BIN\0" + bin_data
        big = os.path.join(tmp, "big.glb")
        with open(big, "wb") as f:
            f.write(glb)
        secs = expect_error(big, "memory budget", "2^20 keys x 1,024 nodes")
        print("     %.1f MB file with 2^20 keys on 1,024 nodes: refused in %.2f s" % (len(glb) / 1e6, secs))
        check(secs < 30, "the memory-budget refusal is quick (%.1f s)" % secs)

    # 6. RobotExpressive and Fox still import
    for rel, joints, clips in (("robot_expressive/RobotExpressive.glb", 43, 14), ("fox/Fox.glb", 24, 3)):
        rc, out, err, _ = run("info", os.path.join(DATA, rel), "--json")
        d = json.loads(out) if rc == 0 else {"joints": [], "clips": []}
        check(rc == 0 and len(d["joints"]) == joints and len(d["clips"]) == clips,
              "%s: %d joints, %d clips" % (rel, len(d["joints"]), len(d["clips"])))
        check(all(c["interpolation"] == ["LINEAR"] for c in d["clips"]), rel + ": LINEAR clips")
    # skins and meshes go through .stance v2: import -> save -> load -> save is bit-identical
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a.stance"), os.path.join(tmp, "b.stance")
        rc1 = run("import", os.path.join(DATA, "robot_expressive/RobotExpressive.glb"), "-o", a)[0]
        rc2 = run("import", a, "-o", b)[0]
        rc, out, _, _ = run("info", a, "--json")
        d = json.loads(out) if rc == 0 else {"skins": [], "meshes": []}
        check(rc1 == 0 and rc2 == 0 and open(a, "rb").read() == open(b, "rb").read() and
              [s["name"] for s in d["skins"]] == ["skin0", "skin1", "rigid"] and len(d["meshes"]) == 19,
              "RobotExpressive skins and meshes through .stance")
    w = compare_file(os.path.join(DATA, "fox/Fox.glb"), 100)
    print("     Fox.glb against the spec: max error translation %.2g, rotation %.2g rad" % (w["translation"], w["rotation"]))

    print("%d checks, %d failed" % (checks, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
