#!/usr/bin/env bash
# The humanoid bone map (issue 27 item 1, docs/retargeting.md): BVH
# skeletons written here from the format's grammar, one per naming scheme,
# map every slot by name to the joints the test names; the same skeleton
# with meaningless names maps legs and arms by structure with the sides
# right (left = +X); docs/retarget-map.schema.json agrees with the loader; CMU 01_01 and RobotExpressive map to the joints read
# from the files; broken map files give one FILE:LINE:COL error.
set -euo pipefail
cli=${STANCE_CLI:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$cli" "$tmp" <<'PY'
import json, os, subprocess, sys
cli, tmp = sys.argv[1], sys.argv[2]
slots = ["hips","spine","chest","neck","head","left_upper_leg","left_lower_leg","left_foot","left_toes",
 "right_upper_leg","right_lower_leg","right_foot","right_toes","left_shoulder","left_upper_arm","left_lower_arm","left_hand",
 "right_shoulder","right_upper_arm","right_lower_arm","right_hand"]
# the tree: (slot, parent slot, offset), a T-pose facing +Z, left at +X, Y up
tree = [("hips",None,(0,100,0)),("spine","hips",(0,10,0)),("chest","spine",(0,15,0)),("neck","chest",(0,15,0)),("head","neck",(0,8,0))]
for side, sx in (("left",1),("right",-1)):
    tree += [(side+"_upper_leg","hips",(sx*10,-5,0)),(side+"_lower_leg",side+"_upper_leg",(0,-42,0)),
             (side+"_foot",side+"_lower_leg",(0,-40,0)),(side+"_toes",side+"_foot",(0,-5,12)),
             (side+"_shoulder","chest",(sx*4,12,0)),(side+"_upper_arm",side+"_shoulder",(sx*12,0,0)),
             (side+"_lower_arm",side+"_upper_arm",(sx*28,0,0)),(side+"_hand",side+"_lower_arm",(sx*25,0,0))]
def bvh(path, names):
    kids = {}
    for s, p, o in tree: kids.setdefault(p, []).append((s, o))
    out = ["HIERARCHY"]
    def emit(s, o, d, root):
        ind = "  " * d
        out.append(ind + ("ROOT " if root else "JOINT ") + names[s]); out.append(ind + "{")
        out.append(ind + "  OFFSET %g %g %g" % o)
        out.append(ind + ("  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation" if root else "  CHANNELS 3 Zrotation Xrotation Yrotation"))
        ch = kids.get(s, [])
        for c, co in ch: emit(c, co, d + 1, False)
        if not ch: out.extend([ind + "  End Site", ind + "  {", ind + "    OFFSET 0 5 0", ind + "  }"])
        out.append(ind + "}")
    emit("hips", (0, 100, 0), 0, True)
    n = len(tree)
    out += ["MOTION", "Frames: 2", "Frame Time: 0.033333"]
    out += [" ".join(["0"] * (3 + 3 * n))] * 2
    open(path, "w").write("\n".join(out) + "\n")
def side_names(fmt_l, fmt_r, parts):
    d = {}
    for key, word in parts.items():
        d["left_" + key] = fmt_l % word; d["right_" + key] = fmt_r % word
    return d
schemes = {
 "cmu": dict(hips="Hips", spine="Spine", chest="Spine1", neck="Neck", head="Head",
   **side_names("Left%s", "Right%s", dict(upper_leg="UpLeg", lower_leg="Leg", foot="Foot", toes="ToeBase", shoulder="Shoulder", upper_arm="Arm", lower_arm="ForeArm", hand="Hand"))),
 "gltf": dict(hips="Hips", spine="Abdomen", chest="Torso", neck="Neck", head="Head",
   **side_names("%s.L", "%s.R", dict(upper_leg="UpperLeg", lower_leg="LowerLeg", foot="Foot", toes="Toes", shoulder="Shoulder", upper_arm="UpperArm", lower_arm="LowerArm", hand="Hand"))),
 "unreal": dict(hips="pelvis", spine="spine_01", chest="spine_02", neck="neck_01", head="head",
   **side_names("%s_l", "%s_r", dict(upper_leg="thigh", lower_leg="calf", foot="foot", toes="ball", shoulder="clavicle", upper_arm="upperarm", lower_arm="lowerarm", hand="hand"))),
 "unity": dict(hips="hips", spine="spine", chest="chest", neck="neck", head="head",
   **side_names("left%s", "right%s", dict(upper_leg="UpperLeg", lower_leg="LowerLeg", foot="Foot", toes="Toes", shoulder="Shoulder", upper_arm="UpperArm", lower_arm="LowerArm", hand="Hand"))),
 "vrm": dict(hips="J_Bip_C_Hips", spine="J_Bip_C_Spine", chest="J_Bip_C_Chest", neck="J_Bip_C_Neck", head="J_Bip_C_Head",
   **side_names("J_Bip_L_%s", "J_Bip_R_%s", dict(upper_leg="UpperLeg", lower_leg="LowerLeg", foot="Foot", toes="ToeBase", shoulder="Shoulder", upper_arm="UpperArm", lower_arm="LowerArm", hand="Hand"))),
}
schemes["mixamo"] = {k: "mixamorig:" + v for k, v in schemes["cmu"].items()}
schemes["plain"] = {s: "bone%02d" % i for i, (s, p, o) in enumerate(tree)}
failed = 0
def run(path, *extra):
    r = subprocess.run([cli, "retarget-map", path, "--json", *extra], capture_output=True, text=True)
    return r
def check(name, ok, msg=""):
    global failed
    print(("ok  " if ok else "FAIL"), name, msg)
    failed += not ok
for name, names in schemes.items():
    assert len(names) == len(slots), name
    path = os.path.join(tmp, name + ".bvh"); bvh(path, names)
    r = run(path); got = json.loads(r.stdout)["slots"]
    want_how = "structure" if name == "plain" else None
    bad = [s for s in slots if s not in got or got[s]["joint"] != names[s]]
    check(name + " maps every slot to the test's joint", not bad and r.returncode == 0, "wrong: %s %s" % (bad, r.stderr.strip()))
    limbs = [s for s in slots if "leg" in s or "arm" in s or "foot" in s or "hand" in s]
    if name == "plain":
        check("plain: limbs found by structure", all(got[s]["found"] == "structure" for s in limbs))
    else:
        check(name + ": limbs found by name", all(got[s]["found"] == "name" for s in limbs))
        # the same skeleton, names ignored: the structure finds the same joints
        r = run(path, "--names-off"); g2 = json.loads(r.stdout)["slots"]
        bad = [s for s in limbs if s not in g2 or g2[s]["joint"] != names[s]]
        check(name + " --names-off: legs and arms by structure, sides right", not bad, str(bad))
# real files: the joints read from them (stance info)
cmu = "/usr/share/assimp/models/BVH/01_01.bvh"
want = dict(hips="Hips", neck="Neck", head="Head", **side_names("Left%s", "Right%s", dict(upper_leg="UpLeg", lower_leg="Leg", foot="Foot", toes="ToeBase", shoulder="Shoulder", upper_arm="Arm", lower_arm="ForeArm", hand="Hand")))
want.update(spine="LowerBack", chest="Spine1")
got = json.loads(run(cmu).stdout)
check("CMU 01_01 maps every slot", all(got["slots"].get(s, {}).get("joint") == want[s] for s in slots) and not got["unmapped"], str(got["unmapped"]))
robot = os.path.join(os.environ.get("STANCE_DATA", "/work/shared/data"), "robot_expressive/RobotExpressive.glb")
want = dict(hips="Hips", spine="Abdomen", chest="Torso", neck="Neck", head="Head", **side_names("%s.L", "%s.R", dict(upper_leg="UpperLeg", lower_leg="LowerLeg", foot="Foot", shoulder="Shoulder", upper_arm="UpperArm", lower_arm="LowerArm")))
got = json.loads(run(robot).stdout)
check("RobotExpressive maps every joint it has (it has no hand or toe joint)",
      all(got["slots"].get(s, {}).get("joint") == want[s] for s in want) and sorted(got["unmapped"]) == sorted(["left_toes","right_toes","left_hand","right_hand"]), str(got))
# map files
cmu_t = os.path.join(tmp, "cmu.bvh")
def mapfile(name, text, want_line, want_col, want_text):
    p = os.path.join(tmp, name + ".json"); open(p, "w").write(text)
    r = run(cmu_t, "--map", p)
    lines = [l for l in r.stderr.splitlines() if l]
    ok = r.returncode == 1 and len(lines) == 1 and ("%s:%d:%d:" % (p, want_line, want_col)) in lines[0] and want_text in lines[0]
    check("map file " + name, ok, r.stderr.strip())
mapfile("syntax", '{\n  "slots": {\n    "hips": "Hips",,\n  }\n}\n', 3, 20, "invalid JSON")
mapfile("unknown_slot", '{\n  "slots": {\n    "hips": "Hips",\n    "left_hnd": "LeftHand"\n  }\n}\n', 4, 5, "did you mean 'left_hand'")
mapfile("unknown_joint", '{\n  "slots": {\n      "head": "Haed"\n  }\n}\n', 3, 7, "no joint 'Haed'")
mapfile("not_string", '{"slots": {"head": 3}}', 1, 12, "joint name")
mapfile("unknown_key", '{\n "slot": {}}', 2, 2, "unknown key 'slot'")
p = os.path.join(tmp, "good.json")
open(p, "w").write('{"slots": {"head": "Neck", "neck": null}}')
got = json.loads(run(cmu_t, "--map", p).stdout)
# the schema (docs/retarget-map.schema.json) accepts the docs' example and
# the good file, and rejects what the loader rejects
import jsonschema
src = os.environ["STANCE_SOURCE"]
if True:
    schema = json.load(open(os.path.join(src, "docs/retarget-map.schema.json")))
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)
    import re as _re
    ex = _re.findall(r"```json\n(.*?)```", open(os.path.join(src, "docs/retargeting.md")).read(), _re.S)
    check("schema: docs example valid", bool(ex) and all(v.is_valid(json.loads(e)) for e in ex))
    check("schema: good map valid", v.is_valid(json.load(open(p))))
    for bad in ['{"slots": {"left_hnd": "X"}}', '{"slots": {"head": 3}}', '{"slot": {}}']:
        check("schema rejects " + bad, not v.is_valid(json.loads(bad)))
check("map file overrides", got["slots"]["head"] == {"joint": "Neck", "found": "file"} and "neck" in got["unmapped"], str(got["slots"].get("head")))
sys.exit(1 if failed else 0)
PY
