// lab/lab_split.js - the same switch under two modes side by side (issue 28 item 4): with "side by
// side" ticked beside the time controls' ghost, the view is drawn twice in two halves of the canvas,
// same camera: on the left the character as played (the tape, the frame the scrubber shows), on the
// right the whole character, skinned, as the ghost replays the switch under the mode chosen in
// "ghost" (lab_time.c replays it from the tape's saved state with the tape's recorded inputs;
// lab_split.c makes its skinning matrices). Scrubbing, stepping and playing move both. The replay
// covers every frame the tape holds from the switch on; before the switch both halves show the
// pose as played.
'use strict';

window.StanceSplit = (function () {
  let X = null, L = null, box = null, caption = null;
  let shown = null; // what the last draw showed: { view, back, replayed }
  const $ = (id) => document.getElementById(id);
  const f32 = (ptr, n) => new Float32Array(L.HEAPF32.buffer, ptr, n);
  let texBuf = new Float32Array(16);

  function on() { return !!(box && box.checked); }

  function start(internals) {
    X = internals; L = X.L;
    const ghost = $('time-ghost');
    if (!ghost) return;
    const label = document.createElement('label');
    label.title = 'the character as played on the left, the ghost\'s mode on the right, driven by the same tape';
    box = document.createElement('input');
    box.type = 'checkbox'; box.id = 'time-split';
    label.append(box, ' side by side');
    ghost.after(label);
    caption = document.createElement('div');
    caption.id = 'split-caption';
    caption.style.cssText = 'display: none; font: 12px system-ui, sans-serif; color: #1f2328; margin: 2px 0';
    $('time').before(caption);
    for (const b of document.querySelectorAll('nav button')) b.addEventListener('click', () => { caption.style.display = 'none'; }); // the next draw shows it again where it applies
    box.addEventListener('change', () => {
      if (box.checked && Number(ghost.value) < 0) { // a mode to compare with: the first that is not the graph's own
        ghost.value = ghost.options[1].value;
        ghost.dispatchEvent(new Event('input'));
      }
      window.StanceTime.ghostLines = !box.checked;
    });
  }

  function label(text, cls) {
    const s = document.createElement('span');
    s.textContent = text; s.className = cls;
    s.style.cssText = 'flex: 1 1 0; text-align: center';
    return s;
  }

  // lab.js's draw for view v: true when it drew both halves (args: the one view's frame; tex, J, ns: its skins' matrices)
  function draw(v, args, tex, J, ns) {
    const ghostSel = $('time-ghost');
    const active = on() && v >= 0 && X.view() !== 'cr' && L._lab_time_count(v) > 0 && Number(ghostSel.value) >= 0;
    caption.style.display = active ? 'flex' : 'none';
    if (!active) { shown = null; return false; }
    const gfx = X.gfx(), c = gfx.canvas, half = Math.floor(c.width / 2);
    const back = L._lab_time_cursor(v);
    // the right: the ghost's matrices at this frame, or the same pose where it has not replayed it
    const n = Math.max(1, ns);
    if (texBuf.length < n * J * 16) texBuf = new Float32Array(n * J * 16);
    const gt = texBuf.subarray(0, n * J * 16);
    let replayed = L._lab_time_ghost_start(v) >= 0;
    gt.fill(0);
    for (let k = 0; k < ns && replayed; k++) {
      const p = L._lab_split_skin_matrices(v, back, k);
      if (!p) { replayed = false; break; }
      gt.set(f32(p, 16 * L._lab_skin_joint_count(v, k)), k * J * 16);
    }
    let right = args;
    if (replayed) {
      gfx.matrices(gt, J, n);
      const s = X.skel(v), gp = f32(L._lab_time_ghost_pose(v, back), 3 * s.n), r = args.place, seg = [], pts = [];
      for (let j = 0; j < s.n; j++) {
        pts.push(gp[3 * j] + r[0], gp[3 * j + 1] + r[1], gp[3 * j + 2] + r[2]);
        const q = s.parents[j];
        if (q < 0 || (q === 0 && s.rootMarker)) continue;
        seg.push(gp[3 * q] + r[0], gp[3 * q + 1] + r[1], gp[3 * q + 2] + r[2], gp[3 * j] + r[0], gp[3 * j + 1] + r[1], gp[3 * j + 2] + r[2]);
      }
      right = Object.assign({}, args, { bones: args.bones ? new Float32Array(seg) : null, joints: args.joints ? new Float32Array(pts) : null, extra: null });
    }
    gfx.draw(Object.assign({}, right, { viewport: [half, 0, c.width - half, c.height] }));
    if (replayed) gfx.matrices(tex, J, n); // the view's own again
    // the left last: the character as played, whose projection picking and the view's box then use
    gfx.draw(Object.assign({}, args, { viewport: [0, 0, half, c.height], keep: true }));
    const mode = ghostSel.selectedOptions[0].textContent;
    const key = v + ':' + back + ':' + replayed + ':' + mode;
    if (!shown || shown.key !== key) {
      caption.textContent = '';
      caption.append(label('as played', 'split-left'),
        label(replayed ? 'the same switch under ' + mode : 'under ' + mode + ': as played here (before the switch)', 'split-right'));
    }
    shown = { key, view: v, back, replayed };
    return true;
  }

  return { start, draw, on,
    // for the tests: what the last frame drew ({ view, back, replayed } or null: one view)
    shown: () => (shown ? { view: shown.view, back: shown.back, replayed: shown.replayed } : null) };
})();
