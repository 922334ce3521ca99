// lab/lab_editor.js - the graph editor of the lab's "Your character" view.
// The model is a graph JSON document (docs/graph-format.md) kept as a plain
// object; every edit changes it, pushes the previous text on the undo stack
// and sends the new text to C (lab_editor.c), which reads it with the CLI's
// own graph file reader against the loaded character and runs it at once in
// view 2, keeping the parameters' values. An error is the reader's
// "graph.json:LINE:COL: ..." line, shown under the editor and selected in
// the JSON text. Saves the JSON (what was built) and a compiled .stance.
// Masks are painted on a drawing of the skeleton: a click sets or clears a
// joint and the chain below it, shift+click the joint alone. States are
// placed on the state-machine diagram (lab_editor2.js calls place()).
// lab_editor3.js adds the panels for IK entries, clip notes and the fields
// of parameters, blend spaces and conditions it lists (StanceEditor.ui).
'use strict';

(function () {
  const TYPES = ['float', 'int', 'bool', 'trigger'];
  const OPS_NUM = ['>=', '>', '<=', '<', '==', '!='];
  const MODES = ['crossfade', 'cut', 'frozen', 'inertialize', 'inertialize_simple', 'deadblend'];
  const KINDS = ['clip', 'blend1d', 'blend2d', 'machine'];
  const UNDO_MAX = 200;

  let lab = null;            // what lab.js lends: { L, str, refresh, skel, loadSkeleton, fileName }
  let model = null;          // the graph JSON object being edited (null: none open)
  let text = '';             // the text last sent to C
  const undo = [], redo = [];
  let machine = 0;           // the machine whose states and transitions are shown
  let painting = -1;         // the layer whose mask the skeleton drawing paints (-1: none)
  let box = null;            // the editor's element
  let lastError = '';

  const $ = (id) => document.getElementById(id);
  const el = (tag, props, ...kids) => {
    const e = document.createElement(tag);
    if (props) for (const [k, v] of Object.entries(props)) {
      if (k === 'on') for (const [ev, f] of Object.entries(v)) e.addEventListener(ev, f);
      else if (k === 'data') Object.assign(e.dataset, v);
      else if (k in e && k !== 'list') e[k] = v;
      else e.setAttribute(k, v);
    }
    for (const c of kids) if (c != null) e.append(c);
    return e;
  };
  const clone = (o) => JSON.parse(JSON.stringify(o));

  // ---- the C side ---------------------------------------------------------------

  function setName(name) {
    const L = lab.L, n = new TextEncoder().encode(name).slice(0, 255);
    const p = L._lab_editor_name();
    L.HEAPU8.set(n, p);
    L.HEAPU8[p + n.length] = 0;
  }
  function sendText(t, call, name) {
    const L = lab.L;
    const bytes = new TextEncoder().encode(t);
    const ptr = L._lab_editor_text_buffer(bytes.length);
    if (!ptr) return lab.str(L._lab_error());
    L.HEAPU8.set(bytes, ptr);
    L.HEAPU8[ptr + bytes.length] = 0;
    setName(name || 'graph.json');
    return call() < 0 ? lab.str(L._lab_error()) : '';
  }
  // builds `t` (the model's text unless given) and runs it; '' or the message
  function build(t, name) {
    text = t !== undefined ? t : modelText();
    const err = sendText(text, lab.L._lab_editor_build, name);
    showError(err);
    if (!err) lab.refresh();
    return err;
  }
  const modelText = () => JSON.stringify(model, null, 2) + '\n';

  function showError(msg) {
    lastError = msg;
    const e = $('ed-error');
    if (e) e.textContent = msg;
    const ta = $('ed-json');
    if (ta) {
      if (document.activeElement !== ta) ta.value = text;
      const m = /:(\d+):(\d+): /.exec(msg);
      if (m) { // select the offending token's line from its column
        const lines = ta.value.split('\n'), line = Number(m[1]) - 1, col = Number(m[2]) - 1;
        let at = 0;
        for (let i = 0; i < line && i < lines.length; i++) at += lines[i].length + 1;
        const len = lines[line] ? Math.max(1, lines[line].length - col) : 1;
        ta.setSelectionRange(at + col, at + col + len);
        ta.dataset.errorLine = String(line + 1);
      } else delete ta.dataset.errorLine;
    }
    if (box) box.classList.toggle('ed-bad', !!msg);
  }

  // ---- edits, undo and redo -------------------------------------------------------

  // applies f to the model (f may return false: nothing changed), then builds and redraws
  function edit(f) {
    const before = JSON.stringify(model);
    if (f(model) === false) { render(); return; }
    for (const mc of model.machines || []) for (const tr of mc.transitions || []) // a group emptied goes, and the list with its last group
      if (tr.any_of) { tr.any_of = tr.any_of.filter((g) => g.length); if (!tr.any_of.length) delete tr.any_of; }
    if (JSON.stringify(model) === before) { render(); return; }
    undo.push(before);
    if (undo.length > UNDO_MAX) undo.shift();
    redo.length = 0;
    build();
    render();
  }
  function undoRedo(back) {
    const from = back ? undo : redo, to = back ? redo : undo;
    if (!from.length) return;
    const was = model;
    to.push(JSON.stringify(model));
    model = JSON.parse(from.pop());
    if (machine >= model.machines.length) machine = 0;
    if (!lastError && graphOnly(was) === graphOnly(model)) { text = modelText(); showError(''); } // only places moved: the same graph runs on
    else build();
    render();
  }
  // the document without the states' "editor" places (which the runtime ignores)
  const graphOnly = (m) => JSON.stringify(m, (k, v) => (k === 'editor' && v && typeof v === 'object' && !Array.isArray(v) && 'x' in v ? undefined : v));

  // ---- opening -------------------------------------------------------------------------

  function assetName() {
    const f = lab.fileName();
    return f && f !== 'none' ? f : 'character.stance';
  }
  function start(m) {
    model = m;
    if ($('ed-note')) $('ed-note').textContent = '';
    undo.length = 0; redo.length = 0;
    machine = 0; painting = -1;
    build();
    render();
  }
  // "Edit this graph": the graph written back with all the compiled form holds; when it is the loaded
  // file's, the page says once whether the text builds the same graph and what a .stance does not keep
  function openRunning() {
    const L = lab.L;
    setName(assetName());
    const p = L._lab_editor_json();
    if (!p) { showError(lab.str(L._lab_error())); return; }
    const json = lab.str(p), lost = lab.str(L._lab_editor_json_lost());
    start(JSON.parse(json));
    const same = lastError ? -1 : L._lab_editor_compare();
    const n = $('ed-note');
    if (same < 0) { n.textContent = ''; n.dataset.same = ''; return; }
    n.dataset.same = String(same);
    n.textContent = 'Opened from the compiled file: ' + lab.str(L._lab_editor_compare_text()) + '. A .stance keeps no diagram places, so the states are laid out anew' +
      (lost ? '; not in a compiled graph either: ' + lost : '') + '.';
  }
  function openNew() {
    start({ $schema: '../docs/graph.schema.json', version: 1, asset: assetName(), params: [], machines: [{ name: 'Base', states: [], transitions: [] }],
      layers: [{ name: 'base', machine: 'Base' }] });
  }
  async function openFile(file) {
    const t = await file.text();
    let m = null;
    try { m = JSON.parse(t); } catch (e) { m = null; }
    const err = build(t, file.name); // the reader's own message, at the file's line and column
    if (m && typeof m === 'object' && !Array.isArray(m)) {
      if (!Array.isArray(m.machines)) m.machines = [];
      model = m; undo.length = 0; redo.length = 0; machine = 0; painting = -1;
      if (!err) text = modelText(); // the text that ran, as the editor writes it
    }
    render();
    showError(err);
  }

  // ---- saving --------------------------------------------------------------------------

  function download(name, data, type) {
    const a = el('a', { href: URL.createObjectURL(new Blob([data], { type })), download: name });
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }
  function saveJson() {
    if (!model) return;
    const err = build();
    if (err) return;
    download('graph.json', text, 'application/json');
  }
  function saveStance() {
    if (!model) return;
    if (build()) return;
    const L = lab.L, n = L._lab_editor_save_stance();
    if (n < 0) { showError(lab.str(L._lab_error())); return; }
    let bytes = new Uint8Array(L.HEAPU8.buffer, L._lab_editor_saved(), n).slice();
    try { bytes = StanceImport.withLooks(L, bytes); } catch (e) { showError(e.message); return; } // the file's textures and colours
    download('graph.stance', bytes, 'application/octet-stream');
  }

  // ---- renames and deletes that keep references -------------------------------------

  function eachCondition(m, f) {
    for (const mc of m.machines) for (const t of mc.transitions || []) {
      if (t.when) t.when = t.when.filter((c) => f(c) !== false);
      if (t.any_of) t.any_of = t.any_of.map((g) => g.filter((c) => f(c) !== false));
    }
  }
  function renameParam(m, a, b) {
    eachCondition(m, (c) => { if (c.param === a) c.param = b; });
    for (const mc of m.machines) for (const s of mc.states) {
      if (s.blend1d && s.blend1d.param === a) s.blend1d.param = b;
      if (s.blend2d) { if (s.blend2d.param_x === a) s.blend2d.param_x = b; if (s.blend2d.param_y === a) s.blend2d.param_y = b; }
      if (s.speed_param === a) s.speed_param = b;
    }
  }
  function renameState(mc, a, b) {
    if (mc.entry === a) mc.entry = b;
    for (const t of mc.transitions || []) { if (t.from === a) t.from = b; if (t.to === a) t.to = b; }
  }
  function renameMachine(m, a, b) {
    for (const mc of m.machines) for (const s of mc.states) if (s.machine === a) s.machine = b;
    for (const l of m.layers || []) if (l.machine === a) l.machine = b;
  }
  function uniqueName(list, base) {
    let n = base, k = 2;
    while (list.some((x) => x.name === n)) n = base + k++;
    return n;
  }
  function moveItem(list, i, d) {
    const j = i + d;
    if (j < 0 || j >= list.length) return false;
    [list[i], list[j]] = [list[j], list[i]];
  }

  // ---- drawing the editor -------------------------------------------------------------

  function clips() {
    const L = lab.L, out = [];
    for (let i = 0; i < L._lab_asset_clip_count(); i++) out.push(lab.str(L._lab_asset_clip_name(i)));
    return out;
  }
  function select(options, value, onChange, props) {
    const s = el('select', props);
    for (const o of options) {
      const [v, label] = Array.isArray(o) ? o : [o, o];
      s.append(el('option', { value: v, textContent: label }));
    }
    s.value = value == null ? '' : String(value);
    s.addEventListener('change', () => onChange(s.value));
    return s;
  }
  function input(value, onChange, props) {
    const i = el('input', Object.assign({ type: 'text', value: value == null ? '' : String(value) }, props || {}));
    i.addEventListener('change', () => onChange(i.value));
    return i;
  }
  const num = (value, onChange, props) => input(value, (v) => {
    const x = v.trim() === '' ? null : Number(v);
    onChange(x !== null && !Number.isFinite(x) ? v : x); // a word stays a word: the reader names it
  }, Object.assign({ className: 'ed-num' }, props || {}));
  function btn(label, title, onClick, props) {
    return el('button', Object.assign({ className: 'ed-b', textContent: label, title, on: { click: onClick } }, props || {}));
  }
  function rowTools(list, i, what) {
    return [btn('\u2191', 'move up (earlier)', () => edit(() => moveItem(list(model), i, -1)), { data: { act: 'up' } }),
      btn('\u2193', 'move down (later)', () => edit(() => moveItem(list(model), i, 1)), { data: { act: 'down' } }),
      btn('\u00d7', 'delete this ' + what, () => edit((m) => del(m, list(m), i, what)), { data: { act: 'del' } })];
  }
  function del(m, list, i, what) {
    const item = list[i];
    list.splice(i, 1);
    if (what === 'parameter') eachCondition(m, (c) => c.param !== item.name);
    if (what === 'state') {
      const mc = m.machines[machine];
      mc.transitions = (mc.transitions || []).filter((t) => t.from !== item.name && t.to !== item.name);
      if (mc.entry === item.name) delete mc.entry;
    }
    if (what === 'machine') {
      m.layers = (m.layers || []).filter((l) => l.machine !== item.name);
      if (machine >= m.machines.length) machine = Math.max(0, m.machines.length - 1);
    }
    if (what === 'layer' && painting === i) painting = -1;
  }

  // the curves the document declares ("clips": {"C": {"curves": {"N": ...}}}, docs/curves.md)
  function curveNames() {
    const out = new Set();
    for (const c of Object.values(model.clips || {})) for (const n of Object.keys((c && c.curves) || {})) out.add(n);
    return [...out];
  }
  const numericParams = () => model.params.filter((p) => p.type === 'float' || p.type === 'int').map((p) => p.name);
  // a value that may be a number or a binding ({"param": P} / {"curve": C}): a kind select and the value's field;
  // `none` (a label) adds a kind for "absent" (an IK entry's weight: full)
  function bindingControl(value, set, kind, none) {
    const k = value == null ? (none ? 'none' : 'number') : typeof value === 'object' ? (value.param !== undefined ? 'param' : 'curve') : 'number';
    const kinds = [...(none ? [['none', none]] : []), ...(none ? [] : [['number', 'number']]), ['param', 'parameter'], ['curve', 'curve']];
    const params = numericParams(), curves = curveNames();
    const out = [select(kinds, k, (v) => edit(() => {
      if (v === 'none') set(undefined);
      else if (v === 'number') set(1);
      else if (v === 'param') set({ param: params[0] || '' });
      else set({ curve: curves[0] || '' });
    }), { data: { kind: kind + '-kind' } })];
    if (k === 'number') out.push(num(value, (v) => edit(() => set(v === null ? undefined : v)), { data: { kind } }));
    else if (k === 'param') out.push(select(params.includes(value.param) ? params : [value.param, ...params], value.param, (v) => edit(() => set({ param: v })), { data: { kind: kind + '-param' } }));
    else if (k === 'curve') out.push(select(curves.includes(value.curve) ? curves : [value.curve, ...curves], value.curve, (v) => edit(() => set({ curve: v })), { data: { kind: kind + '-curve' } }));
    return out;
  }

  function section(title, ...kids) { return el('div', { className: 'ed-sec' }, el('h3', { textContent: title }), ...kids); }

  function paramRows() {
    const rows = model.params.map((p, i) => el('div', { className: 'ed-row', data: { param: p.name } },
      input(p.name, (v) => edit((m) => { renameParam(m, m.params[i].name, v); m.params[i].name = v; }), { className: 'ed-name', title: 'rename' }),
      select(TYPES, p.type || 'float', (v) => edit((m) => {
        const q = m.params[i];
        q.type = v;
        if (v === 'trigger') delete q.value; else if (v === 'bool') q.value = !!q.value; else q.value = Number(q.value) || 0;
        if (v !== 'float') delete q.damping;
      })),
      p.type === 'trigger' ? null : p.type === 'bool'
        ? el('input', { type: 'checkbox', checked: !!p.value, title: 'initial value', on: { change: (e) => edit((m) => { m.params[i].value = e.target.checked; }) } })
        : num(p.value, (v) => edit((m) => { if (v === null) delete m.params[i].value; else m.params[i].value = v; }), { title: 'initial value' }),
      ...hook('param', p, i),
      ...rowTools((m) => m.params, i, 'parameter')));
    const name = el('input', { type: 'text', placeholder: 'new parameter', className: 'ed-name', id: 'ed-new-param' });
    const type = select(TYPES, 'float', () => {}, { id: 'ed-new-param-type' });
    const add = btn('add', 'add a parameter', () => {
      const n = name.value.trim() || 'param';
      edit((m) => {
        const p = { name: uniqueName(m.params, n), type: type.value };
        if (p.type === 'float' || p.type === 'int') p.value = 0;
        if (p.type === 'bool') p.value = false;
        m.params.push(p);
      });
    }, { id: 'ed-add-param' });
    return section('Parameters', ...rows, el('div', { className: 'ed-row' }, name, type, add));
  }

  function stateMotion(s) { return s.blend1d ? 'blend1d' : s.blend2d ? 'blend2d' : s.machine !== undefined ? 'machine' : 'clip'; }

  function stateRows() {
    const mc = model.machines[machine], cl = clips();
    const params = model.params.filter((p) => p.type === 'float' || p.type === 'int').map((p) => p.name);
    const at = (m) => m.machines[machine].states;
    const rows = mc.states.map((s, i) => {
      const kind = stateMotion(s);
      const head = el('div', { className: 'ed-row' },
        el('input', { type: 'radio', name: 'ed-entry', checked: (mc.entry || (mc.states[0] && mc.states[0].name)) === s.name, title: 'entry state',
          on: { change: () => edit((m) => { m.machines[machine].entry = s.name; }) } }),
        input(s.name, (v) => edit((m) => { renameState(m.machines[machine], at(m)[i].name, v); at(m)[i].name = v; }), { className: 'ed-name', title: 'rename' }),
        select(KINDS, kind, (v) => edit((m) => {
          const st = at(m)[i];
          for (const k of ['clip', 'blend1d', 'blend2d', 'machine']) delete st[k];
          if (v === 'clip') st.clip = cl[0] || '';
          else if (v === 'machine') st.machine = (m.machines.find((x, k) => k !== machine) || {}).name || '';
          else {
            const e = [{ clip: cl[0] || '', x: 0 }, { clip: cl[1] || cl[0] || '', x: 1 }];
            if (v === 'blend2d') { e[0].y = 0; e[1].y = 0; st.blend2d = { param_x: params[0] || '', param_y: params[1] || params[0] || '', entries: e }; }
            else st.blend1d = { param: params[0] || '', entries: e };
          }
        }), { data: { kind: 'motion' } }),
        el('label', { title: 'play once and hold the last frame' }, el('input', { type: 'checkbox', checked: !!s.once,
          on: { change: (e) => edit((m) => { if (e.target.checked) at(m)[i].once = true; else delete at(m)[i].once; }) } }), 'once'),
        ...rowTools(at, i, 'state'));
      const body = el('div', { className: 'ed-sub' });
      if (kind === 'clip') body.append(select(cl.includes(s.clip) ? cl : [s.clip, ...cl], s.clip, (v) => edit(() => { at(model)[i].clip = v; }), { data: { kind: 'clip' } }));
      else if (kind === 'machine') body.append(select(model.machines.map((x) => x.name), s.machine, (v) => edit(() => { at(model)[i].machine = v; })));
      else {
        const two = kind === 'blend2d', b = s[kind];
        const bp = (m) => at(m)[i][kind];
        body.append(el('div', { className: 'ed-row' }, two ? 'x' : 'on',
          select(['', ...params], two ? b.param_x : b.param, (v) => edit((m) => { if (two) bp(m).param_x = v; else bp(m).param = v; }), { data: { kind: 'param-x' } }),
          two ? 'y' : null,
          two ? select(['', ...params], b.param_y, (v) => edit((m) => { bp(m).param_y = v; }), { data: { kind: 'param-y' } }) : null,
          ...hook('blend', b, bp, two)));
        (b.entries || []).forEach((en, k) => body.append(el('div', { className: 'ed-row ed-entry' },
          select(cl.includes(en.clip) ? cl : [en.clip, ...cl], en.clip, (v) => edit((m) => { bp(m).entries[k].clip = v; })),
          'x', num(en.x, (v) => edit((m) => { bp(m).entries[k].x = v; }), { data: { kind: 'x' } }),
          two ? 'y' : null, two ? num(en.y, (v) => edit((m) => { bp(m).entries[k].y = v; }), { data: { kind: 'y' } }) : null,
          btn('\u00d7', 'delete this entry', () => edit((m) => { bp(m).entries.splice(k, 1); })))));
        body.append(btn('add entry', 'add a clip at a position', () => edit((m) => {
          const es = bp(m).entries, last = es[es.length - 1];
          const e = { clip: cl[0] || '', x: last ? Number(last.x) + 1 : 0 };
          if (two) e.y = last ? last.y : 0;
          es.push(e);
        }), { data: { act: 'add-entry' } }));
      }
      body.append(el('div', { className: 'ed-row' }, 'speed',
        num(s.speed, (v) => edit((m) => { if (v === null || v === 1) delete at(m)[i].speed; else at(m)[i].speed = v; }),
          { data: { kind: 'speed' }, placeholder: '1', title: 'playback rate in [-100, 100], not 0 (empty: 1)' }),
        '\u00d7', select([['', '(no parameter)'], ...params], s.speed_param || '', (v) => edit((m) => { if (v) at(m)[i].speed_param = v; else delete at(m)[i].speed_param; }),
          { data: { kind: 'speed-param' }, title: 'a float or int parameter multiplying the rate' })));
      return el('div', { className: 'ed-item', data: { state: s.name } }, head, body);
    });
    const add = (kind) => btn('+ ' + kind, 'add a ' + kind + ' state', () => edit((m) => {
      const mc2 = m.machines[machine];
      const s = { name: uniqueName(mc2.states, kind === 'clip' ? (cl[0] || 'State') : kind === 'blend1d' ? 'Blend' : 'Blend2D') };
      if (kind === 'clip') s.clip = cl[0] || '';
      else if (kind === 'blend1d') s.blend1d = { param: params[0] || '', entries: [{ clip: cl[0] || '', x: 0 }, { clip: cl[1] || cl[0] || '', x: 1 }] };
      else s.blend2d = { param_x: params[0] || '', param_y: params[1] || params[0] || '', entries: [{ clip: cl[0] || '', x: 0, y: 0 }, { clip: cl[1] || cl[0] || '', x: 1, y: 0 }, { clip: cl[2] || cl[0] || '', x: 0, y: 1 }] };
      mc2.states.push(s);
    }), { data: { act: 'add-' + kind } });
    return section('States', ...rows, el('div', { className: 'ed-row' }, add('clip'), add('blend1d'), add('blend2d')));
  }

  // a condition on a parameter, or on a curve ({"curve": C}, read as a float): the first list gives both
  function conditionRow(t, list, k, path) {
    const c = list[k], p = model.params.find((x) => x.name === c.param);
    const numeric = c.curve !== undefined || !p || p.type === 'float' || p.type === 'int';
    const names = model.params.map((x) => x.name).concat(c.curve === undefined && !model.params.some((x) => x.name === c.param) ? [c.param] : []);
    const curves = curveNames().concat(c.curve !== undefined && !curveNames().includes(c.curve) ? [c.curve] : []);
    return el('div', { className: 'ed-row ed-cond' },
      select([...names, ...curves.map((n) => ['\u0000' + n, 'curve ' + n])], c.curve !== undefined ? '\u0000' + c.curve : c.param, (v) => edit((m) => {
        const cc = path(m)[k];
        if (v.startsWith('\u0000')) { // a curve: a float
          delete cc.param; cc.curve = v.slice(1);
          if (!OPS_NUM.includes(cc.op)) { cc.op = '>='; cc.value = cc.value || 0; }
          return;
        }
        const q = m.params.find((x) => x.name === v);
        delete cc.curve;
        cc.param = v;
        if (q && (q.type === 'bool' || q.type === 'trigger')) { delete cc.value; delete cc.hysteresis; if (OPS_NUM.includes(cc.op)) delete cc.op; }
        else if (q && !OPS_NUM.includes(cc.op)) { cc.op = '>='; cc.value = cc.value || 0; }
      }), { data: { kind: 'cond-param' } }),
      select(numeric ? OPS_NUM : ['true', 'false'], c.op || (numeric ? '>=' : 'true'), (v) => edit((m) => { path(m)[k].op = v; }), { data: { kind: 'op' } }),
      numeric ? num(c.value, (v) => edit((m) => { path(m)[k].value = v; }), { data: { kind: 'value' } }) : null,
      numeric && /[<>]/.test(c.op || '>=') ? num(c.hysteresis, (v) => edit((m) => { if (v === null || v === 0) delete path(m)[k].hysteresis; else path(m)[k].hysteresis = v; }),
        { data: { kind: 'hysteresis' }, title: 'hysteresis (moves the threshold away while the transition is not active)', placeholder: '\u00b1' }) : null,
      btn('\u00d7', 'delete this condition', () => edit((m) => { path(m).splice(k, 1); })));
  }

  function transitionRows() {
    const mc = model.machines[machine];
    if (!mc.transitions) mc.transitions = [];
    const names = mc.states.map((s) => s.name);
    const at = (m) => m.machines[machine].transitions;
    const rows = mc.transitions.map((t, i) => {
      const tr = (m) => at(m)[i];
      const exit = t.exit === undefined ? 'none' : t.exit === 'end' ? 'end' : 'time';
      const conds = el('div', { className: 'ed-sub' });
      (t.when || []).forEach((c, k) => conds.append(conditionRow(t, t.when, k, (m) => tr(m).when)));
      const newCond = (m) => {
        const p = m.params[0];
        if (!p) return null;
        const c = { param: p.name };
        if (p.type === 'float' || p.type === 'int') { c.op = '>='; c.value = 0; }
        return c;
      };
      // any_of: groups of conditions, one of which must hold (with every condition above)
      (t.any_of || []).forEach((g, gi) => {
        const grp = el('div', { className: 'ed-group', data: { group: String(gi) } },
          el('div', { className: 'ed-row' }, el('span', { className: 'hint', textContent: (gi ? 'or group ' : 'and one group of: group ') + (gi + 1) }),
            btn('+ condition', 'add a condition to this group (all of the group must hold)', () => edit((m) => {
              const c = newCond(m);
              if (!c) return false;
              tr(m).any_of[gi].push(c);
            }), { data: { act: 'add-group-cond' } }),
            btn('\u00d7 group', 'delete this group', () => edit((m) => { tr(m).any_of.splice(gi, 1); }), { data: { act: 'del-group' } })));
        g.forEach((c, k) => grp.append(conditionRow(t, g, k, (m) => tr(m).any_of[gi])));
        conds.append(grp);
      });
      conds.append(el('div', { className: 'ed-row' }, btn('+ condition', 'add a condition (all must hold)', () => edit((m) => {
        const c = newCond(m);
        if (!c) return false;
        (tr(m).when = tr(m).when || []).push(c);
      }), { data: { act: 'add-cond' } }),
      btn('+ or group', 'add a group of conditions: the transition needs one group to hold (and every condition above)', () => edit((m) => {
        const c = newCond(m);
        if (!c) return false;
        (tr(m).any_of = tr(m).any_of || []).push([c]);
      }), { data: { act: 'add-group' } })));
      const opts = el('div', { className: 'ed-row' },
        'exit', select([['none', 'conditions only'], ['end', 'at the end'], ['time', 'at time']], exit, (v) => edit((m) => {
          if (v === 'none') delete tr(m).exit; else if (v === 'end') tr(m).exit = 'end'; else tr(m).exit = 1;
        }), { data: { kind: 'exit' } }),
        exit === 'time' ? num(t.exit, (v) => edit((m) => { tr(m).exit = v; }), { data: { kind: 'exit-time' }, title: 'normalized time' }) : null,
        'blend', num(t.blend_time, (v) => edit((m) => { if (v === null) delete tr(m).blend_time; else tr(m).blend_time = v; }), { data: { kind: 'blend' }, title: 'seconds (empty: the machine\'s)' }),
        select(MODES, t.mode || mc.mode || 'crossfade', (v) => edit((m) => { tr(m).mode = v; }), { data: { kind: 'mode' } }),
        select(['smoothstep', 'linear'], t.easing || mc.easing || 'smoothstep', (v) => edit((m) => { tr(m).easing = v; }), { data: { kind: 'easing' } }),
        el('label', { title: 'while it blends, the target\'s own transitions wait' }, el('input', { type: 'checkbox', checked: !!t.uninterruptible, data: { kind: 'uninterruptible' },
          on: { change: (e) => edit((m) => { if (e.target.checked) tr(m).uninterruptible = true; else delete tr(m).uninterruptible; }) } }), 'uninterruptible'),
        t.from === '*' ? el('label', { title: 'from any state: may restart the state it goes to' }, el('input', { type: 'checkbox', checked: !!t.allow_self, data: { kind: 'allow-self' },
          on: { change: (e) => edit((m) => { if (e.target.checked) tr(m).allow_self = true; else delete tr(m).allow_self; }) } }), 'allow self') : null);
      const head = el('div', { className: 'ed-row' },
        el('span', { className: 'ed-prio', textContent: String(i + 1), title: 'priority: the first that holds wins (drag to reorder)' }),
        select(['*', ...names], t.from, (v) => edit((m) => { tr(m).from = v; if (v !== '*') delete tr(m).allow_self; }), { data: { kind: 'from' } }), '\u2192',
        select(names, t.to, (v) => edit((m) => { tr(m).to = v; }), { data: { kind: 'to' } }),
        ...rowTools(at, i, 'transition'));
      const item = el('div', { className: 'ed-item', draggable: true, data: { transition: String(i) } }, head, conds, opts);
      item.addEventListener('dragstart', (e) => { e.dataTransfer.setData('text/plain', String(i)); });
      item.addEventListener('dragover', (e) => e.preventDefault());
      item.addEventListener('drop', (e) => {
        e.preventDefault();
        const from = Number(e.dataTransfer.getData('text/plain'));
        if (!(from >= 0) || from === i) return;
        edit((m) => { const l = at(m); const [x] = l.splice(from, 1); l.splice(i, 0, x); });
      });
      return item;
    });
    const add = btn('+ transition', 'add a transition (checked after the ones above)', () => edit((m) => {
      const n = m.machines[machine].states.map((s) => s.name);
      if (n.length < 1) return false;
      at(m).push({ from: n[0], to: n[1] || n[0], when: [] });
    }), { data: { act: 'add-transition' } });
    return section('Transitions (priority order)', ...rows, add);
  }

  function maskText(mask) {
    if (!mask) return 'whole body';
    if (mask.subtree) return 'below ' + mask.subtree;
    if (mask.joints) return mask.joints.length + ' joints';
    if (mask.weights) return Object.keys(mask.weights).length + ' joints (weights)';
    return '?';
  }

  function layerRows() {
    if (!model.layers) model.layers = [];
    const at = (m) => m.layers;
    const rows = model.layers.map((l, i) => el('div', { className: 'ed-item', data: { layer: l.name } },
      el('div', { className: 'ed-row' },
        input(l.name, (v) => edit((m) => { m.layers[i].name = v; }), { className: 'ed-name' }),
        select(model.machines.map((x) => x.name), l.machine, (v) => edit((m) => { m.layers[i].machine = v; }), { data: { kind: 'machine' } }),
        ...rowTools(at, i, 'layer')),
      el('div', { className: 'ed-row' },
        select(['override', 'additive'], l.mode || 'override', (v) => edit((m) => { m.layers[i].mode = v; if (v !== 'additive') delete m.layers[i].additive_ref; }), { data: { kind: 'layer-mode' } }),
        select(['local', 'mesh'], l.space || 'local', (v) => edit((m) => { m.layers[i].space = v; }), { data: { kind: 'space' } }),
        'weight', ...bindingControl(l.weight === undefined ? 1 : l.weight, (v) => { if (v === undefined) delete model.layers[i].weight; else model.layers[i].weight = v; }, 'weight'),
        'priority', num(l.priority || 0, (v) => edit((m) => { if (!v) delete m.layers[i].priority; else m.layers[i].priority = v; }), { data: { kind: 'priority' } })),
      (l.mode || 'override') === 'additive' ? el('div', { className: 'ed-row' }, 'reference',
        select([['', 'each clip\'s first frame'], ...clips().flatMap((c) => [['first_frame:' + c, c + ' first frame'], ['clip:' + c, c + ' in sync']])],
          l.additive_ref && l.additive_ref !== 'first_frame' ? l.additive_ref : '', (v) => edit((m) => { if (v) m.layers[i].additive_ref = v; else delete m.layers[i].additive_ref; }),
          { data: { kind: 'additive-ref' } })) : null,
      el('div', { className: 'ed-row' }, 'mask: ' + maskText(l.mask),
        btn(painting === i ? 'done' : 'paint', 'click joints on the skeleton drawing below', () => { painting = painting === i ? -1 : i; render(); }, { data: { act: 'paint' } }),
        l.mask ? btn('whole body', 'remove the mask', () => edit((m) => { delete m.layers[i].mask; }), { data: { act: 'unmask' } }) : null)));
    const add = btn('+ layer', 'add a layer on a machine', () => edit((m) => {
      const used = new Set(m.layers.map((l) => l.machine));
      let mc = m.machines.find((x) => !used.has(x.name) && !m.machines.some((y) => y.states.some((s) => s.machine === x.name)));
      if (!mc) {
        const cl = clips();
        mc = { name: uniqueName(m.machines, 'Layer'), states: [{ name: uniqueName([], cl[0] || 'Pose'), clip: cl[0] || '' }], transitions: [] };
        m.machines.push(mc);
      }
      m.layers.push({ name: uniqueName(m.layers, mc.name.toLowerCase()), machine: mc.name, mode: 'override', weight: 1 });
    }), { data: { act: 'add-layer' } });
    return section('Layers', ...rows, add, skeletonCanvas());
  }

  // what lab_editor3.js adds: whole panels, and fields in a row (hooks[name](...) -> nodes)
  const panels = [], hooks = {};
  const hook = (name, ...a) => (hooks[name] ? hooks[name](...a) : []);

  // ---- painting masks on the skeleton ----------------------------------------------

  function skeletonCanvas() {
    const c = el('canvas', { id: 'ed-skeleton', width: 300, height: 260, className: painting >= 0 ? '' : 'hidden',
      title: 'click: the joint and the chain below it; shift+click: the joint alone' });
    c.addEventListener('click', (e) => paintAt(c, e));
    requestAnimationFrame(() => drawSkeleton(c));
    return c;
  }
  // the joints' screen places in the drawing (front view of the pose now, x to the right, y up)
  function placeJoints(c) {
    const s = lab.skel(2);
    if (!s) return null;
    const pose = lab.pose(2);
    const n = s.n;
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (let j = 0; j < n; j++) {
      x0 = Math.min(x0, pose.x[j]); x1 = Math.max(x1, pose.x[j]); y0 = Math.min(y0, pose.y[j]); y1 = Math.max(y1, pose.y[j]);
    }
    const k = Math.min((c.width - 20) / Math.max(1e-6, x1 - x0), (c.height - 20) / Math.max(1e-6, y1 - y0));
    const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    const pts = [];
    for (let j = 0; j < n; j++) pts.push([c.width / 2 - (pose.x[j] - cx) * k, c.height / 2 - (pose.y[j] - cy) * k]);
    return { s, pts };
  }
  function maskJoints(l, names) {
    const m = l && l.mask;
    if (!m) return new Set(names);
    if (m.joints) return new Set(m.joints);
    if (m.weights) return new Set(Object.keys(m.weights).filter((k) => m.weights[k] > 0));
    if (m.subtree) { const s = lab.skel(2), i = names.indexOf(m.subtree); return new Set(below(s, i).map((j) => names[j])); }
    return new Set();
  }
  function below(s, j) {
    const out = [];
    if (j < 0) return out;
    const stack = [j];
    while (stack.length) {
      const k = stack.pop();
      out.push(k);
      for (let c = 0; c < s.n; c++) if (s.parents[c] === k) stack.push(c);
    }
    return out.sort((a, b) => a - b);
  }
  function drawSkeleton(c) {
    if (!c.isConnected || painting < 0 || !model) return;
    const g = c.getContext('2d'), P = placeJoints(c);
    g.clearRect(0, 0, c.width, c.height);
    if (!P) return;
    const names = P.s.names, on = maskJoints(model.layers[painting], names);
    g.lineWidth = 2;
    for (let j = 0; j < P.s.n; j++) {
      const p = P.s.parents[j];
      if (p < 0) continue;
      g.strokeStyle = on.has(names[j]) && on.has(names[p]) ? '#d97706' : '#9aa5b1';
      g.beginPath(); g.moveTo(P.pts[p][0], P.pts[p][1]); g.lineTo(P.pts[j][0], P.pts[j][1]); g.stroke();
    }
    for (let j = 0; j < P.s.n; j++) {
      g.fillStyle = on.has(names[j]) ? '#d97706' : '#57606a';
      g.beginPath(); g.arc(P.pts[j][0], P.pts[j][1], 3.5, 0, 2 * Math.PI); g.fill();
    }
    c.dataset.painted = String(on.size);
  }
  // the nearest joint within 12 px of a click: sets (or clears, when it is on) it and, without shift, the chain below
  function paintAt(c, e) {
    if (painting < 0) return;
    const P = placeJoints(c);
    if (!P) return;
    const r = c.getBoundingClientRect();
    const x = (e.clientX - r.left) * c.width / r.width, y = (e.clientY - r.top) * c.height / r.height;
    let best = -1, bd = 144;
    P.pts.forEach((p, j) => { const d = (p[0] - x) ** 2 + (p[1] - y) ** 2; if (d < bd) { bd = d; best = j; } });
    if (best < 0) return;
    const names = P.s.names;
    const layer = painting;
    edit((m) => {
      const l = m.layers[layer];
      const on = l.mask ? maskJoints(l, names) : new Set();
      const set = e.shiftKey ? [best] : below(P.s, best);
      const clear = on.has(names[best]);
      for (const j of set) { if (clear) on.delete(names[j]); else on.add(names[j]); }
      if (!on.size) delete l.mask;
      else l.mask = { joints: names.filter((n) => on.has(n)) };
    });
  }

  // ---- the editor as a whole ------------------------------------------------------------

  function render() {
    if (!box) return;
    const body = $('ed-body');
    body.textContent = '';
    $('ed-undo').disabled = !undo.length;
    $('ed-redo').disabled = !redo.length;
    for (const id of ['ed-save-json', 'ed-save-stance']) $(id).disabled = !model;
    if (!model) return;
    if (!Array.isArray(model.params)) model.params = [];
    if (!Array.isArray(model.machines) || !model.machines.length) model.machines = [{ name: 'Base', states: [], transitions: [] }];
    model.machines.forEach((mc) => { if (!Array.isArray(mc.states)) mc.states = []; });
    const top = el('div', { className: 'ed-row' }, 'asset',
      input(model.asset, (v) => edit((m) => { m.asset = v; }), { id: 'ed-asset', title: 'the asset the saved JSON names (for the CLI: a path from the file)' }));
    const mrow = el('div', { className: 'ed-row' }, 'machine',
      select(model.machines.map((x, i) => [String(i), x.name]), String(machine), (v) => { machine = Number(v); render(); }, { id: 'ed-machine' }),
      input(model.machines[machine].name, (v) => edit((m) => { renameMachine(m, m.machines[machine].name, v); m.machines[machine].name = v; }), { className: 'ed-name', title: 'rename the machine', id: 'ed-machine-name' }),
      btn('+', 'add a machine', () => edit((m) => { m.machines.push({ name: uniqueName(m.machines, 'Machine'), states: [], transitions: [] }); machine = m.machines.length - 1; }), { id: 'ed-add-machine' }),
      model.machines.length > 1 ? btn('\u00d7', 'delete this machine', () => edit((m) => del(m, m.machines, machine, 'machine'))) : null);
    body.append(top, paramRows(), section('Machines', mrow), stateRows(), transitionRows(), layerRows());
    for (const f of panels) { const sec = f(); if (sec) body.append(sec); } // lab_editor3.js: IK, clip notes
    const ta = $('ed-json');
    if (document.activeElement !== ta) ta.value = text;
  }

  function make(panel) {
    const style = el('style', { textContent: `
      #editor { border-top: 1px solid #d0d7de; margin-top: 8px; padding-top: 4px; }
      #editor h3 { font-size: 13px; margin: 8px 0 2px; }
      #editor > summary { font-weight: 600; font-size: 14px; margin: 6px 0 4px; cursor: pointer; }
      #editor:not([open]) > :not(summary) { display: none; }
      #editor .ed-row { display: flex; align-items: center; gap: 4px; margin: 2px 0; flex-wrap: wrap; font-size: 12px; }
      #editor input[type=text] { font: 12px system-ui, sans-serif; width: 78px; padding: 1px 3px; }
      #editor input.ed-num { width: 46px; }
      #editor select { font: 12px system-ui, sans-serif; max-width: 118px; }
      #editor .ed-b { font: 12px system-ui, sans-serif; padding: 1px 4px; cursor: pointer; }
      #editor .ed-item { border: 1px solid #e1e4e8; border-radius: 4px; padding: 2px 4px; margin: 3px 0; background: #fbfcfd; }
      #editor .ed-sub { margin-left: 14px; }
      #editor .ed-group { border-left: 2px solid #c7d2fe; padding-left: 4px; margin: 2px 0; }
      #editor .ed-prio { font-weight: 600; min-width: 14px; cursor: grab; }
      #editor textarea { width: 100%; height: 160px; font: 11px ui-monospace, monospace; box-sizing: border-box; }
      #editor.ed-bad #ed-error { display: block; }
      #ed-error { display: none; position: sticky; top: 0; z-index: 1; background: #fff1f0; border: 1px solid #f3b7b1; padding: 3px 5px; font-size: 12px; }
      #ed-skeleton { border: 1px solid #d0d7de; background: #fff; cursor: crosshair; margin-top: 4px; }
      /* item 5: the side panel scrolls inside the window (1280x720 up) */
      .panel { max-height: calc(100vh - 84px); overflow-y: auto; box-sizing: border-box; }
    ` });
    document.head.append(style);
    const file = el('input', { type: 'file', id: 'ed-file', accept: '.json,application/json', className: 'hidden' });
    file.addEventListener('change', () => { if (file.files[0]) openFile(file.files[0]); file.value = ''; });
    const ta = el('textarea', { id: 'ed-json', spellcheck: false, title: 'the graph JSON that runs; edit and press "Run the text"' });
    // closed until the user opens it: the panel keeps to 1280x720 without scrolling for those who only drive
    box = el('details', { id: 'editor' },
      el('summary', { className: 'ed-title', textContent: 'Graph editor', title: 'build and change this character\'s graph' }),
      el('div', { className: 'ed-row' },
        btn('Edit this graph', 'open the graph the character runs', openRunning, { id: 'ed-open' }),
        btn('New', 'a new graph on this character', openNew, { id: 'ed-new' }),
        btn('Open JSON\u2026', 'a graph JSON for this character', () => file.click(), { id: 'ed-open-file' }), file),
      el('div', { className: 'ed-row' },
        btn('Undo', 'Ctrl+Z', () => undoRedo(true), { id: 'ed-undo' }),
        btn('Redo', 'Ctrl+Y or Ctrl+Shift+Z', () => undoRedo(false), { id: 'ed-redo' }),
        btn('Save JSON', 'the graph JSON (docs/graph.schema.json)', saveJson, { id: 'ed-save-json' }),
        btn('Save .stance', 'compiled: skeleton, meshes, the clips it plays and the graph', saveStance, { id: 'ed-save-stance' })),
      el('div', { id: 'ed-error', className: 'err' }),
      el('div', { id: 'ed-note', className: 'hint' }),
      el('div', { id: 'ed-body' }),
      el('details', { id: 'ed-text' }, el('summary', { textContent: 'JSON text' }), ta,
        btn('Run the text', 'build the text as it is', () => {
          let m = null;
          try { m = JSON.parse(ta.value); } catch (e) { m = null; }
          const before = JSON.stringify(model);
          const err = build(ta.value);
          if (m && !err) { if (model) undo.push(before); redo.length = 0; model = m; render(); }
        }, { id: 'ed-run-text' })));
    box.addEventListener('keydown', (e) => { if (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA' || e.target.tagName === 'SELECT') e.stopPropagation(); });
    panel.append(box);
    render();
  }

  window.StanceEditor = {
    // lab.js lends its module and helpers once the page starts
    init(api) {
      lab = api;
      const at = $('as-error');
      make(at.parentNode);
      document.addEventListener('keydown', (e) => {
        if (!box || !box.open || box.offsetParent === null || !model) return; // the editor is not shown
        const t = e.target && e.target.tagName;
        if (t === 'INPUT' || t === 'TEXTAREA') return; // their own undo
        const z = (e.ctrlKey || e.metaKey) && (e.key === 'z' || e.key === 'Z');
        const y = (e.ctrlKey || e.metaKey) && (e.key === 'y' || e.key === 'Y');
        if (z || y) { e.preventDefault(); e.stopImmediatePropagation(); undoRedo(z && !e.shiftKey); }
      }, true);
    },
    // a new file was loaded: its graph is not the one open
    loaded() {
      model = null; text = ''; undo.length = 0; redo.length = 0; painting = -1;
      showError('');
      render();
    },
    model: () => (model ? clone(model) : null),
    // the state-machine diagram moved a state: its "editor" place in the document (undone as any edit). The
    // graph is the same (the runtime ignores the key), so nothing is rebuilt and the character runs on.
    place(machineName, stateName, x, y) {
      const mc = model && model.machines.find((m) => m.name === machineName), s = mc && mc.states.find((q) => q.name === stateName);
      if (!s) return false;
      const before = JSON.stringify(model);
      s.editor = { x: Math.round(x), y: Math.round(y) };
      if (JSON.stringify(model) === before) return false;
      undo.push(before);
      if (undo.length > UNDO_MAX) undo.shift();
      redo.length = 0;
      if (lastError) build(); // the text shown is the failing one: build the new one to show where it fails now
      else { text = modelText(); showError(''); }
      render();
      return true;
    },
    text: () => text,
    error: () => lastError,
    // for lab_editor3.js: the editor's parts, and where it adds panels and fields
    ui: { el, btn, select, input, num, section, bindingControl, clips, curveNames, numericParams, uniqueName, panels, hooks,
      edit: (f) => edit(f), model: () => model, lab: () => lab, render: () => render() },
    undoDepth: () => [undo.length, redo.length],
    // a scenario script (its JSON text) run on the graph the editor built, as `stance scenario --graph G
    // --script S --mode M --poses OUT` runs it: { frames, joints, poses (x, y, z per joint per frame) } or { error }
    scenario(script, mode, blendTime, easing) {
      const L = lab.L;
      const err = sendText(script, () => 0, 'script.json');
      if (err) return { error: err };
      const n = L._lab_editor_scenario(mode, blendTime, easing);
      if (n < 0) return { error: lab.str(L._lab_error()) };
      const joints = lab.skel(2).n;
      return { frames: n, joints, poses: Array.from(new Float32Array(L.HEAPF32.buffer, L._lab_editor_poses(), n * joints * 3)) };
    },
    // for the tests: where joint `name` is drawn in the skeleton canvas, [x, y, width, height] (canvas pixels)
    jointAt(name) {
      const c = $('ed-skeleton'), P = c && placeJoints(c);
      const j = P ? P.s.names.indexOf(name) : -1;
      return j < 0 ? null : [P.pts[j][0], P.pts[j][1], c.width, c.height];
    },
  };
})();
