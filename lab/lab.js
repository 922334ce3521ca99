// lab/lab.js - the animation lab's page script. It only reads controls,
// calls the exported C functions of lab/*.c (Module._lab_*) and draws what
// they return: the character in WebGL2 (lab_gl.js, skinning matrices from
// stance_skin_matrices), the state machine (lab_graphview.js), the controls
// of a file's graph (lab_controls.js) and the timelines (lab_timeline.js). Every pose, transition, jump, sliding and angle
// figure is computed in C.
'use strict';

(function () {
  const DT = 1 / 60;
  const VIEW = { sm: 0, ly: 1, as: 2, cr: -1 };
  const CROWD = 100;
  const HISTORY_S = 6;

  let L = null;            // Module
  let view = 'sm';
  let paused = false, rate = 1, acc = 0, last = 0;
  let fpsFrames = 0, fpsT0 = 0;
  const skel = [null, null, null, null]; // per view: { n, parents, side, names, ground }
  const smHist = [];       // { t, state, from, jump }
  const switches = [];     // { t, cm, name, mode }
  let worst = null;        // the largest jump since the page started or the script began
  let smTime = 0;
  const lyHist = [];       // { t, angle, planted: [l, r] }
  let lyTime = 0, lyState = -1;
  let assetLoaded = false;
  let asView = 3;          // 2: the file's graph, 3: its clips one at a time
  let gfx = null;          // StanceGL.Renderer
  let uploaded = null;     // which view's meshes are on the GPU
  const graphs = {};       // view -> lab_graph_json object
  let machineSeen = null;  // what the state-machine view drew last
  let crowdOpen = false, crowdMs = 0, crowdShown = 0;
  let fpsNow = 0, crowdTriangles = 0, meshTop = -Infinity;
  let sampleReq = null;    // pixel sampling for the tests
  // the lab's simulated clock: fixed steps of DT run per view (the time is steps x DT, whatever
  // the frame rate: a frame's wall time is clamped to 0.1 s and runs at most 8 steps), frames drawn
  const steps = { sm: 0, ly: 0, as: 0, cr: 0 };
  let frames = 0;
  const frameWaiters = []; // resolved after the next frame is drawn and its readouts written
  const glState = { error: '', lost: 0, restored: 0 }; // WebGL2: why it could not start, context losses
  let ctrls = null;         // StanceControls.Controls of the file's graph (view 2)
  let meshPref = null;     // the user's mesh / bones boxes while a file without a mesh shows its bones
  let frameReq = false;    // frame the character on the next draw (a view's meshes were just uploaded)
  let meshPts = null;      // the meshes' vertices as stored (bind space), at most about 4,000 of them
  let errorShown = false;

  const $ = (id) => document.getElementById(id);
  const str = (p) => (p ? L.UTF8ToString(p) : '');
  const f32 = (ptr, n) => new Float32Array(L.HEAPF32.buffer, ptr, n);

  function showError(msg) {
    $('error').textContent = msg;
    if (!errorShown) { errorShown = true; console.warn('stance lab: ' + msg); }
  }
  function cErr(what) { showError(what + ': ' + str(L._lab_error())); }

  // ---- skeleton and pose reading --------------------------------------------

  function loadSkeleton(v) {
    const n = L._lab_joint_count(v);
    const parents = [], side = [], names = [];
    for (let j = 0; j < n; j++) {
      parents.push(L._lab_joint_parent(v, j));
      side.push(L._lab_joint_side(v, j));
      names.push(str(L._lab_joint_name(v, j)));
    }
    // drawing: a root joint on the ground with a single child is a marker, not a bone
    const kids = parents.filter((p) => p === 0).length;
    const y = f32(L._lab_pose(v, 1), n);
    let lo = Infinity;
    for (let j = 0; j < n; j++) lo = Math.min(lo, y[j]);
    const height = L._lab_height(v);
    const x = f32(L._lab_pose(v, 0), n), z = f32(L._lab_pose(v, 2), n);
    // the horizontal extent, and its centre from joint 0 (the camera follows joint 0)
    let span = 0;
    const centre = [0, 0];
    [x, z].forEach((a, k) => {
      let mn = Infinity, mx = -Infinity;
      for (let j = 0; j < n; j++) { mn = Math.min(mn, a[j]); mx = Math.max(mx, a[j]); }
      span = Math.max(span, mx - mn);
      centre[k] = (mn + mx) / 2 - a[0];
    });
    const rootMarker = n > 1 && kids === 1 && parents[0] < 0 && Math.abs(y[0] - lo) < 0.1 * height;
    skel[v] = { n, parents, side, names, ground: v >= 2 ? lo : 0, height, span, centre, rootMarker };
  }

  function readPose(v) {
    const s = skel[v], n = s.n;
    const r = f32(L._lab_root(v), 3);
    return {
      x: Array.from(f32(L._lab_pose(v, 0), n)), y: Array.from(f32(L._lab_pose(v, 1), n)), z: Array.from(f32(L._lab_pose(v, 2), n)),
      root: [r[0], r[1], r[2]],
      feet: [L._lab_foot(v, 0), L._lab_foot(v, 1)],
      planted: [L._lab_foot_planted(v, 0), L._lab_foot_planted(v, 1)],
    };
  }

  // ---- stepping --------------------------------------------------------------

  // a step: a rewound view replays its tape (lab_time.js); else the view's live step, its state
  // saved before and its frame recorded after (lab_time.c)
  function stepOnce() {
    const tv = activeView();
    if (StanceTime.replaying(tv)) { StanceTime.stepTape(); return; }
    const rec = tv >= 0 && view !== 'cr';
    if (rec && L._lab_time_before(tv) < 0) cErr('time');
    stepView();
    if (rec) L._lab_time_after(tv);
  }
  function stepView() {
    if (view === 'sm') {
      const st = L._lab_sm_step(DT);
      if (st < 0) { cErr('step'); return; }
      smTime += DT;
      steps.sm++;
      const jump = L._lab_sm_jump_cm();
      smHist.push({ t: smTime, state: st, from: L._lab_sm_from(), jump });
      while (smHist.length && smHist[0].t < smTime - HISTORY_S) smHist.shift();
      if (jump >= 0) {
        switches.push({ t: smTime, cm: jump, name: str(L._lab_sm_transition()), joint: str(L._lab_sm_jump_joint()),
                        mode: $('mode').selectedOptions[0].textContent });
        while (switches.length > 8) switches.shift();
        if (!worst || jump > worst.cm) worst = switches[switches.length - 1];
      }
    } else if (view === 'ly') {
      lyState = L._lab_ly_step(DT);
      if (lyState < 0) { cErr('step'); return; }
      lyTime += DT;
      steps.ly++;
      lyHist.push({ t: lyTime, angle: L._lab_ly_arm_angle(), planted: [L._lab_foot_planted(1, 0), L._lab_foot_planted(1, 1)] });
      while (lyHist.length && lyHist[0].t < lyTime - HISTORY_S) lyHist.shift();
    } else if (view === 'as' && assetLoaded) {
      if (L._lab_asset_step(asView, DT) < 0) cErr('step');
      steps.as++;
    } else if (view === 'cr' && crowdOpen) {
      if (L._lab_crowd_step(DT) < 0) cErr('crowd');
      steps.cr++;
      crowdMs = L._lab_crowd_update_ms() + L._lab_crowd_skin_ms();
    }
  }

  function frame(now) {
    const real = last ? Math.min(0.1, (now - last) / 1000) : 0;
    last = now;
    if (!paused) {
      acc += real * rate;
      let n = 0;
      while (acc >= DT - 1e-6 && n < 8) { stepOnce(); acc -= DT; n++; }
      if (n === 8) acc = 0;
    }
    if (!fpsT0) fpsT0 = now;
    fpsFrames++;
    if (now - fpsT0 > 500) { fpsNow = fpsFrames * 1000 / (now - fpsT0); $('fps').textContent = fpsNow.toFixed(0); fpsFrames = 0; fpsT0 = now; }
    draw();
    updateReadouts();
    frames++;
    for (const w of frameWaiters.splice(0)) w();
    requestAnimationFrame(frame);
  }
  function setPaused(on) { paused = on; $('pause').textContent = on ? 'Resume' : 'Pause'; acc = 0; }
  const nextFrame = () => new Promise((resolve) => frameWaiters.push(resolve));

  // ---- drawing the character (WebGL2) -----------------------------------------

  const u16 = (ptr, n) => new Uint16Array(L.HEAPU8.buffer, ptr, n);
  const u32 = (ptr, n) => new Uint32Array(L.HEAPU8.buffer, ptr, n);

  // characters an instance of the crowd's draw: the largest divisor of n up to 10
  function crowdBatch(n) { let k = 10; while (n % k) k--; return k; }

  // the view's skinned meshes, copied out of the wasm heap once
  function uploadMeshes(v) {
    const src = v === VIEW.cr ? VIEW.sm : v; // the crowd is the built-in character
    const meshes = [];
    if (v === VIEW.cr && !$('cr-full').checked) { // its low-detail mesh
      const nv = L._lab_crowd_lod_vertex_count(), ni = L._lab_crowd_lod_index_count(), col = f32(L._lab_mesh_color(0, 0), 4);
      meshes.push({ positions: f32(L._lab_crowd_lod_positions(), 3 * nv).slice(), normals: f32(L._lab_crowd_lod_normals(), 3 * nv).slice(),
        joints: u16(L._lab_crowd_lod_joints(), 4 * nv).slice(), weights: f32(L._lab_crowd_lod_weights(), 4 * nv).slice(),
        indices: u32(L._lab_crowd_lod_indices(), ni).slice(), color: [col[0], col[1], col[2]], skin: 0, rigid: true, batch: crowdBatch(L._lab_crowd_count()) });
      gfx.upload(meshes);
      uploaded = v;
      crowdTriangles = ni / 3;
      return;
    }
    for (let m = 0; m < L._lab_mesh_count(src); m++) {
      const nv = L._lab_mesh_vertex_count(src, m), ni = L._lab_mesh_index_count(src, m);
      const col = f32(L._lab_mesh_color(src, m), 4);
      meshes.push({
        positions: f32(L._lab_mesh_positions(src, m), 3 * nv).slice(), normals: f32(L._lab_mesh_normals(src, m), 3 * nv).slice(),
        joints: u16(L._lab_mesh_joints(src, m), 4 * nv).slice(), weights: f32(L._lab_mesh_weights(src, m), 4 * nv).slice(),
        indices: u32(L._lab_mesh_indices(src, m), ni).slice(), color: [col[0], col[1], col[2]], skin: L._lab_mesh_skin(src, m),
      });
      StanceImport.decorate(L, src, m, meshes[meshes.length - 1]); // an imported glTF's UVs, texture, colours
    }
    gfx.upload(meshes);
    uploaded = v;
    if (v === VIEW.cr) crowdTriangles = L._lab_triangle_count(0);
    meshTop = -Infinity; // the meshes' top as stored (bind space): frames a head above the top joint
    let nv = 0;
    for (const m of meshes) nv += m.positions.length / 3;
    const every = Math.max(1, Math.ceil(nv / 4000));
    meshPts = nv ? new Float32Array(3 * Math.ceil(nv / every) + 3 * meshes.length) : null;
    let k = 0;
    for (const m of meshes)
      for (let i = 0; i < m.positions.length; i += 3) {
        meshTop = Math.max(meshTop, m.positions[i + 1]);
        if ((i / 3) % every === 0 && k + 3 <= meshPts.length) { meshPts[k++] = m.positions[i]; meshPts[k++] = m.positions[i + 1]; meshPts[k++] = m.positions[i + 2]; }
      }
    if (meshPts) meshPts = meshPts.subarray(0, k);
    if (v !== VIEW.cr) { meshless(meshes.length === 0); frameReq = true; }
  }

  // A view without a mesh (a BVH, a skeleton-only file) shows its bones: the mesh box unticked and
  // disabled, bones ticked; the user's choice comes back with the next view that has a mesh.
  function meshless(none) {
    const m = $('show-mesh'), b = $('show-bones');
    if (none && !m.disabled) {
      meshPref = { mesh: m.checked, bones: b.checked };
      m.checked = false; m.disabled = true; b.checked = true;
      m.parentElement.title = 'this file has no mesh: its bones are shown';
    } else if (!none && m.disabled) {
      m.disabled = false; m.parentElement.title = '';
      if (meshPref) { m.checked = meshPref.mesh; b.checked = meshPref.bones; }
      meshPref = null;
    }
  }

  // The character's points in the world now: its joints, and its meshes' vertices as stored (the
  // bind pose) moved by the root: a mesh reaches past the joints (a head above the top joint, ears)
  function characterPoints(pts, r) {
    const n = meshPts ? meshPts.length : 0, out = new Float32Array(pts.length + n);
    out.set(pts);
    for (let i = 0; i < n; i += 3) {
      out[pts.length + i] = meshPts[i] + r[0]; out[pts.length + i + 1] = meshPts[i + 1] + r[1]; out[pts.length + i + 2] = meshPts[i + 2] + r[2];
    }
    return out;
  }

  function activeView() { return view === 'as' ? (assetLoaded ? asView : -2) : VIEW[view]; }

  // world-space bone segments and joints of a view's pose, in buffers kept
  // per skeleton size (no allocation per frame)
  const lineBufs = new Map();
  function boneLines(v, pose) {
    const s = skel[v], r = pose.root;
    let b = lineBufs.get(s.n);
    if (!b) { b = { seg: new Float32Array(6 * s.n), pts: new Float32Array(3 * s.n) }; lineBufs.set(s.n, b); }
    let ns = 0;
    for (let j = 0; j < s.n; j++) {
      b.pts[3 * j] = pose.x[j] + r[0], b.pts[3 * j + 1] = pose.y[j] + r[1], b.pts[3 * j + 2] = pose.z[j] + r[2];
      const p = s.parents[j];
      if (p < 0 || (p === 0 && s.rootMarker)) continue;
      b.seg[ns] = pose.x[p] + r[0], b.seg[ns + 1] = pose.y[p] + r[1], b.seg[ns + 2] = pose.z[p] + r[2];
      b.seg[ns + 3] = b.pts[3 * j], b.seg[ns + 4] = b.pts[3 * j + 1], b.seg[ns + 5] = b.pts[3 * j + 2];
      ns += 6;
    }
    return { seg: b.seg.subarray(0, ns), pts: b.pts };
  }
  let texBuf = new Float32Array(16); // the skin matrices' texture, grown when a view needs more

  let lastBox = null;
  function draw() {
    const v = activeView();
    if (v === -2) { // a file tab with nothing loaded
      if (uploaded !== -2) { gfx.upload([]); uploaded = -2; }
      gfx.draw({ target: [0, 0.9, 0], height: 1.8, ground: 0, showMesh: false });
      drawGraph(-1);
      StanceTime.frame(-1);
      return;
    }
    if (uploaded !== v) { uploadMeshes(v); gfx.cam.dist = v === VIEW.cr ? 16 : 0; if (v === VIEW.cr) gfx.cam.pitch = 0.45; else gfx.cam.pitch = 0.25; }
    const showBones = $('show-bones').checked, showMesh = $('show-mesh').checked;
    if (v === VIEW.cr) {
      StanceTime.frame(-1);
      const n = L._lab_crowd_count(), J = L._lab_crowd_joints();
      // one upload: the rows lab_crowd.c wrote (matrices placed in the world), straight from the wasm heap
      gfx.rows(f32(L._lab_crowd_rows(), n * J * 12), 3 * J, n);
      gfx.draw({ target: [0, 0.8, 0], height: 1.8, ground: 0, crowd: n, showMesh, gridSize: 24, gridStep: 1 });
      lastBox = { x0: 0, y0: 0, x1: gfx.canvas.width, y1: gfx.canvas.height }; // for the tests: the whole view
      if (sampleReq) { const q = sampleReq; sampleReq = null; q(gfx.read(lastBox), lastBox); }
      return;
    }
    const s = skel[v];
    const pose = readPose(v);
    // every skin's matrices, one texture row each
    const ns = L._lab_skin_count(v);
    let J = 1;
    for (let k = 0; k < ns; k++) J = Math.max(J, L._lab_skin_joint_count(v, k));
    if (texBuf.length < Math.max(1, ns) * J * 16) texBuf = new Float32Array(Math.max(1, ns) * J * 16);
    const tex = texBuf.subarray(0, Math.max(1, ns) * J * 16);
    tex.fill(0);
    for (let k = 0; k < ns; k++) {
      const p = L._lab_skin_matrices(v, k);
      if (!p) { cErr('skin'); return; }
      tex.set(f32(p, 16 * L._lab_skin_joint_count(v, k)), k * J * 16);
    }
    gfx.matrices(tex, J, Math.max(1, ns));
    const r = pose.root;
    const tall = Math.max(s.height, Math.min(2 * s.height, meshTop - s.ground));
    const target = [r[0] + pose.x[0] + s.centre[0], s.ground + tall * 0.5 + (r[1] > 0 ? r[1] : 0), r[2] + pose.z[0] + s.centre[1]];
    const lines = boneLines(v, pose);
    if (frameReq) { // on load: the camera frames the character, its height about 60 % of the view's
      frameReq = false;
      framed = { points: characterPoints(lines.pts, r), target };
      gfx.fit(target, framed.points, FRAME_FILL, 0.9);
    }
    let extra = null;
    if (v === VIEW.ly) { // the authored upper-arm direction from the output's shoulder
      const n = s.n, arm = L._lab_ly_arm(), el = L._lab_ly_elbow();
      const au = { x: f32(L._lab_ly_authored(0), n), y: f32(L._lab_ly_authored(1), n), z: f32(L._lab_ly_authored(2), n) };
      const dx = au.x[el] - au.x[arm], dy = au.y[el] - au.y[arm], dz = au.z[el] - au.z[arm];
      const len = Math.hypot(dx, dy, dz) || 1, ol = Math.hypot(pose.x[el] - pose.x[arm], pose.y[el] - pose.y[arm], pose.z[el] - pose.z[arm]);
      const k = 1.5 * ol / len, a = [pose.x[arm] + r[0], pose.y[arm] + r[1], pose.z[arm] + r[2]];
      extra = new Float32Array([...a, a[0] + dx * k, a[1] + dy * k, a[2] + dz * k]);
    }
    StanceTime.frame(v);
    extra = StanceTime.overlay(v, pose, extra); // the ghost and the joint plotted
    const args = { target, height: Math.max(tall, 0.8 * s.span), ground: s.ground, place: [r[0], r[1], r[2], 0],
      showMesh, bones: showBones || !showMesh ? lines.seg : null, joints: showBones ? lines.pts : null, extra };
    if (!(window.StanceSplit && StanceSplit.draw(v, args, tex, J, ns))) gfx.draw(args); // side by side (lab_split.js) or one view
    lastBox = sampleWhole ? { x0: 0, y0: 0, x1: gfx.canvas.width, y1: gfx.canvas.height } : gfx.project(lines.pts);
    if (sampleReq) { const q = sampleReq; sampleReq = null; q(gfx.read(lastBox), lastBox); }
    // the 2D panels at most 30 times a second (each costs a few ms on a software renderer)
    if (++panelFrame % 2 && !paused) return;
    const t = $('timeline');
    if (v === VIEW.sm) {
      StanceTimeline.drawState(t, { hist: smHist, time: smTime, switches, historyS: HISTORY_S, dt: DT,
        stateName: (i) => str(L._lab_state_name(0, i)), state: L._lab_sm_state(), from: L._lab_sm_from(),
        progress: L._lab_sm_progress(), clips: L._lab_clips_sampled(0) });
    } else if (v === VIEW.ly) StanceTimeline.drawLayers(t, { hist: lyHist, time: lyTime, historyS: HISTORY_S, dt: DT });
    drawGraph(v);
  }
  let panelFrame = 0, graphBlank = false;
  const FRAME_FILL = 0.6;
  let framed = null; // what the camera framed last: { points, target }

  function drawGraph(v) {
    const c = $('graph');
    if (v < 0 || !L._lab_joint_count(v)) { // nothing to show: blank it once, not every frame
      if (!graphBlank) { StanceGraphView.draw(c, null, null); graphBlank = true; }
      machineSeen = null;
      return;
    }
    graphBlank = false;
    if (!graphs[v]) {
      const p = L._lab_graph_json(v);
      if (!p) { cErr('graph'); return; }
      graphs[v] = JSON.parse(str(p));
    }
    const d = graphs[v];
    const live = f32(L._lab_live(v), 3 * d.machines.length + d.params.length + d.layers.length);
    machineSeen = StanceGraphView.draw(c, d, live, null, window.StanceEditor2 ? StanceEditor2.diagram(v, d) : null);
  }

  // for the tests and the console
  window.stanceLab = {
    status() {
      const v = activeView();
      const crowd = view === 'cr';
      const src = crowd ? VIEW.sm : v;
      return JSON.stringify({
        // the current view's simulated time (steps x 1/60 s since the page started), steps, frames drawn
        time: steps[view] * DT, steps: steps[view], frames, paused,
        instance_time: !crowd && v >= 0 ? L._lab_time(v) : undefined, // the view's instance, from its (re)start
        state: crowd || v < 0 ? '' : str(L._lab_base_state(v)),
        transition: machineSeen && !crowd ? machineSeen.transition : 'none',
        fps: Math.round(fpsNow * 10) / 10,
        characters: crowd ? L._lab_crowd_count() : v < 0 ? 0 : 1,
        joints: src >= 0 ? L._lab_joint_count(src) : 0,
        triangles: crowd ? crowdTriangles * L._lab_crowd_count() : src >= 0 ? L._lab_triangle_count(src) : 0,
        update_ms: crowd ? Math.round(crowdMs * 1000) / 1000 : undefined,
        update_avg_ms: crowd ? Math.round(L._lab_crowd_avg_ms() * 1000) / 1000 : undefined,
      });
    },
    machine() { return machineSeen; },
    renderer() {
      if (!gfx) return '';
      const gl = gfx.gl, e = gl.getExtension('WEBGL_debug_renderer_info');
      return e ? gl.getParameter(e.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
    },
    // the view's WebGL2 context: { context (created), lost (now), losses, version, renderer, error (why none) }
    webgl() {
      const gl = gfx && gfx.gl;
      return { context: !!gl, lost: gl ? gl.isContextLost() : null, losses: glState.lost, restored: glState.restored,
        version: gl && !gl.isContextLost() ? String(gl.getParameter(gl.VERSION)) : '', renderer: gl && !gl.isContextLost() ? this.renderer() : '',
        error: glState.error };
    },
    // the character's screen box (the crowd, or whole: the whole view) and its pixels on the next frame:
    // { box, pixels (non-background count), clear (background), zero (all-zero bytes: nothing read
    //   back, a lost context), area, glError, data (RGBA bytes, left out when noData) }
    sample(noData, whole) {
      return new Promise((resolve) => {
        sampleReq = (px, box) => {
          let n = 0, clear = 0, zero = 0;
          for (let i = 0; i < px.length; i += 4) {
            const d = Math.abs(px[i] - 240) + Math.abs(px[i + 1] - 242) + Math.abs(px[i + 2] - 245); // the clear colour
            if (!(px[i] | px[i + 1] | px[i + 2] | px[i + 3])) zero++;
            if (d > 40) n++; else clear++;
          }
          resolve({ box, pixels: n, clear, zero, area: (box.x1 - box.x0) * (box.y1 - box.y0), glError: gfx.readError,
            data: noData ? null : Array.from(px) });
        };
        sampleWhole = !!whole;
      });
    },
    // for deterministic tests: pause or resume; advance n steps of 1/60 s (pausing, like the
    // Step button); each resolves after the next frame is drawn with its readouts
    pause(on) { setPaused(on !== false); return nextFrame(); },
    step(n) {
      setPaused(true);
      for (let i = 0; i < n; i++) stepOnce();
      return nextFrame();
    },
    frame: nextFrame,
  };
  let sampleWhole = false;
  // ---- readouts ----------------------------------------------------------------

  function fmtJump(v) { return v < 0 ? '-' : v.toFixed(2) + ' cm'; }

  function updateReadouts() {
    if (view === 'sm') {
      const st = L._lab_sm_state(), from = L._lab_sm_from();
      $('state').textContent = st >= 0 ? str(L._lab_state_name(0, st)) : '-';
      $('transition').textContent = from >= 0 ? str(L._lab_state_name(0, from)) + ' \u2192 ' + $('state').textContent : 'none';
      $('progress').textContent = from >= 0 ? (100 * L._lab_sm_progress()).toFixed(0) + ' %' : '-';
      $('clips').textContent = String(L._lab_clips_sampled(0));
      $('speed-seen').textContent = L._lab_sm_speed_seen().toFixed(2) + ' m/s';
      const last = switches[switches.length - 1];
      const lj = $('last-jump');
      lj.textContent = last ? last.name.replace('->', ' \u2192 ') + ': ' + fmtJump(last.cm) + ' (' + last.joint + ')' : '-';
      lj.dataset.cm = last ? last.cm.toFixed(4) : '';
      const wj = $('worst-jump');
      wj.textContent = worst ? worst.name.replace('->', ' \u2192 ') + ': ' + fmtJump(worst.cm) + ' at ' + worst.t.toFixed(3) + ' s' : '-';
      wj.dataset.cm = worst ? worst.cm.toFixed(2) : '';
      const scr = L._lab_sm_script_time();
      $('script-time').textContent = scr >= 0 ? scr.toFixed(2) + ' / 13.50 s' : '';
      $('script-time').dataset.running = scr >= 0 ? '1' : '0';
      if (scr >= 0) setSpeedUi(L._lab_sm_speed());
    } else if (view === 'ly') {
      const sl = L._lab_foot_slide(1);
      $('slide').textContent = sl < 0 ? '- (root still)' : sl.toFixed(3) + ' cm/m';
      $('arm-now').textContent = L._lab_ly_arm_angle().toFixed(2) + '\u00b0';
      $('arm-max').textContent = L._lab_ly_arm_angle_max().toFixed(2) + '\u00b0';
      $('ly-state').textContent = lyState >= 0 ? str(L._lab_state_name(1, lyState)) : '-';
    } else if (view === 'as' && assetLoaded) {
      $('as-time').textContent = asView === 2 ? L._lab_time(2).toFixed(2) + ' s' : L._lab_asset_clip_time().toFixed(2) + ' s';
      $('as-state').textContent = str(L._lab_base_state(asView)) || '-';
    } else if (view === 'cr' && crowdOpen) {
      // four times a second: the figures are 1 s averages or jitter by the timer's step, and each
      // change of the panel's text costs a layout, a paint and a composite of the page
      const t = performance.now();
      if (t - crowdShown < 250) return;
      crowdShown = t;
      $('cr-count').textContent = String(L._lab_crowd_count());
      $('cr-update').textContent = L._lab_crowd_update_ms().toFixed(3) + ' ms';
      $('cr-skin').textContent = L._lab_crowd_skin_ms().toFixed(3) + ' ms';
      $('cr-avg').textContent = L._lab_crowd_avg_ms().toFixed(3) + ' ms';
      $('cr-triangles').textContent = crowdTriangles * L._lab_crowd_count() + ' (' + crowdTriangles + ' each)';
    }
  }

  // ---- controls ----------------------------------------------------------------

  function setSpeedUi(s) {
    $('speed').value = String(s);
    $('speed-val').textContent = Number(s).toFixed(2) + ' m/s';
  }
  function setSpeed(s) {
    s = Math.max(0, Math.min(5, s));
    if (L._lab_sm_script_time() >= 0) L._lab_sm_script_stop();
    L._lab_sm_set_speed(s);
    setSpeedUi(s);
  }
  function jump() {
    if (L._lab_sm_script_time() >= 0) L._lab_sm_script_stop();
    L._lab_sm_jump();
  }
  function applySwitch() {
    const mode = Number($('mode').value), blend = Number($('blend').value), easing = Number($('easing').value);
    $('blend-val').textContent = blend.toFixed(2) + ' s';
    if (L._lab_sm_set_switch(mode, blend, easing) < 0) cErr('switch');
    markModeRow();
  }
  function markModeRow() {
    const name = $('mode').selectedOptions[0].textContent;
    for (const tr of document.querySelectorAll('#scenario-table tbody tr')) tr.classList.toggle('cur', tr.dataset.mode === name);
  }

  function runScript() {
    const blend = Number($('blend').value), easing = Number($('easing').value);
    const p = L._lab_scenario_json(blend, easing);
    if (!p) { cErr('script'); return; }
    const res = JSON.parse(str(p));
    const tb = document.querySelector('#scenario-table tbody');
    tb.textContent = '';
    for (const m of res.modes) {
      const tr = document.createElement('tr');
      tr.dataset.mode = m.mode;
      const cells = [[m.mode, 'l', 'mode'], [m.worst_jump_cm.toFixed(2), '', 'worst_jump_cm'], [m.at_s.toFixed(3), '', 'at_s'],
        [m.transition, 'l', 'transition'], [m.joint, 'l', 'joint'], [String(m.max_clips_sampled), '', 'max_clips_sampled'],
        [String(m.transitions), '', 'transitions']];
      for (const [text, cls, key] of cells) {
        const td = document.createElement('td');
        td.textContent = text; if (cls) td.className = cls; td.dataset.key = key;
        tr.appendChild(td);
      }
      tb.appendChild(tr);
    }
    $('scenario-table').classList.remove('hidden');
    $('scenario-table').dataset.blend = res.blend_time_s.toFixed(3);
    $('scenario-table').dataset.easing = res.easing;
    $('script-caption').textContent = 'The lesson\'s script (13.5 s at 60 Hz) for each mode, blend ' + res.blend_time_s.toFixed(2) +
      ' s, ' + res.easing + ' (the same figures as stance scenario --json). The character plays it now with the selected mode.';
    markModeRow();
    L._lab_sm_script_start();
    smHist.length = 0; switches.length = 0; smTime = 0; worst = null;
    paused = false; $('pause').textContent = 'Pause';
  }

  function applyLayers() {
    const mask = Number($('mask').value), space = Number(document.querySelector('input[name=space]:checked').value);
    const base = Number(document.querySelector('input[name=base]:checked').value);
    const before = L._lab_time(1);
    if (L._lab_ly_config(mask, space, base) < 0) { cErr('layers'); return; }
    if (L._lab_time(1) < before) { lyHist.length = 0; lyTime = 0; } // rebuilt: a fresh instance
    applyWeights();
  }
  function applyWeights() {
    const wv = Number($('w-wave').value), wl = Number($('w-lean').value), wb = Number($('w-breathe').value);
    $('w-wave-val').textContent = wv.toFixed(2); $('w-lean-val').textContent = wl.toFixed(2); $('w-breathe-val').textContent = wb.toFixed(2);
    if (L._lab_ly_weights($('on-breathe').checked ? wb : 0, $('on-lean').checked ? wl : 0, wv) < 0) cErr('weights');
  }

  function fillLayersTable() {
    const p = L._lab_layers_json();
    if (!p) { cErr('layers'); return; }
    const r = JSON.parse(str(p));
    const rows = [
      ['foot sliding, wave over a walk, whole-body mask', r.foot_slide_cm_per_m.whole.toFixed(3) + ' cm/m', 'whole'],
      ['foot sliding, wave over a walk, upper-body mask', r.foot_slide_cm_per_m.upper.toFixed(3) + ' cm/m', 'upper'],
      ['arm angle, right-arm wave over a run, local space', r.arm_angle_error_deg.local.toFixed(2) + '\u00b0', 'local'],
      ['arm angle, local space + additive lean', r.arm_angle_error_deg.local_lean.toFixed(2) + '\u00b0', 'local_lean'],
      ['arm angle, mesh space', r.arm_angle_error_deg.mesh.toFixed(3) + '\u00b0', 'mesh'],
      ['arm angle, mesh space + additive lean', r.arm_angle_error_deg.mesh_lean.toFixed(3) + '\u00b0', 'mesh_lean'],
    ];
    const tb = document.querySelector('#layers-table tbody');
    tb.textContent = '';
    for (const [a, b, key] of rows) {
      const tr = document.createElement('tr');
      const t1 = document.createElement('td'); t1.className = 'l'; t1.textContent = a;
      const t2 = document.createElement('td'); t2.textContent = b; t2.dataset.key = key;
      tr.append(t1, t2); tb.appendChild(tr);
    }
  }

  // ---- a .stance file: its graph (compiled, or the lesson's by clip names) and its clips

  function assetClipOptions(sel, withNone) {
    sel.textContent = '';
    if (withNone) { const o = document.createElement('option'); o.value = '-1'; o.textContent = '(none)'; sel.appendChild(o); }
    for (let i = 0; i < L._lab_asset_clip_count(); i++) {
      const o = document.createElement('option');
      o.value = String(i);
      o.textContent = str(L._lab_asset_clip_name(i)) + (withNone ? '' : ' (' + L._lab_asset_clip_duration(i).toFixed(2) + ' s)');
      sel.appendChild(o);
    }
  }

  // the graph panel: a control per parameter (lab_controls.js), the switch, a slider per layer above the base
  function assetGraphUi() {
    const kind = L._lab_asset_graph_kind();
    delete graphs[2];
    if (uploaded === 2) uploaded = null;
    $('as-graph').classList.toggle('hidden', kind === 0);
    $('as-kind').textContent = kind === 1 ? 'the file\'s compiled graph' : kind === 2 ? 'the lesson\'s, on clips matched by name' :
      kind === 3 ? 'edited in the page' : 'none (map idle and walk or run below)';
    if (kind === 0) { asView = 3; ctrls = null; $('as-params').textContent = ''; }
    else {
      loadSkeleton(2);
      const d = JSON.parse(str(L._lab_graph_json(2)));
      graphs[2] = d;
      // keys where the user bound none: the first float on the arrows, the first trigger on space
      const defaults = {}, ff = d.params.find((p) => p.type === 'float'), ft = d.params.find((p) => p.type === 'trigger');
      if (ff) defaults[ff.name] = { down: 'ArrowDown', up: 'ArrowUp' };
      if (ft) defaults[ft.name] = { fire: 'Space' };
      ctrls = new StanceControls.Controls($('as-params'), d.params, (i, value) => {
        if (L._lab_param_set(2, i, value) < 0) { cErr('parameter ' + d.params[i].name); return; }
        if (asView !== 2) { asView = 2; $('as-view').textContent = 'running the graph'; } // a control drives the graph
      }, defaults);
      const box = $('as-layers');
      box.textContent = '';
      d.layers.forEach((l, i) => {
        if (i === 0) return;
        const row = document.createElement('div'); row.className = 'row';
        const lab = document.createElement('label'); lab.textContent = l.name;
        const r = document.createElement('input'); r.type = 'range'; r.min = '0'; r.max = '1'; r.step = '0.05';
        r.value = String(L._lab_live(2) ? f32(L._lab_live(2), 3 * d.machines.length + d.params.length + d.layers.length)[3 * d.machines.length + d.params.length + i] : 0);
        r.dataset.layer = String(i);
        r.addEventListener('input', () => { if (L._lab_layer_set(2, i, Number(r.value), 0.2) < 0) cErr('layer'); });
        row.append(lab, r); box.appendChild(row);
      });
      asView = 2;
      applyAssetSwitch();
    }
    // the mapping panel (files without their own graph)
    const map = $('as-map');
    map.textContent = '';
    $('as-map-box').classList.toggle('hidden', kind === 1 || kind === 3);
    for (let role = 0; role < L._lab_asset_role_count(); role++) {
      const row = document.createElement('div'); row.className = 'row';
      const lab = document.createElement('label'); lab.textContent = str(L._lab_asset_role_name(role));
      const sel = document.createElement('select'); sel.id = 'as-map-' + lab.textContent;
      assetClipOptions(sel, true);
      sel.value = String(L._lab_asset_role_clip(role));
      sel.addEventListener('input', () => {
        if (L._lab_asset_map(role, Number(sel.value)) < 0) $('as-error').textContent = str(L._lab_error());
        else $('as-error').textContent = '';
        assetGraphUi();
      });
      row.append(lab, sel); map.appendChild(row);
    }
    $('as-view').textContent = asView === 2 ? 'running the graph' : 'playing one clip';
  }
  function applyAssetSwitch() {
    if (L._lab_asset_graph_kind() === 0) return;
    const mode = Number($('as-mode').value);
    if (L._lab_switch_set(2, mode, mode < 0 ? 0 : Number($('blend').value), mode < 0 ? -1 : Number($('easing').value)) < 0) cErr('switch');
  }

  async function loadFile(file) {
    $('as-error').textContent = '';
    const bytes = new Uint8Array(await file.arrayBuffer());
    const texErr = await StanceImport.fileLook(L, bytes); // the file's base-colour textures (lab_texture.c)
    const ptr = L._lab_asset_buffer(bytes.length);
    if (!ptr) { $('as-error').textContent = str(L._lab_error()); return; }
    L.HEAPU8.set(bytes, ptr);
    const n = L._lab_asset_load();
    if (n < 0) { $('as-error').textContent = file.name + ': ' + str(L._lab_error()); return; }
    assetLoaded = true;
    uploaded = null;
    delete graphs[2]; delete graphs[3]; // views 2 and 3 hold new graphs
    loadSkeleton(3);
    const sel = $('clip');
    assetClipOptions(sel, false);
    sel.disabled = false;
    const shown = L._lab_asset_clip_count();
    $('as-file').textContent = file.name;
    $('as-joints').textContent = String(skel[3].n);
    $('as-triangles').textContent = String(L._lab_triangle_count(3));
    $('as-height').textContent = skel[3].height.toFixed(2) + ' m' +
      (skel[3].height > 10 ? ' (centimetres? import with --scale 0.01, here import scale 0.01)' : '');
    $('as-clips').textContent = n > shown ? n + ' (first ' + shown + ' shown)' : String(n);
    assetGraphUi();
    if (texErr) $('as-error').textContent = file.name + ': ' + texErr + ' (drawn without textures)';
    if (window.StanceEditor) StanceEditor.loaded();
  }

  // files chosen or dropped together: a .stance, or a glTF imported in the page (lab_import.js)
  async function openFiles(files) {
    $('as-error').textContent = ''; $('as-import').textContent = '';
    await StanceImport.open(L, files, loadFile, (t, ok) => { $(ok ? 'as-import' : 'as-error').textContent = t; }, Number($('import-scale').value));
  }

  async function loadExample(name) {
    const res = await fetch(name);
    if (!res.ok) { $('as-error').textContent = name + ': ' + res.status; return; }
    const blob = await res.blob();
    StanceImport.current = null;
    await loadFile(new File([blob], name));
  }

  function setView(v) {
    view = v;
    for (const b of document.querySelectorAll('nav button')) b.classList.toggle('on', b.dataset.view === v);
    $('panel-sm').classList.toggle('hidden', v !== 'sm');
    $('panel-ly').classList.toggle('hidden', v !== 'ly');
    $('panel-as').classList.toggle('hidden', v !== 'as');
    $('panel-cr').classList.toggle('hidden', v !== 'cr');
    $('sm-figures').classList.toggle('hidden', v !== 'sm');
    $('ly-figures').classList.toggle('hidden', v !== 'ly');
    $('timeline').classList.toggle('hidden', v === 'as' || v === 'cr');
    $('graph').classList.toggle('hidden', v === 'cr');
    if (v === 'cr' && !crowdOpen) {
      if (L._lab_crowd_open(CROWD) < 0) cErr('crowd'); else { crowdOpen = true; L._lab_crowd_step(0); }
    }
    if (v === 'ly' && !document.querySelector('#layers-table tbody tr')) fillLayersTable();
  }

  function bind() {
    for (const b of document.querySelectorAll('nav button')) b.addEventListener('click', () => setView(b.dataset.view));
    // modes in the lesson's order
    const sel = $('mode'), asel = $('as-mode');
    { const o = document.createElement('option'); o.value = '-1'; o.textContent = 'as the graph says'; asel.appendChild(o); }
    for (let i = 0; i < 6; i++) {
      const am = L._lab_scenario_mode(i), ao = document.createElement('option');
      ao.value = String(am); ao.textContent = str(L._lab_mode_name(am)); asel.appendChild(ao);
      const m = L._lab_scenario_mode(i);
      const o = document.createElement('option');
      o.value = String(m); o.textContent = str(L._lab_mode_name(m));
      sel.appendChild(o);
    }
    $('speed').addEventListener('input', () => setSpeed(Number($('speed').value)));
    $('jump').addEventListener('click', jump);
    for (const id of ['mode', 'blend', 'easing']) $(id).addEventListener('input', applySwitch);
    $('script').addEventListener('click', runScript);
    $('pause').addEventListener('click', () => setPaused(!paused));
    $('step').addEventListener('click', () => { setPaused(true); stepOnce(); });
    $('rate').addEventListener('input', () => { rate = Number($('rate').value); });
    for (const el of document.querySelectorAll('input[name=base], input[name=space]')) el.addEventListener('change', applyLayers);
    $('mask').addEventListener('input', applyLayers);
    for (const id of ['w-wave', 'w-lean', 'w-breathe', 'on-lean', 'on-breathe']) $(id).addEventListener('input', applyWeights);
    $('file').addEventListener('change', () => openFiles($('file').files));
    $('clip').addEventListener('input', () => {
      if (L._lab_asset_play(Number($('clip').value)) < 0) cErr('clip');
      asView = 3; $('as-view').textContent = 'playing one clip';
    });
    $('as-run-graph').addEventListener('click', () => { if (L._lab_asset_graph_kind()) { asView = 2; $('as-view').textContent = 'running the graph'; } });
    $('as-mode').addEventListener('input', applyAssetSwitch);
    $('looks').addEventListener('change', () => { gfx.looks = $('looks').checked; });
    $('cr-full').addEventListener('input', () => { uploaded = null; });
    for (const b of document.querySelectorAll('button[data-example]')) b.addEventListener('click', () => loadExample(b.dataset.example));
    const stage = document.querySelector('.stage');
    stage.addEventListener('dragover', (e) => { e.preventDefault(); });
    stage.addEventListener('drop', (e) => {
      e.preventDefault();
      if (e.dataTransfer.files.length) { setView('as'); openFiles(e.dataTransfer.files); }
    });
    document.addEventListener('keydown', (e) => {
      // a file's graph: the keys bound to its parameters (and a key box waiting for its key)
      if (view === 'as' && ctrls) { // (a bound key while one clip plays runs the graph again, as its control does)
        const binding = !!ctrls.listening;
        if (ctrls.key(e)) {
          e.preventDefault();
          if (binding && e.target && e.target.classList && e.target.classList.contains('key')) e.target.blur(); // no click on its keyup
        }
        return;
      }
      // a focused control keeps its own keys (the speed slider's arrows move it anyway)
      if (view !== 'sm' || e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT') return;
      const k = e.key;
      if (k === 'ArrowUp' || k === 'ArrowRight') setSpeed(Number($('speed').value) + 0.25);
      else if (k === 'ArrowDown' || k === 'ArrowLeft') setSpeed(Number($('speed').value) - 0.25);
      else if (k === ' ') jump();
      else return;
      e.preventDefault();
    });
    document.addEventListener('pointerdown', (e) => { if (ctrls) ctrls.cancel(e.target); });
    document.addEventListener('keyup', (e) => { if (view === 'sm' && e.key === ' ') e.preventDefault(); });
  }

  window.labStart = function () {
    L = Module;
    const canvas = $('view');
    canvas.addEventListener('webglcontextcreationerror', (e) => { glState.error = e.statusMessage || 'context creation failed'; });
    // a lost context (the browser's GPU process stopped, say) comes back as a new one: a new
    // renderer, the camera kept, the meshes uploaded again on the next frame
    const LOST = 'WebGL2: the context was lost (the browser\'s GPU process stopped?), waiting for it back';
    canvas.addEventListener('webglcontextlost', (e) => { e.preventDefault(); glState.lost++; $('error').textContent = LOST; });
    canvas.addEventListener('webglcontextrestored', () => {
      glState.restored++;
      const cam = gfx.cam;
      try { gfx = new StanceGL.Renderer(canvas); } catch (e) { showError('WebGL2: ' + e.message); return; }
      Object.assign(gfx.cam, cam);
      uploaded = null;
      if ($('error').textContent === LOST) $('error').textContent = '';
    });
    try { gfx = new StanceGL.Renderer(canvas); } catch (e) {
      if (!glState.error) glState.error = e.message;
      showError('WebGL2: ' + e.message + (glState.error !== e.message ? ' (' + glState.error + ')' : ''));
      document.body.dataset.ready = 'no-webgl';
      return;
    }
    if (L._lab_init() !== 0) { showError('start: ' + str(L._lab_error())); return; }
    loadSkeleton(VIEW.sm);
    loadSkeleton(VIEW.ly);
    bind();
    if (window.StanceEditor) StanceEditor.init({ L, str, refresh: assetGraphUi, skel: (v) => skel[v], pose: readPose, fileName: () => $('as-file').textContent });
    applySwitch();
    StanceTime.start({ L, activeView, view: () => view, stepOnce, setPaused, paused: () => paused, gfx: () => gfx,
      skel: (v) => skel[v], readPose, cErr });
    const more = { L, activeView, view: () => view, machine: () => machineSeen, graph: (v) => graphs[v], redraw: () => drawGraph(activeView()),
      gfx: () => gfx, skel: (v) => skel[v], readPose, setPaused, cErr };
    for (const m of [window.StanceEditor2, window.StanceSplit]) if (m) m.start(more);
    document.body.dataset.ready = '1';
    requestAnimationFrame(frame);
  };
})();
