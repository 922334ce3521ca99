#!/usr/bin/env bash
# The command line: demo, bench, scenario and layers (text, JSON shapes, SVG),
# graph-check and gen-header, and their error paths (one line, exit status).
set -u
cli=${STANCE_CLI:?}
src=${STANCE_SOURCE:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
expect() { # expect STATUS CMD...: exit status, and one stderr line when it fails
  local want=$1; shift
  "$@" > "$tmp/out" 2> "$tmp/err"; local got=$?
  if [ "$got" -ne "$want" ]; then bad "$* exited $got, wanted $want"; cat "$tmp/err"; return; fi
  if [ "$want" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -ne 1 ]; then bad "$*: wanted one line on stderr"; cat "$tmp/err"; return; fi
  ok
}
json() { python3 -c "import json,sys; d=json.load(open('$tmp/out')); $1" || bad "json check: $1"; }

expect 0 "$cli" demo && grep -q "| cut |" "$tmp/out" && grep -q "foot sliding" "$tmp/out" || bad "demo table"
expect 0 "$cli" bench --joints 16 --characters 20 --frames 2 --json
json "assert d['joints']==16 and d['update_ns']>0 and d['clip_bytes']>0 and 'check' in d"
expect 0 "$cli" scenario --json --blend-time 0.3
json "m=d['modes']; assert [x['mode'] for x in m]==['cut','frozen','crossfade','inertialize-simple','inertialize','deadblend']; assert d['blend_time_s']==0.3; assert all(set(x)>={'worst_jump_cm','at_s','transition','max_clips_sampled','transitions'} for x in m); assert m[0]['worst_jump_cm']>m[1]['worst_jump_cm']>m[2]['worst_jump_cm']"
json "m=d['modes']; assert all(set(x)>={'accel_ratio','overshoot_cm'} for x in m); c=[x for x in m if x['mode']=='cut'][0]; f=[x for x in m if x['mode']=='crossfade'][0]; assert c['accel_ratio']>5*f['accel_ratio'] and c['overshoot_cm']==0"
expect 0 "$cli" scenario --mode inertialize --json
json "assert len(d['modes'])==1 and d['modes'][0]['mode']=='inertialize'"
expect 0 "$cli" scenario --svg "$tmp/s.svg"
python3 -c "import xml.dom.minidom as m; d=m.parse('$tmp/s.svg'); assert len(d.getElementsByTagName('rect'))>50; t=' '.join(n.firstChild.data for n in d.getElementsByTagName('text') if n.firstChild); assert 'time (s)' in t and 'crossfade' in t" && ok || bad "scenario svg"
expect 0 "$cli" layers --json
json "f=d['foot_slide_cm_per_m']; a=d['arm_angle_error_deg']; assert f['whole']>100 and f['upper']<1; assert a['mesh']<0.01 and a['local_lean']>a['local']"
expect 0 "$cli" layers --svg "$tmp/l.svg"
python3 -c "import xml.dom.minidom as m; d=m.parse('$tmp/l.svg'); assert len(d.getElementsByTagName('line'))>100" && ok || bad "layers svg"
expect 0 "$cli" footlock --json
json "c=d['clips']; assert [x['name'] for x in c]==['walk','run']; assert all(x['slide_cm_per_m']['on']<0.5 and x['max_joint_angle_change_deg']>=0 for x in c)"
expect 0 "$cli" footlock --svg "$tmp/f.svg"
python3 -c "import xml.dom.minidom as m; d=m.parse('$tmp/f.svg'); assert len(d.getElementsByTagName('polyline'))>=16; t=' '.join(n.firstChild.data for n in d.getElementsByTagName('text') if n.firstChild); assert 'foot height' in t" && ok || bad "footlock svg"
grep -q "| walk |" "$tmp/out" 2>/dev/null || "$cli" footlock | grep -q "| walk |" && ok || bad "footlock table"
expect 2 "$cli" footlock --bogus
expect 2 "$cli" scenario --mode wobble
expect 2 "$cli" scenario --blend-time -1
expect 2 "$cli" layers --bogus
expect 2 "$cli" nonsense
expect 0 "$cli" --help
# info lists skins and meshes: a version 2 file written from the documented layout
python3 "$src/fuzz/v2_seed.py" "$tmp/v2.stance"
expect 0 "$cli" info "$tmp/v2.stance" --json
json "assert d['skins']==[{'name':'body','joint_count':2}]; assert d['meshes']==[{'name':'tetra','vertices':4,'triangles':4,'uvs':True,'skin':'body'},{'name':'prop','vertices':4,'triangles':4,'uvs':False,'skin':None}]; assert [c['name'] for c in d['clips']]==['nod']"
expect 0 "$cli" info "$tmp/v2.stance"
grep -q "^  tetra: 4 vertices, 4 triangles, uvs, skin body$" "$tmp/out" && grep -q "^  body: 2 joints$" "$tmp/out" || bad "info text skins and meshes"
if "$cli" graph-check "$src/graphs/builtin.json" > /dev/null 2>&1; then
  # a build with jansson: graph files work from the command line
  # the crowd workload: its JSON fields; 1 and 2 threads give the same poses (issue 26: an
  # instance of builtin.json is 8,512 bytes since each of the 24 queued events carries its
  # payload pointer and window reason, 16 bytes more; the guard is 8,704)
  expect 0 "$cli" bench --graph "$src/graphs/builtin.json" --characters 30 --threads 1 --frames 20 --json
  cp "$tmp/out" "$tmp/crowd1.json"
  json "k={'frame_ms_median','frame_ms_p95','us_per_update_per_core','characters_per_16_7ms','instance_bytes','workspace_bytes','clips_sampled_per_update','check'}; assert k<=set(d), set(d); assert d['instance_bytes']<=8704 and d['workspace_bytes']>0 and 1<d['clips_sampled_per_update']<8 and d['frame_ms_p95']>=d['frame_ms_median']>0"
  expect 0 "$cli" bench --graph "$src/graphs/builtin.json" --characters 30 --threads 2 --frames 20 --json
  python3 -c "import json; a=json.load(open('$tmp/crowd1.json')); b=json.load(open('$tmp/out')); assert a['check']==b['check'], (a['check'], b['check'])" && ok || bad "crowd check differs across threads"
  expect 2 "$cli" bench --graph "$src/graphs/builtin.json" --threads 0
  expect 2 "$cli" bench --threads 2
  expect 1 "$cli" bench --graph "$tmp/missing.json"
  expect 0 "$cli" scenario --graph "$src/graphs/builtin.json" --json
  cp "$tmp/out" "$tmp/file.json"
  expect 0 "$cli" scenario --json
  cmp -s "$tmp/out" "$tmp/file.json" && bad "file and built-in runs should differ only in the graph name" || ok
  python3 -c "
import json; a=json.load(open('$tmp/out')); b=json.load(open('$tmp/file.json'))
assert a['modes']==b['modes'], 'graphs/builtin.json must give the built-in graph figures'" && ok || bad "builtin.json figures"
  expect 0 "$cli" gen-header "$src/graphs/bullet_waste.json" --prefix GAME
  grep -q "GAME_STATE_AIR_JUMP = 2" "$tmp/out" || bad "gen-header ids"
  printf '{"version":1,"asset":"builtin","machines":[{"name":"M","states":[{"name":"S","clip":"wlak"}]}],"layers":[{"name":"b","machine":"M"}]}' > "$tmp/bad.json"
  expect 1 "$cli" graph-check "$tmp/bad.json"
  grep -q "bad.json:1:.*'wlak'.*'walk'" "$tmp/err" || bad "graph-check error: $(cat "$tmp/err")"
  expect 1 "$cli" scenario --graph "$tmp/missing.json"
  expect 1 "$cli" layers --graph "$tmp/bad.json"
  expect 1 "$cli" footlock --graph "$tmp/bad.json"
  # footlock --sweep (issue 22): the speeds asked for, figures that agree with each other, no
  # locked foot beyond the leg's reach (or as far as the clips themselves put it)
  sweep_ok="s=d['sweep']; v=s['speeds']; c=s['clips']; assert len(s['leg_length'])==2 and min(s['leg_length'])>0 and c['knee_deg'][0]<=c['knee_deg'][1]
assert v[0]['speed']==0 and v[0]['slide_cm_per_m'] is None and all(x['slide_cm_per_m']['off']>=0 and x['slide_cm_per_m']['on']>=0 for x in v[1:])
assert all(0<x['locked_share']<=1 and x['worst_drag']>=0 and x['knee_deg'][0]<=x['knee_deg'][1] for x in v)
assert all(x['worst_reach']<=max(1.0,c['reach'])+1e-3 for x in v), [(x['speed'],x['worst_reach']) for x in v]"
  expect 0 "$cli" footlock --sweep --graph "$src/graphs/builtin_ik.json" --speed-max 2 --speed-step 0.5 --seconds 5 --json
  json "$sweep_ok; assert [x['speed'] for x in d['sweep']['speeds']]==[0,0.5,1,1.5,2] and d['sweep']['moved_by']=='root_motion' and d['sweep']['seconds']==5"
  expect 0 "$cli" footlock --sweep --graph "$src/graphs/builtin_ik.json" --speed-max 1 --speed-step 0.5 --seconds 2
  grep -q "^| 0.50 | [0-9.]* | [0-9.]* | [0-9.]*% | " "$tmp/out" && grep -q "worst drag" "$tmp/out" || bad "footlock sweep table"
  expect 1 "$cli" footlock --sweep
  grep -q "needs a graph file" "$tmp/err" || bad "footlock --sweep without a footlock stage: $(cat "$tmp/err")"
  expect 2 "$cli" footlock --sweep --graph "$src/graphs/builtin_ik.json" --speed-step 0
  if [ -f "${STANCE_DATA:-}/robot_expressive/RobotExpressive.glb" ] && "$cli" info "$STANCE_DATA/robot_expressive/RobotExpressive.glb" > /dev/null 2>&1; then
    # issue 15's goal: RobotExpressive's walk with locking under 1 cm per metre (27.1 without)
    expect 0 "$cli" footlock --graph "$src/graphs/robot.json" --json
    json "w=d['clips'][0]; assert w['name']=='Walking' and w['slide_cm_per_m']['off']>20 and w['slide_cm_per_m']['on']<1, w"
    json "assert all('stage_slide_cm_per_m' not in c for c in d['clips'])" # robot.json has no IK stage
    # graphs/robot_footlock.json's IK stage gives the walk the job's figure
    expect 0 "$cli" footlock --graph "$src/graphs/robot_footlock.json" --json
    json "w=d['clips'][0]; assert w['stage_slide_cm_per_m']<1 and abs(w['stage_slide_cm_per_m']-w['slide_cm_per_m']['on'])<0.05, w"
    "$cli" graph-check "$src/graphs/robot_footlock.json" | grep -q "feet *footlock, legs UpperLeg.L > LowerLeg.L > Foot.L" && ok || bad "graph-check lists the ik stage"
    # issue 22: 0..3 units/s, 20 s each: feet locked and released, never dragged beyond the leg,
    # the knees within the clips' own range, and locking sliding less than the animation
    expect 0 "$cli" footlock --sweep --graph "$src/graphs/robot_footlock.json" --json
    json "$sweep_ok; assert [x['speed'] for x in v]==[0.25*i for i in range(13)] and s['moved_by']=='caller'
assert v[0]['locked_share']==1 and all(c['knee_deg'][0]<=x['knee_deg'][0] and x['knee_deg'][1]<=c['knee_deg'][1] for x in v)
assert all(x['slide_cm_per_m']['on']<x['slide_cm_per_m']['off'] for x in v[1:])"
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
