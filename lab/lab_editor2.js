// lab/lab_editor2.js - the state-machine diagram as part of the graph editor (issue 28 item 1):
// states placed by dragging their boxes on the diagram (kept in the graph JSON as each state's
// "editor": {"x", "y"}, a key the reader checks and the runtime ignores: docs/graph-format.md), and
// nested machines drawn inside their state (lab_graphview.js) and opened by a double click on it
// (a click on the "<" line under the diagram goes back out). Works on every view's diagram for
// opening nested machines; dragging needs the graph editor's graph (view 2, "Edit this graph"),
// since the places are saved in its JSON. A move changes the document only, so the character
// keeps running: the graph it runs is the same.
'use strict';

window.StanceEditor2 = (function () {
  let X = null, L = null;
  const opened = {};          // view -> stack of machine indices opened (the last is shown)
  let drag = null;            // { name, machine, dx, dy, x, y, moved }
  const nestedSeen = new WeakMap(); // desc -> the nested machine of each state, read once

  const $ = (id) => document.getElementById(id);

  // the editor's graph is the one view 2 runs
  function editing(v) {
    return v === 2 && window.StanceEditor && StanceEditor.model() && $('as-kind').textContent === 'edited in the page';
  }
  function shownMachine(v, desc) {
    const st = opened[v];
    if (!st || !st.length) return -1;
    const m = st[st.length - 1];
    return m < desc.machines.length ? m : -1;
  }

  // what lab_graphview.js draws with: the machine shown, the places saved, the nesting
  function diagram(v, desc) {
    if (!nestedSeen.has(desc)) {
      desc.states.forEach((s, i) => { s.nested = L._lab_state_nested(v, i); });
      nestedSeen.set(desc, true);
    }
    const base = desc.layers.length ? desc.layers[0].machine : 0;
    const m = shownMachine(v, desc), shown = m >= 0 ? m : base;
    const opt = { machine: shown, positions: {} };
    if (m >= 0 && m !== base) {
      const host = desc.states.find((s) => s.nested === m);
      if (host) { opt.inState = host.name; opt.parent = desc.machines[host.machine].name; }
    }
    if (editing(v)) {
      const model = StanceEditor.model(), mc = model.machines.find((x) => x.name === desc.machines[shown].name);
      if (mc) for (const s of mc.states) if (s.editor) opt.positions[s.name] = [s.editor.x, s.editor.y];
    }
    if (drag && drag.machine === desc.machines[shown].name) opt.positions[drag.name] = [drag.x, drag.y];
    return opt;
  }

  // the canvas point of a pointer event (the canvas is drawn at 960 px and shown scaled)
  function at(c, e) {
    const r = c.getBoundingClientRect();
    return [(e.clientX - r.left) * c.width / r.width, (e.clientY - r.top) * c.height / r.height];
  }
  function hit(seen, p) {
    if (!seen || !seen.boxes) return null;
    let best = null;
    for (const [name, b] of Object.entries(seen.boxes))
      if (name !== 'Any state' && Math.abs(p[0] - b[0]) <= b[2] / 2 && Math.abs(p[1] - b[1]) <= b[3] / 2) best = { name, b };
    return best;
  }

  function start(internals) {
    X = internals; L = X.L;
    const c = $('graph');
    c.addEventListener('pointerdown', (e) => {
      const v = X.activeView(), seen = X.machine();
      if (v < 0 || !seen) return;
      const p = at(c, e);
      if (p[1] > c.height - 20 && !seen.base) { // the "< back" line
        (opened[v] || []).pop();
        X.redraw();
        return;
      }
      if (!editing(v)) return;
      const h = hit(seen, p);
      if (!h) return;
      drag = { name: h.name, machine: seen.machine, dx: h.b[0] - p[0], dy: h.b[1] - p[1], x: h.b[0], y: h.b[1], moved: false, x0: p[0], y0: p[1] };
      c.setPointerCapture(e.pointerId);
      e.preventDefault();
    });
    c.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const p = at(c, e);
      if (Math.hypot(p[0] - drag.x0, p[1] - drag.y0) > 3) drag.moved = true;
      drag.x = p[0] + drag.dx; drag.y = p[1] + drag.dy;
      X.redraw();
    });
    const end = () => {
      if (!drag) return;
      const d = drag;
      drag = null;
      if (d.moved) {
        const seen = X.machine(), b = seen && seen.boxes[d.name]; // where it was drawn (clamped into the diagram)
        StanceEditor.place(d.machine, d.name, b ? b[0] : d.x, b ? b[1] : d.y);
      }
      X.redraw();
    };
    c.addEventListener('pointerup', end);
    c.addEventListener('pointercancel', end);
    c.addEventListener('dblclick', (e) => {
      const v = X.activeView(), seen = X.machine(), d = X.graph(v);
      if (v < 0 || !seen || !d) return;
      const h = hit(seen, at(c, e));
      if (!h) return;
      const s = d.states.findIndex((q) => q.name === h.name && q.machine === seen.machineIndex);
      if (s < 0 || !(d.states[s].nested >= 0)) return;
      (opened[v] = opened[v] || [seen.machineIndex]).push(d.states[s].nested);
      X.redraw();
    });
  }

  // a new graph in view v (a file loaded, the editor rebuilt it): machine indices may mean others
  function reset(v) { if (v === undefined) for (const k of Object.keys(opened)) delete opened[k]; else delete opened[v]; }

  return { start, diagram, reset,
    // for the tests: open machine `name` on view v's diagram (as a double click on its state does), or the base (null)
    open(v, m) { if (m === null) delete opened[v]; else (opened[v] = opened[v] || []).push(m); X.redraw(); } };
})();
