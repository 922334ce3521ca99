#!/usr/bin/env bash
# tests/test_io_scenes.sh - the skeleton and clip names of files without a
# skin (assimp path): a Collada scene written here with a camera, its target,
# a light and a sky node animated beside a three-joint character keeps only
# the character (Hips > Spine > Head, the root being the joint the
# animations move), and its one clip, which assimp names after the first
# animated node (the camera), is named after the file. A DirectX file with
# three animation sets, one with an infinite key, imports the two good ones
# with one warning naming the bad one (exit 0); --strict makes it exit 1;
# files where no clip is good exit 1. --max-memory refuses what does not fit
# before allocating it. Collada animation clips keep their names.
# assimp-testmodels' animated Collada,
# FBX and BVH files keep their skeletons; stance info reports the rotation
# keys added to follow slerp (none for a BVH). One line on stderr per error.
#
# Env: STANCE_CLI (the stance binary).
set -u
# a guard against hangs only, far above any normal run (test_io_badfiles runs all its files in about 30 s under ASan)
hang=${STANCE_HANG_SECONDS:-120}
cli=${STANCE_CLI:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
run() { # run STATUS CMD...: the exit status, and one stderr line when it is 1
    local want=$1; shift
    timeout "$hang" "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
    if [ "$got" -ne "$want" ]; then bad "$* exited $got, wanted $want: $(head -c 300 "$tmp/err")"; return 1; fi
    if [ "$want" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -ne 1 ]; then bad "$*: wanted one line on stderr"; cat "$tmp/err"; return 1; fi
    ok
}
json() { python3 -c "import json,sys; d=json.load(open('$tmp/out')); $1" && ok || bad "json check on $2: $1"; }

# ---- a Collada scene: camera, target, light and sky beside a character --------
anim() { # anim ID NODE TARGET COUNT TIMES STRIDE VALUES
    cat <<EOT
    <animation id="$1" name="$2">
      <source id="$1-in"><float_array id="$1-in-a" count="$4">$5</float_array><technique_common><accessor source="#$1-in-a" count="$4" stride="1"><param name="TIME" type="float"/></accessor></technique_common></source>
      <source id="$1-out"><float_array id="$1-out-a" count="$(($4 * $6))">$7</float_array><technique_common><accessor source="#$1-out-a" count="$4" stride="$6">$(if [ "$6" = 3 ]; then echo '<param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>'; else echo '<param name="ANGLE" type="float"/>'; fi)</accessor></technique_common></source>
      <sampler id="$1-s"><input semantic="INPUT" source="#$1-in"/><input semantic="OUTPUT" source="#$1-out"/></sampler>
      <channel source="#$1-s" target="$3"/>
    </animation>
EOT
}
{
    cat <<'EOT'
<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Y_UP</up_axis></asset>
  <library_cameras><camera id="cam" name="Camera01"><optics><technique_common><perspective><yfov>45</yfov><aspect_ratio>1.5</aspect_ratio><znear>0.1</znear><zfar>100</zfar></perspective></technique_common></optics></camera></library_cameras>
  <library_lights><light id="omni" name="Omni01"><technique_common><point><color>1 1 1</color></point></technique_common></light></library_lights>
  <library_animations>
EOT
    anim cam-a Camera01 Camera01/translate 2 "0 1" 3 "0 1 5 1 1 5"
    anim tgt-a Camera01.Target Camera01.Target/translate 2 "0 1" 3 "0 1 0 0 2 0"
    anim omni-a Omni01 Omni01/translate 2 "0 1" 3 "2 3 2 2 4 2"
    anim sky-a Sky Sky/rotateY.ANGLE 2 "0 1" 1 "0 90"
    anim hips-a Hips Hips/rotateY.ANGLE 3 "0 0.5 1" 1 "0 30 0"
    anim head-a Head Head/rotateX.ANGLE 3 "0 0.5 1" 1 "0 -20 0"
    cat <<'EOT'
  </library_animations>
  <library_visual_scenes>
    <visual_scene id="Scene" name="Scene">
      <node id="Camera01" name="Camera01" type="NODE"><translate sid="translate">0 1 5</translate><instance_camera url="#cam"/></node>
      <node id="Camera01.Target" name="Camera01.Target" type="NODE"><translate sid="translate">0 1 0</translate></node>
      <node id="Omni01" name="Omni01" type="NODE"><translate sid="translate">2 3 2</translate><instance_light url="#omni"/></node>
      <node id="Sky" name="Sky" type="NODE"><rotate sid="rotateY">0 1 0 0</rotate></node>
      <node id="Character" name="Character" type="NODE"><translate>0.5 0 0</translate>
        <node id="Hips" name="Hips" sid="Hips" type="JOINT"><translate sid="translate">0 1 0</translate><rotate sid="rotateY">0 1 0 0</rotate>
          <node id="Spine" name="Spine" sid="Spine" type="JOINT"><translate sid="translate">0 0.3 0</translate>
            <node id="Head" name="Head" sid="Head" type="JOINT"><translate sid="translate">0 0.4 0</translate><rotate sid="rotateX">1 0 0 0</rotate></node>
          </node>
        </node>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>
EOT
} >"$tmp/walk.dae"
if run 0 "$cli" info "$tmp/walk.dae" --json; then
    json "assert [(j['name'], j['parent']) for j in d['joints']]==[('Hips',None),('Spine','Hips'),('Head','Spine')], d['joints']; assert [c['name'] for c in d['clips']]==['walk'], d['clips']; assert sorted(d['clips'][0]['joints'])==['Head','Hips']" walk.dae
    grep -q "channel for camera 'Camera01' ignored" "$tmp/err" && grep -q "camera or light target 'Camera01.Target'" "$tmp/err" &&
        grep -q "channel for light 'Omni01'" "$tmp/err" && grep -q "named after node 'Camera01'" "$tmp/err" &&
        grep -q "outside the skeleton" "$tmp/err" && ok || bad "walk.dae warnings: $(cat "$tmp/err")"
fi
# the character's placement (Character's 0.5 m offset) is in the root's rest
run 0 "$cli" import "$tmp/walk.dae" -o "$tmp/walk.stance" && run 0 "$cli" info "$tmp/walk.stance" --json &&
    json "assert d['joints'][0]['name']=='Hips' and d['clips'][0]['name']=='walk'" walk.stance

# ---- partial files: three animation sets, the middle one with an infinite key ----
xfile() { # xfile VALUE_OF_THE_SECOND_SET
    cat <<EOT
xof 0303txt 0032
Frame Root {
  FrameTransformMatrix { 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, 0.0,0.0,0.0,1.0;; }
  Mesh tri { 3; 0.0;0.0;0.0;, 1.0;0.0;0.0;, 0.0;1.0;0.0;; 1; 3;0,1,2;; }
  Frame Arm {
    FrameTransformMatrix { 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, 0.0,1.0,0.0,1.0;; }
  }
}
AnimationSet good { Animation { {Arm} AnimationKey { 2; 2; 0;3;0.0,1.0,0.0;;, 10;3;0.5,1.0,0.0;;; } } }
AnimationSet broken { Animation { {Arm} AnimationKey { 2; 2; 0;3;0.0,1.0,0.0;;, 10;3;$1,1.0,0.0;;; } } }
AnimationSet alsogood { Animation { {Arm} AnimationKey { 2; 2; 0;3;0.0,1.0,0.0;;, 20;3;0.0,2.0,0.0;;; } } }
EOT
}
xfile 1e999 >"$tmp/partial.x"
if run 0 "$cli" info "$tmp/partial.x" --json; then
    json "assert [c['name'] for c in d['clips']]==['good','alsogood'], d['clips']" partial.x
    [ "$(grep -c "clip 'broken'.*not finite.*dropped" "$tmp/err")" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok ||
        bad "partial.x: want one warning naming clip 'broken': $(cat "$tmp/err")"
fi
run 0 "$cli" import "$tmp/partial.x" -o "$tmp/partial.stance" && grep -q "2 clips" "$tmp/out" && ok || bad "partial import: $(cat "$tmp/out")"
run 1 "$cli" import "$tmp/partial.x" -o "$tmp/strict.stance" --strict && grep -q "clip 'broken'" "$tmp/err" && ok || bad "--strict: $(cat "$tmp/err")"
[ -e "$tmp/strict.stance" ] && bad "--strict wrote a file" || ok
# no good clip: every set broken
sed 's/0.5,1.0,0.0;;;/1e999,1.0,0.0;;;/; s/0.0,2.0,0.0;;;/0.0,-1e999,0.0;;;/' "$tmp/partial.x" >"$tmp/allbad.x"
run 1 "$cli" info "$tmp/allbad.x" && grep -q "no clip could be imported (3 dropped" "$tmp/err" && ok || bad "allbad.x: $(cat "$tmp/err")"

# ---- the memory budget: checked before keys are allocated ----------------------------
run 1 "$cli" import "$tmp/partial.x" -o "$tmp/x.stance" --max-memory 200 && grep -q "over the memory budget" "$tmp/err" && ok ||
    bad "--max-memory 200: $(cat "$tmp/err")"
if [ -f /usr/share/assimp/models/BVH/01_01.bvh ]; then
    run 1 "$cli" import /usr/share/assimp/models/BVH/01_01.bvh -o "$tmp/x.stance" --max-memory 1M &&
        grep -q "2752 frames of 96 channels.*over the memory budget" "$tmp/err" && ok || bad "BVH budget: $(cat "$tmp/err")"
    # past the pre-scan, the clip's key grid (2752 keys x 32 joints x 40 bytes) is over 3 MB
    run 1 "$cli" import /usr/share/assimp/models/BVH/01_01.bvh -o "$tmp/x.stance" --max-memory 3M &&
        grep -q "clip 'Motion' needs .*over the memory budget of 3.0 MB" "$tmp/err" && ok || bad "BVH clip budget: $(cat "$tmp/err")"
    # (exact clips: the budget is the importer's; compressing 01_01 takes seconds more under ASan)
    run 0 "$cli" import /usr/share/assimp/models/BVH/01_01.bvh -o "$tmp/x.stance" --max-memory 64M --error-cm 0
fi

# ---- usage --------------------------------------------------------------------------
run 2 "$cli" import "$tmp/partial.x" -o "$tmp/x.stance" --max-memory 0
run 2 "$cli" import "$tmp/partial.x" -o "$tmp/x.stance" --max-memory 12Q
run 2 "$cli" import "$tmp/partial.x" -o "$tmp/x.stance" --max-memory

# ---- assimp-testmodels: animated files without cameras keep their skeletons ---------
models=/usr/share/assimp/models
check_model() { # FILE JOINTS CLIP
    [ -f "$1" ] || { echo "skip: missing $1"; return; }
    run 0 "$cli" info "$1" --json && json "assert len(d['joints'])==$2, len(d['joints']); assert d['clips'][0]['name']=='$3', d['clips'][0]['name']" "$1"
}
check_model "$models/BVH/01_01.bvh" 31 Motion
check_model "$models/Collada/anims_with_full_rotations_between_keys.DAE" 64 animation
check_model "$models/FBX/huesitos.fbx" 9 "Armature|Action"
check_model "$models/FBX/animation_with_skeleton.fbx" 15 "Armature|ArmatureAction"
# stance info reports the rotation keys added to follow slerp between assimp's keys
# (this file turns a full circle between keys: assimp gives 90-degree keys), none for a BVH
if [ -f "$models/Collada/anims_with_full_rotations_between_keys.DAE" ]; then
    run 0 "$cli" info "$models/Collada/anims_with_full_rotations_between_keys.DAE" --json &&
        json "c=d['clips'][0]; assert c['interpolation']==['LINEAR'] and c['file_keys']==5 and c['keys_added']>0 and c['keys']==5+c['keys_added'], c" full_rotations
    run 0 "$cli" info "$models/BVH/01_01.bvh" --json &&
        json "c=d['clips'][0]; assert c['keys_added']==0 and c['file_keys']==c['keys'], c" 01_01.bvh
fi
# Collada animation clips keep the file's names (assimp calls them combinedAnim_<i>);
# assimp-testmodels' file needs its padded numbers trimmed for assimp 5.2 to read it
if [ -f "$models/Collada/library_animation_clips.dae" ]; then
    python3 -c "
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'>\s+([-0-9.])', r'>\1', s)
open(sys.argv[2], 'w').write(re.sub(r'([0-9.])\s+<', r'\1<', s))" "$models/Collada/library_animation_clips.dae" "$tmp/clips.dae"
    run 0 "$cli" info "$tmp/clips.dae" --json && json "assert [c['name'] for c in d['clips']]==['bend','turn'], d['clips']" clips.dae
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
