// lab/lab_graphview.js - the live state-machine view (like an animator
// window): the base layer's machine as boxes, its transitions as arrows
// labelled with their conditions (read from the graph through
// stance/graph_query.h, lab_graph_json), the current state highlighted, a
// running transition's progress as a dot along its arrow; the parameters'
// values and the layers with their weights on the right. "Any state" is not
// a state: a dashed white box, its arrows dashed, never highlighted.
// Options (lab_editor2.js): which machine is shown (a nested one opened from
// its state), states placed by the user (their "editor" positions), and the
// machine each state nests: a nested-machine state is a larger box with its
// inner machine's states drawn inside it (the inner current state deep orange).
'use strict';

window.StanceGraphView = (function () {
  // desc: lab_graph_json's object; live: Float32Array from lab_live
  function layout(desc, machine, w, h) {
    const m = desc.machines[machine];
    const ids = [];
    for (let s = m.first; s < m.first + m.count; s++) ids.push(s);
    const hasAny = desc.transitions.some((t) => t.machine === machine && t.from < 0);
    const pos = {};
    const cx = w / 2, cy = h / 2 + 6, rx = w / 2 - 90, ry = h / 2 - 36;
    const n = ids.length;
    ids.forEach((s, i) => {
      const a = n === 1 ? Math.PI / 2 : Math.PI / 2 + (2 * Math.PI * i) / n + (n === 3 ? Math.PI : 0);
      pos[s] = [cx + rx * Math.cos(a) * (n === 2 ? 1 : 1), cy - ry * Math.sin(a)];
    });
    if (n === 3) { pos[ids[0]] = [cx - rx * 0.85, cy + ry * 0.55]; pos[ids[1]] = [cx + rx * 0.85, cy + ry * 0.55]; pos[ids[2]] = [cx, cy - ry * 0.85]; }
    if (n > 8) { // many states (a file's clips, one state each): rows, below the any-state box
      const cols = Math.max(1, Math.floor((w - 16) / (BW + 12))), rows = Math.ceil(n / cols);
      const top = hasAny ? BH + 22 : 10, rowH = Math.max(BH + 4, (h - 26 - top) / rows);
      ids.forEach((s, i) => { pos[s] = [8 + BW / 2 + (i % cols) * (BW + 12), top + BH / 2 + Math.floor(i / cols) * rowH]; });
    }
    if (hasAny) pos[-1] = [BW / 2 + 8, BH / 2 + 6];
    return pos;
  }

  const BW = 96, BH = 30, NW = 140, NH = 60; // a state's box; a nested-machine state's
  const boxSize = (desc, s) => (s >= 0 && desc.states[s].nested >= 0 ? [NW, NH] : [BW, BH]);
  // a name cut with an ellipsis to fit w pixels (clip-named states can be long)
  function fit(ctx, text, w) {
    if (ctx.measureText(text).width <= w) return text;
    let n = text.length;
    while (n > 1 && ctx.measureText(text.slice(0, n) + '\u2026').width > w) n--;
    return text.slice(0, n) + '\u2026';
  }
  function edgePoint(p, q, size) { // where the segment p->q leaves p's box
    const dx = q[0] - p[0], dy = q[1] - p[1], w = size ? size[0] : BW, h = size ? size[1] : BH;
    const k = Math.min(Math.abs(w / 2 / (dx || 1e-9)), Math.abs(h / 2 / (dy || 1e-9)));
    return [p[0] + dx * k, p[1] + dy * k];
  }

  function draw(canvas, desc, live, labels, opt) {
    const ctx = canvas.getContext('2d');
    const W = canvas.width, H = canvas.height, GW = W - 300;
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
    if (!desc) return null;
    opt = opt || {};
    const base = desc.layers.length ? desc.layers[0].machine : 0;
    const machine = opt.machine >= 0 && opt.machine < desc.machines.length ? opt.machine : base;
    const pos = layout(desc, machine, GW, H);
    const placed = opt.positions || {};
    for (const k of Object.keys(pos)) { // the user's places (clamped into the drawing)
      const s = Number(k), p = s >= 0 ? placed[desc.states[s].name] : null;
      if (!p) continue;
      const sz = boxSize(desc, s);
      pos[k] = [Math.max(sz[0] / 2, Math.min(GW - sz[0] / 2, p[0])), Math.max(sz[1] / 2, Math.min(H - 22 - sz[1] / 2, p[1]))];
    }
    const cur = live[3 * machine], from = live[3 * machine + 1], prog = live[3 * machine + 2];
    ctx.font = '12px sans-serif'; ctx.fillStyle = '#1f2328'; ctx.textAlign = 'left';
    ctx.fillText(machine === base ? 'machine ' + desc.machines[machine].name + ' (base layer)'
      : '\u25c0 ' + (opt.parent || 'back') + '   machine ' + desc.machines[machine].name + (opt.inState ? ' (in state ' + opt.inState + ')' : ''), 8, H - 8);
    // transitions: pairs in both directions are offset sideways
    const trans = desc.transitions.filter((t) => t.machine === machine);
    const many = desc.machines[machine].count > 8; // rows of states: only a running any-state arrow is drawn
    const seen = {};
    let running = null;
    for (const t of trans) {
      const a = pos[t.from], b = pos[t.to];
      if (!a || !b || t.from === t.to) continue;
      const key = Math.min(t.from, t.to) + ':' + Math.max(t.from, t.to);
      const back = seen[key] !== undefined && seen[key] !== t.from;
      seen[key] = seen[key] === undefined ? t.from : seen[key];
      const dx = b[0] - a[0], dy = b[1] - a[1], l = Math.hypot(dx, dy) || 1;
      const off = 8; // the way back runs on the other side
      const nx = -dy / l * off, ny = dx / l * off;
      const p = edgePoint([a[0] + nx, a[1] + ny], [b[0] + nx, b[1] + ny], boxSize(desc, t.from)),
        q = edgePoint([b[0] + nx, b[1] + ny], [a[0] + nx, a[1] + ny], boxSize(desc, t.to));
      const active = from >= 0 && t.to === cur && (t.from === from || t.from < 0);
      if (many && t.from < 0 && !active) continue;
      ctx.strokeStyle = active ? '#f59f00' : '#8a949e'; ctx.fillStyle = ctx.strokeStyle; ctx.lineWidth = active ? 3 : 1.5;
      ctx.setLineDash(t.from < 0 && !active ? [5, 4] : []);
      ctx.beginPath(); ctx.moveTo(p[0], p[1]); ctx.lineTo(q[0], q[1]); ctx.stroke();
      ctx.setLineDash([]);
      const ang = Math.atan2(q[1] - p[1], q[0] - p[0]);
      ctx.beginPath(); ctx.moveTo(q[0], q[1]);
      ctx.lineTo(q[0] - 9 * Math.cos(ang - 0.4), q[1] - 9 * Math.sin(ang - 0.4));
      ctx.lineTo(q[0] - 9 * Math.cos(ang + 0.4), q[1] - 9 * Math.sin(ang + 0.4)); ctx.fill();
      // label beside the arrow, at 40 % along it
      const side = Math.abs(dx) > Math.abs(dy) ? 1.9 : 4.5; // labels beside steep arrows need more room
      const lx = p[0] + (q[0] - p[0]) * 0.5 + nx * side, ly = p[1] + (q[1] - p[1]) * 0.5 + ny * side;
      ctx.font = '10px sans-serif'; ctx.textAlign = 'center'; ctx.fillStyle = active ? '#9a6700' : '#57606a';
      ctx.fillText(t.conds || '(always)', lx, ly + 3);
      if (active) {
        running = { from: t.from, to: t.to, progress: prog };
        const x = p[0] + (q[0] - p[0]) * prog, y = p[1] + (q[1] - p[1]) * prog;
        ctx.fillStyle = '#d62828'; ctx.beginPath(); ctx.arc(x, y, 6, 0, 2 * Math.PI); ctx.fill();
      }
      void back;
    }
    // states
    const names = [], styles = {}, boxes = {};
    for (const k of Object.keys(pos)) {
      const s = Number(k), p = pos[k];
      const name = s < 0 ? 'Any state' : desc.states[s].name;
      if (s >= 0) names.push(name);
      const any = s < 0, on = !any && s === cur, src = !any && s === from;
      // states: filled (current orange, the transition's source pale yellow, else blue); any state: dashed, white
      const st = any ? { fill: '#ffffff', stroke: '#6b7280', dash: true }
        : { fill: on ? '#f59f00' : src ? '#fde68a' : '#dbeafe', stroke: on ? '#9a6700' : '#4b5563', dash: false };
      styles[name] = st;
      const [bw, bh] = boxSize(desc, s), inner = any ? -1 : desc.states[s].nested;
      boxes[name] = [p[0], p[1], bw, bh];
      ctx.fillStyle = st.fill; ctx.strokeStyle = st.stroke; ctx.lineWidth = on ? 2.5 : 1.2;
      ctx.setLineDash(st.dash ? [4, 3] : []);
      ctx.beginPath(); ctx.roundRect(p[0] - bw / 2, p[1] - bh / 2, bw, bh, any ? BH / 2 : 6); ctx.fill(); ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = any ? '#6b7280' : '#111827'; ctx.font = (on ? 'bold ' : any ? 'italic ' : '') + '12px sans-serif'; ctx.textAlign = 'center';
      if (inner >= 0) { // a nested machine: its name and its states inside the box (double click: open it)
        ctx.fillText(fit(ctx, name, bw - 8), p[0], p[1] - bh / 2 + 13);
        const im = desc.machines[inner], icur = live[3 * inner], n = Math.min(im.count, 6), cols = Math.min(3, n);
        const cw = (bw - 8) / Math.max(1, cols), ch = 16, y0 = p[1] - bh / 2 + 19;
        ctx.font = '9px sans-serif';
        for (let i = 0; i < n; i++) {
          const is = im.first + i, x = p[0] - bw / 2 + 4 + (i % cols) * cw, y = y0 + Math.floor(i / cols) * (ch + 2);
          ctx.fillStyle = is === icur ? '#d9480f' : '#eef2ff'; // the inner current state: deep orange, seen on an orange box too ctx.strokeStyle = '#6b7280'; ctx.lineWidth = 0.8;
          ctx.beginPath(); ctx.roundRect(x + 1, y, cw - 2, ch, 3); ctx.fill(); ctx.stroke();
          ctx.fillStyle = is === icur ? '#ffffff' : '#111827'; ctx.fillText(fit(ctx, desc.states[is].name, cw - 6), x + cw / 2, y + 11);
        }
        if (im.count > n) { ctx.fillStyle = '#57606a'; ctx.fillText('+' + (im.count - n), p[0] + bw / 2 - 10, p[1] + bh / 2 - 3); }
        continue;
      }
      ctx.fillText(fit(ctx, name, BW - 8), p[0], p[1] + (any ? 4 : 1));
      if (!any) { ctx.font = '9px sans-serif'; ctx.fillStyle = '#57606a'; ctx.fillText(desc.states[s].motion, p[0], p[1] + 12); }
    }
    // parameters and layers
    const px = GW + 10;
    ctx.textAlign = 'left'; ctx.fillStyle = '#1f2328'; ctx.font = 'bold 12px sans-serif';
    ctx.fillText('parameters', px, 16);
    let k = 3 * desc.machines.length, y = 32;
    ctx.font = '12px sans-serif';
    for (const p of desc.params) {
      const v = live[k++];
      ctx.fillStyle = '#57606a'; ctx.fillText(p.name + ' (' + p.type + ')', px, y);
      ctx.fillStyle = '#111827'; ctx.textAlign = 'right';
      ctx.fillText(p.type === 'float' ? v.toFixed(2) : p.type === 'bool' ? (v ? 'true' : 'false') : String(Math.round(v)), W - 10, y);
      ctx.textAlign = 'left';
      y += 16;
    }
    y += 8; ctx.font = 'bold 12px sans-serif'; ctx.fillStyle = '#1f2328'; ctx.fillText('layers', px, y); y += 16;
    ctx.font = '12px sans-serif';
    const layerW = [];
    desc.layers.forEach((l, i) => {
      const w = live[k++];
      layerW.push(w);
      const ms = live[3 * l.machine];
      ctx.fillStyle = '#57606a'; ctx.fillText(l.name + ' (' + l.mode + ')', px, y);
      ctx.fillStyle = '#f0f3f6'; ctx.fillRect(px + 150, y - 10, 90, 11);
      ctx.fillStyle = '#4c8bf5'; ctx.fillRect(px + 150, y - 10, 90 * w, 11);
      ctx.fillStyle = '#111827'; ctx.textAlign = 'right'; ctx.fillText(w.toFixed(2), W - 10, y); ctx.textAlign = 'left';
      ctx.fillStyle = '#8a949e'; ctx.font = '10px sans-serif';
      ctx.fillText(desc.machines[l.machine].name + ': ' + (ms >= 0 ? desc.states[ms].name : '-'), px + 8, y + 12);
      ctx.font = '12px sans-serif';
      y += 28;
      void i;
    });
    void labels;
    return { styles, states: names, boxes, machine: desc.machines[machine].name, machineIndex: machine, base: machine === base,
      current: cur >= 0 ? desc.states[cur].name : '', transition: running ? desc.states[running.from < 0 ? from : running.from].name + '->' + desc.states[running.to].name : 'none', progress: running ? running.progress : 0, layers: layerW };
  }

  return { draw };
})();
