// lab/lab_time.js - the lab's time controls (issue 28 item 4), for every view with a character:
// a scrubber over the view's tape (lab/lab_time.c: the last 10 s, each frame's saved instance state),
// a frame back and forward (buttons, and the keys , and . ; k or p pauses), the state band with the
// jump at each switch, a plot of a joint's position, speed or acceleration over the tape (the joint
// from a list or clicked on the view), and a recorded switch replayed under another switch mode, drawn
// as a ghost skeleton and a second curve. Every value comes from lab_time.c; this file draws and binds.
'use strict';

window.StanceTime = (function () {
  const DT = 1 / 60;
  const WHAT = [['x', 'position x (m)'], ['y', 'position y (m)'], ['z', 'position z (m)'], ['speed', 'speed (m/s)'], ['accel', 'acceleration (m/s\u00b2)']];
  let X = null, L = null;            // lab.js's internals, the Module
  let ui = null;
  const joint = {};                   // view -> the joint plotted
  let what = 1, picking = false, ghostMode = -1, ghostFor = null, lastDraw = 0, plotted = null;
  const $ = (id) => document.getElementById(id);
  const str = (p) => (p ? L.UTF8ToString(p) : '');
  const f32 = (ptr, n) => new Float32Array(L.HEAPF32.buffer, ptr, n);

  function el(tag, props, parent) {
    const e = document.createElement(tag);
    Object.assign(e, props || {});
    if (parent) parent.appendChild(e);
    return e;
  }

  function view() { const v = X.activeView(); return v >= 0 && X.view() !== 'cr' ? v : -1; }
  const count = (v) => (v >= 0 ? L._lab_time_count(v) : 0);
  const cursor = (v) => (v >= 0 ? L._lab_time_cursor(v) : 0);

  // ---- moving in time ------------------------------------------------------

  function show(v, back) {
    const n = count(v);
    if (v < 0 || n < 1) return false;
    back = Math.max(0, Math.min(n - 1, back));
    if (X.view() === 'sm') L._lab_sm_script_stop(); // the script's runner cannot follow a rewound instance
    if (L._lab_time_show(v, back) < 0) { X.cErr('time'); return false; }
    return true;
  }
  // one frame back (or k frames): pauses, shows the frame before
  function back(k) {
    const v = view();
    if (v < 0) return;
    X.setPaused(true);
    show(v, cursor(v) + (k || 1));
  }
  // one frame forward: along the tape when rewound (its update replayed), else a live step
  function forward(k) {
    const v = view();
    X.setPaused(true);
    for (let i = 0; i < (k || 1); i++) X.stepOnce();
  }
  // lab.js's stepOnce asks first: a rewound view replays its tape instead of stepping live
  function replaying(v) { return v >= 0 && X.view() !== 'cr' && cursor(v) > 0; }
  function stepTape() { const v = view(); show(v, cursor(v) - 1); }
  // drops the frames after the one shown: the run goes on from it
  function cut() {
    const v = view();
    if (v < 0 || !cursor(v)) return;
    if (X.view() === 'sm') L._lab_sm_script_stop();
    if (L._lab_time_before(v) < 0 || L._lab_time_show(v, 0) < 0) X.cErr('time'); // before() drops them; show the frame again
  }

  // ---- the ghost: the switch at or before the cursor under another mode ----

  function switchBefore(v) {
    const n = count(v), c = cursor(v);
    const jump = f32(L._lab_time_series(v, 0, 8), n);
    for (let i = n - 1 - c; i >= 0; i--) if (jump[i] >= 0) return n - 1 - i;
    return -1;
  }
  function ghostUpdate(v) {
    if (ghostMode < 0 || v < 0 || !count(v)) { ghostFor = null; return; }
    const sw = switchBefore(v);
    if (sw < 0) { ghostFor = null; return; }
    const n = count(v);
    const key = v + ':' + ghostMode + ':' + f32(L._lab_time_series(v, 0, 11), n)[n - 1 - sw]; // the switch by its time
    if (!ghostFor || ghostFor.key !== key || L._lab_time_ghost_start(v) < 0) {
      const blend = Number($('blend').value), easing = Number($('easing').value);
      if (L._lab_time_ghost(v, sw, ghostMode, blend, easing) < 0) { X.cErr('ghost'); ghostFor = null; return; }
      ghostFor = { key, v };
    }
    if (L._lab_time_ghost_advance(v) < 0) X.cErr('ghost');
  }

  // bone segments of a tape pose (J x 3 model translations) placed at the root
  function segments(v, p, root) {
    const s = X.skel(v), out = [];
    for (let j = 0; j < s.n; j++) {
      const q = s.parents[j];
      if (q < 0 || (q === 0 && s.rootMarker)) continue;
      out.push(p[3 * q] + root[0], p[3 * q + 1] + root[1], p[3 * q + 2] + root[2], p[3 * j] + root[0], p[3 * j + 1] + root[1], p[3 * j + 2] + root[2]);
    }
    return out;
  }
  // lab.js's draw adds these lines (blue): the ghost's skeleton, a cross on the joint plotted
  function overlay(v, pose, extra) {
    if (v < 0 || !X.skel(v)) return extra;
    const lines = extra ? Array.from(extra) : [];
    const s = X.skel(v), r = pose.root;
    if (api.ghostLines && ghostFor && ghostFor.v === v) { // (not while the side by side view draws it whole)
      const gp = L._lab_time_ghost_pose(v, cursor(v));
      if (gp) lines.push(...segments(v, f32(gp, 3 * s.n), r));
    }
    const j = joint[v];
    if (api.cross && j !== undefined && j < s.n) {
      const c = [pose.x[j] + r[0], pose.y[j] + r[1], pose.z[j] + r[2]], d = 0.04 * s.height;
      for (let k = 0; k < 3; k++) {
        const a = c.slice(), b = c.slice();
        a[k] -= d; b[k] += d;
        lines.push(...a, ...b);
      }
    }
    return lines.length ? new Float32Array(lines) : null;
  }

  // ---- the panel ---------------------------------------------------------------

  function jointOptions(v) {
    const sel = ui.joint;
    const s = X.skel(v);
    if (!s) return;
    if (sel.dataset.view === String(v) && sel.options.length === s.n) return;
    sel.textContent = '';
    s.names.forEach((name, j) => el('option', { value: String(j), textContent: name }, sel));
    sel.dataset.view = String(v);
    if (joint[v] === undefined || joint[v] >= s.n) {
      let j = s.names.findIndex((n) => /hand.*r|r.*hand|hand_r|righthand/i.test(n));
      if (j < 0) j = s.names.findIndex((n) => /hand/i.test(n));
      if (j < 0) j = s.names.findIndex((n) => /(lower|fore)arm.*r\b|(lower|fore)arm_?r/i.test(n));
      joint[v] = j < 0 ? s.n - 1 : j;
    }
    sel.value = String(joint[v]);
  }

  function build() {
    const box = $('time');
    ui = { box };
    const row1 = el('div', { className: 'row time-row' }, box);
    ui.back = el('button', { className: 'act', id: 'time-back', textContent: '\u25c0 frame', title: 'one frame back (key ,  with Shift: 10)' }, row1);
    ui.fwd = el('button', { className: 'act', id: 'time-fwd', textContent: 'frame \u25b6', title: 'one frame forward (key .  with Shift: 10)' }, row1);
    ui.scrub = el('input', { type: 'range', id: 'time-scrub', min: '0', max: '0', step: '1', value: '0', title: 'the last 10 s of this view' }, row1);
    ui.at = el('span', { className: 'val', id: 'time-at', textContent: '-' }, row1);
    ui.cut = el('button', { className: 'act', id: 'time-cut', textContent: 'go on from here', title: 'drop the frames after this one and run on from it' }, row1);
    const row2 = el('div', { className: 'row time-row' }, box);
    el('label', { htmlFor: 'time-joint', textContent: 'plot', style: 'min-width: 0' }, row2);
    ui.joint = el('select', { id: 'time-joint' }, row2);
    ui.pick = el('button', { className: 'act', id: 'time-pick', textContent: 'pick', title: 'then click a joint on the view' }, row2);
    ui.what = el('select', { id: 'time-what' }, row2);
    WHAT.forEach(([k, t], i) => el('option', { value: String(i), textContent: t }, ui.what));
    ui.what.value = String(what);
    el('label', { htmlFor: 'time-ghost', textContent: 'ghost' }, row2);
    ui.ghost = el('select', { id: 'time-ghost', title: 'the last switch replayed under this mode' }, row2);
    el('option', { value: '-1', textContent: 'off' }, ui.ghost);
    for (let i = 0; i < 6; i++) { const m = L._lab_scenario_mode(i); el('option', { value: String(m), textContent: str(L._lab_mode_name(m)) }, ui.ghost); }
    ui.pop = el('span', { className: 'hint', id: 'time-pop' }, row2);
    ui.pop.style.cssText = 'flex: 1 1 0; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis';
    ui.plot = el('canvas', { id: 'time-plot', width: 960, height: 124 }, box);

    ui.back.addEventListener('click', () => back(1));
    ui.fwd.addEventListener('click', () => forward(1));
    ui.scrub.addEventListener('input', () => {
      const v = view();
      X.setPaused(true);
      show(v, count(v) - 1 - Number(ui.scrub.value));
    });
    ui.cut.addEventListener('click', cut);
    ui.joint.addEventListener('input', () => { joint[view()] = Number(ui.joint.value); });
    ui.what.addEventListener('input', () => { what = Number(ui.what.value); });
    ui.ghost.addEventListener('input', () => { ghostMode = Number(ui.ghost.value); ghostFor = null; });
    ui.pick.addEventListener('click', () => { picking = !picking; ui.pick.style.background = picking ? '#fff4d6' : ''; ui.pick.textContent = picking ? 'click a joint' : 'pick'; });
    // a click (not a drag) on the view while picking: the joint nearest to it on the screen
    const canvas = $('view');
    let down = null;
    canvas.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
    canvas.addEventListener('pointerup', (e) => {
      if (!picking || !down || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 5) return;
      const j = jointAt(e.clientX, e.clientY);
      if (j >= 0) { joint[view()] = j; ui.joint.value = String(j); }
      picking = false; ui.pick.style.background = ''; ui.pick.textContent = 'pick';
    });
    document.addEventListener('keydown', (e) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      const tag = e.target && e.target.tagName;
      if (tag === 'INPUT' && e.target.type !== 'range' || tag === 'SELECT' || tag === 'TEXTAREA') return;
      if (e.target && e.target.classList && e.target.classList.contains('key')) return; // a key box listening
      const k = e.key;
      if (k === ',' || k === '<') back(e.shiftKey ? 10 : 1);
      else if (k === '.' || k === '>') forward(e.shiftKey ? 10 : 1);
      else if (k === 'k' || k === 'p') X.setPaused(!X.paused());
      else return;
      e.preventDefault();
    });
  }

  // the joint whose screen position is nearest to the client point, within 24 px; -1 none
  function jointAt(cx, cy) {
    const v = view(), s = v >= 0 ? X.skel(v) : null, gfx = X.gfx();
    if (!s || !gfx || !gfx.viewProj) return -1;
    const c = gfx.canvas, r = c.getBoundingClientRect();
    const px = (cx - r.left) * c.width / r.width, py = (cy - r.top) * c.height / r.height;
    const pose = X.readPose(v), m = gfx.viewProj, vp = gfx.vp || [0, 0, c.width, c.height]; // (side by side: the left half)
    let best = -1, bd = 24 * c.width / r.width;
    for (let j = 0; j < s.n; j++) {
      const x = pose.x[j] + pose.root[0], y = pose.y[j] + pose.root[1], z = pose.z[j] + pose.root[2];
      const w = m[3] * x + m[7] * y + m[11] * z + m[15];
      if (w <= 0) continue;
      const sx = vp[0] + ((m[0] * x + m[4] * y + m[8] * z + m[12]) / w * 0.5 + 0.5) * vp[2];
      const sy = c.height - vp[1] - ((m[1] * x + m[5] * y + m[9] * z + m[13]) / w * 0.5 + 0.5) * vp[3];
      const d = Math.hypot(sx - px, sy - py);
      if (d < bd) { bd = d; best = j; }
    }
    return best;
  }
  // for the tests: a joint's client position on the view now
  function jointScreen(j) {
    const v = view(), gfx = X.gfx(), pose = X.readPose(v), m = gfx.viewProj, c = gfx.canvas, r = c.getBoundingClientRect(), vp = gfx.vp || [0, 0, c.width, c.height];
    const x = pose.x[j] + pose.root[0], y = pose.y[j] + pose.root[1], z = pose.z[j] + pose.root[2];
    const w = m[3] * x + m[7] * y + m[11] * z + m[15];
    const sx = vp[0] + ((m[0] * x + m[4] * y + m[8] * z + m[12]) / w * 0.5 + 0.5) * vp[2];
    const sy = c.height - vp[1] - ((m[1] * x + m[5] * y + m[9] * z + m[13]) / w * 0.5 + 0.5) * vp[3];
    return { x: r.left + sx * r.width / c.width, y: r.top + sy * r.height / c.height };
  }

  const STATE_COLORS = ['#9aa5b1', '#4c8bf5', '#f59f00', '#2563eb', '#16a34a', '#a855f7', '#e11d48', '#0891b2', '#ca8a04', '#64748b'];

  // everything the plot shows, oldest first (also for the tests)
  function data(v) {
    const n = count(v), j = joint[v] || 0;
    const get = (k) => Array.from(f32(L._lab_time_series(v, j, k), n));
    const d = { view: v, frames: n, cursor: cursor(v), joint: j, jointName: X.skel(v).names[j], what, values: get(what),
      state: get(5), from: get(6), jump: get(8), jumpJoint: get(9), nt: get(10), time: get(11), ghost: null };
    if (ghostFor && ghostFor.v === v) {
      d.ghost = get(12 + what);
      d.ghostStart = L._lab_time_ghost_start(v); d.ghostFrames = L._lab_time_ghost_frames(v);
      d.ghostSame = L._lab_time_ghost_same(v); d.ghostDiff = L._lab_time_ghost_diff(v); d.ghostJump = L._lab_time_ghost_jump(v);
    }
    return d;
  }

  function drawPlot(v) {
    const c = ui.plot, ctx = c.getContext('2d');
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, c.width, c.height);
    ctx.font = '11px sans-serif';
    if (v < 0 || !count(v)) {
      ctx.fillStyle = '#57606a'; ctx.fillText(v < 0 ? 'no character in this view' : 'nothing recorded yet: play or step', 50, 20);
      plotted = null;
      return;
    }
    const d = data(v);
    plotted = d;
    const n = d.frames, cap = L._lab_time_capacity(), left = 50, right = c.width - 12, bandY = 4, bandH = 16, top = 34, h = c.height - top - 16;
    const xs = (i) => left + (right - left) * (cap - n + i + 0.5) / cap; // the newest at the right
    // state band: runs of one state (its name where it fits), pale where a transition runs
    let i = 0;
    while (i < n) {
      let k = i;
      while (k + 1 < n && d.state[k + 1] === d.state[i]) k++;
      const x0 = xs(i) - 0.5 * (right - left) / cap, x1 = xs(k) + 0.5 * (right - left) / cap;
      ctx.fillStyle = STATE_COLORS[d.state[i] % STATE_COLORS.length];
      ctx.fillRect(x0, bandY, x1 - x0, bandH);
      const name = str(L._lab_state_name(v, d.state[i]));
      if (ctx.measureText(name).width < x1 - x0 - 6) { ctx.fillStyle = '#fff'; ctx.fillText(name, x0 + 3, bandY + 12); }
      i = k + 1;
    }
    ctx.fillStyle = 'rgba(255,255,255,0.45)';
    for (let k = 0; k < n; k++) if (d.from[k] >= 0) ctx.fillRect(xs(k) - 0.5 * (right - left) / cap, bandY + bandH / 2, (right - left) / cap + 0.5, bandH / 2);
    // the curve's scale
    let lo = Infinity, hi = -Infinity;
    for (const arr of [d.values, d.ghost || []]) for (const y of arr) if (Number.isFinite(y)) { lo = Math.min(lo, y); hi = Math.max(hi, y); }
    if (!(hi >= lo)) { lo = 0; hi = 1; }
    if (hi - lo < 1e-6) { hi += 0.5e-3; lo -= 0.5e-3; }
    const ys = (y) => top + h - h * (y - lo) / (hi - lo);
    ctx.strokeStyle = '#cfd6dd'; ctx.strokeRect(left, top, right - left, h);
    ctx.fillStyle = '#57606a'; ctx.textAlign = 'right';
    ctx.fillText(hi.toFixed(3), left - 3, top + 9); ctx.fillText(lo.toFixed(3), left - 3, top + h);
    ctx.textAlign = 'left';
    ctx.fillText(d.jointName + ': ' + WHAT[what][1] + ' over the last ' + (n * DT).toFixed(1) + ' s' +
      (d.ghost ? '   (blue: the ghost, ' + ui.ghost.selectedOptions[0].textContent + ')' : ''), left + 4, top - 3);
    // switches: a red line and the jump in cm
    ctx.fillStyle = '#d62828'; ctx.strokeStyle = 'rgba(214,40,40,0.7)';
    for (let k = 0; k < n; k++) if (d.jump[k] >= 0) {
      ctx.beginPath(); ctx.moveTo(xs(k), bandY); ctx.lineTo(xs(k), top + h); ctx.stroke();
      ctx.fillText(d.jump[k].toFixed(2) + ' cm', xs(k) + 2, top + 10);
    }
    const line = (arr, col, width) => {
      ctx.strokeStyle = col; ctx.lineWidth = width; ctx.beginPath();
      let on = false;
      for (let k = 0; k < n; k++) {
        if (!Number.isFinite(arr[k])) { on = false; continue; }
        if (on) ctx.lineTo(xs(k), ys(arr[k])); else ctx.moveTo(xs(k), ys(arr[k]));
        on = true;
      }
      ctx.stroke(); ctx.lineWidth = 1;
    };
    line(d.values, '#1f2328', 1.5);
    if (d.ghost) line(d.ghost, '#1c4ed8', 1.5);
    // the frame shown
    const cx = xs(n - 1 - d.cursor);
    ctx.strokeStyle = '#d97706'; ctx.lineWidth = 2; ctx.beginPath(); ctx.moveTo(cx, bandY); ctx.lineTo(cx, c.height - 2); ctx.stroke(); ctx.lineWidth = 1;
    ctx.fillStyle = '#57606a';
    ctx.fillText('-10 s', left, c.height - 3); ctx.textAlign = 'right'; ctx.fillText('now', right, c.height - 3); ctx.textAlign = 'left';
  }

  function readouts(v) {
    const n = count(v), c = cursor(v);
    ui.scrub.max = String(Math.max(0, n - 1));
    ui.scrub.value = String(Math.max(0, n - 1 - c));
    ui.scrub.disabled = v < 0 || n < 2;
    ui.at.textContent = v < 0 || !n ? '-' : c ? '-' + (c * DT).toFixed(2) + ' s' : 'now';
    ui.at.dataset.back = String(c);
    ui.cut.disabled = !c;
    let pop = '';
    if (v >= 0 && n) {
      const jump = f32(L._lab_time_series(v, 0, 8), n);
      let last = -1, worst = -1;
      for (let i = 0; i < n; i++) if (jump[i] >= 0) { last = i; if (worst < 0 || jump[i] > jump[worst]) worst = i; }
      if (last >= 0) pop = 'last switch ' + jump[last].toFixed(2) + ' cm, worst ' + jump[worst].toFixed(2) + ' cm';
      else pop = 'no switch in the last ' + (n * DT).toFixed(0) + ' s';
      if (ghostFor && ghostFor.v === v) {
        const at = L._lab_time_ghost_start(v);
        const gj = L._lab_time_ghost_jump(v), rec = at >= 0 ? jump[n - 1 - at] : -1;
        pop = 'switch at -' + (at * DT).toFixed(2) + ' s: ' + rec.toFixed(2) + ' cm as played, ' +
          (gj >= 0 ? gj.toFixed(2) + ' cm' : 'none') + ' under ' + ui.ghost.selectedOptions[0].textContent;
      } else if (ghostMode >= 0) pop += ' (ghost: no switch before the frame shown)';
    }
    ui.pop.textContent = pop;
  }

  // each frame lab.js draws: the ghost, the panel (at most 30 times a second while playing)
  function frame(v) {
    ui.box.classList.toggle('hidden', v < 0);
    if (v < 0) return;
    jointOptions(v);
    ghostUpdate(v);
    const now = performance.now();
    if (!X.paused() && now - lastDraw < 33) return;
    lastDraw = now;
    readouts(v);
    drawPlot(v);
  }

  function start(internals) {
    X = internals; L = X.L;
    build();
  }

  const api = { start, frame, overlay, replaying, stepTape, back, forward, show,
    cross: true, // the cross on the joint plotted (a test that counts the view's colours turns it off)
    ghostLines: true, // the ghost as a blue skeleton (lab_split.js turns it off while it draws the ghost beside)
    // for the tests and the console
    data: () => { const v = view(); return v >= 0 && count(v) ? data(v) : null; }, jointScreen,
    plotted: () => plotted };
  return api;
})();
