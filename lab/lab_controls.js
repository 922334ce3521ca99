// lab/lab_controls.js - controls built from a graph's parameters, for any
// graph (the "Your character" view): a slider per float, a slider per int
// (step 1), a box per bool, a button per trigger, each with key boxes the
// user binds by clicking one and pressing a key (Escape clears it). Bindings
// are kept in localStorage by parameter name, so they follow a parameter from
// one file to the next. A slider's range comes from the values the graph
// uses (paramRange). The page script (lab.js) passes a setter that calls the
// runtime; nothing here knows the runtime.
'use strict';

window.StanceControls = (function () {
  const STORE = 'stance-lab.keys';
  // per type: the key slots a control has (float/int: lower, raise; bool: toggle; trigger: fire)
  const SLOTS = { float: ['down', 'up'], int: ['down', 'up'], bool: ['toggle'], trigger: ['fire'] };
  const SLOT_TITLE = { down: 'lower', up: 'raise', toggle: 'toggle', fire: 'fire' };
  // keys a focused control uses itself (a slider's arrows, a box's or button's space)
  const NATIVE = new Set(['Space', 'Enter', 'NumpadEnter', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight',
    'Home', 'End', 'PageUp', 'PageDown', 'Tab']);

  // 1, 2 or 5 times a power of ten, at most x
  function niceStep(x) {
    const p = Math.pow(10, Math.floor(Math.log10(x)));
    const m = x / p;
    return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * p;
  }
  const snap = (v, step) => Math.round(v / step) * step;
  const clean = (v) => Number(v.toPrecision(12)); // 0.30000000000000004 -> 0.3

  // A slider's range from the values the graph uses (p.uses: condition thresholds, each -/+ its
  // hysteresis, and blend space positions on the parameter) and its value now (p.value):
  //   lo, hi = the smallest and largest of them; a margin of a quarter of hi - lo (or of
  //   max(1, |hi|) when they are equal) on each side, never below 0 when lo >= 0;
  //   float: step = (max - min) / 100 rounded down to 1, 2 or 5 times a power of ten, the ends
  //   rounded out to a step; int: ends rounded out to whole numbers, step 1.
  // A parameter the graph compares with nothing and places nothing on: [min(0, value), max(1, value)].
  function paramRange(p) {
    const uses = (p.uses || []).filter(Number.isFinite);
    const value = Number.isFinite(p.value) ? p.value : 0;
    let min, max;
    if (!uses.length) { min = Math.min(0, value); max = Math.max(1, value); }
    else {
      const lo = Math.min(value, ...uses), hi = Math.max(value, ...uses);
      const m = 0.25 * (hi - lo > 0 ? hi - lo : Math.max(1, Math.abs(hi)));
      min = lo >= 0 ? Math.max(0, lo - m) : lo - m;
      max = hi + m;
    }
    if (p.type === 'int') return { min: Math.floor(min), max: Math.ceil(max), step: 1 };
    const step = niceStep((max - min) / 100);
    return { min: clean(Math.floor(min / step + 1e-9) * step), max: clean(Math.ceil(max / step - 1e-9) * step), step: clean(step) };
  }

  function loadKeys() {
    try { const k = JSON.parse(localStorage.getItem(STORE) || '{}'); return k && typeof k === 'object' ? k : {}; } catch { return {}; }
  }
  function saveKeys(k) { try { localStorage.setItem(STORE, JSON.stringify(k)); } catch { /* storage off: bindings last the page */ } }

  // a key code as a box shows it
  function keyLabel(code) {
    if (!code) return '\u2013';
    const arrows = { ArrowUp: '\u2191', ArrowDown: '\u2193', ArrowLeft: '\u2190', ArrowRight: '\u2192' };
    if (arrows[code]) return arrows[code];
    return code.replace(/^Key/, '').replace(/^Digit/, '').replace(/^Numpad/, 'Num ');
  }

  // One set of controls for one graph. params: lab_graph_json's params; set(index, value) drives
  // the runtime (a trigger's value is ignored); defaults: { name: { slot: code } } used where the
  // user bound nothing.
  function Controls(box, params, set, defaults) {
    this.box = box; this.params = params; this.set = set; this.defaults = defaults || {};
    this.listening = null; // { name, slot, el } while a key box waits for a key
    this.rows = [];
    box.textContent = '';
    // a "curve:NAME" parameter is the hidden one a curve drives every update (docs/curves.md):
    // a control would be overwritten at once, so it gets none
    params.forEach((p, i) => { if (!/^curve:/.test(p.name)) this.rows.push(this.row(p, i)); });
    this.refreshKeys();
  }

  Controls.prototype.row = function (p, i) {
    const row = document.createElement('div');
    row.className = 'row param';
    row.dataset.param = p.name; row.dataset.type = p.type;
    const name = document.createElement('label');
    name.textContent = p.name; name.title = p.name + ' (' + p.type + ')';
    row.appendChild(name);
    const r = { p, i, row, input: null, val: null, keys: {} };
    if (p.type === 'float' || p.type === 'int') {
      const range = paramRange(p);
      const input = document.createElement('input');
      input.type = 'range'; input.min = String(range.min); input.max = String(range.max); input.step = String(range.step);
      input.value = String(Math.min(range.max, Math.max(range.min, p.value || 0)));
      input.id = 'param-' + i; name.htmlFor = input.id;
      const val = document.createElement('span'); val.className = 'val';
      input.addEventListener('input', () => this.apply(r, Number(input.value)));
      row.append(input, val);
      r.input = input; r.val = val; r.range = range;
      this.show(r);
    } else if (p.type === 'bool') {
      const input = document.createElement('input');
      input.type = 'checkbox'; input.checked = !!p.value; input.id = 'param-' + i; name.htmlFor = input.id;
      input.addEventListener('input', () => this.apply(r, input.checked ? 1 : 0));
      const val = document.createElement('span'); val.className = 'val';
      row.append(input, val);
      r.input = input; r.val = val;
      this.show(r);
    } else {
      const b = document.createElement('button');
      b.className = 'act'; b.textContent = 'fire'; b.id = 'param-' + i; b.dataset.param = p.name;
      b.addEventListener('click', () => this.apply(r, 1));
      row.appendChild(b);
      r.input = b;
    }
    for (const slot of SLOTS[p.type] || []) {
      const k = document.createElement('button');
      k.className = 'key'; k.dataset.slot = slot; k.dataset.param = p.name;
      k.title = 'key to ' + SLOT_TITLE[slot] + ' ' + p.name + ': click, then press a key (Esc clears)';
      k.addEventListener('click', (e) => { e.stopPropagation(); this.listen(p.name, slot, k); });
      row.appendChild(k);
      r.keys[slot] = k;
    }
    this.box.appendChild(row);
    return r;
  };

  Controls.prototype.show = function (r) {
    if (r.p.type === 'bool') r.val.textContent = r.input.checked ? 'true' : 'false';
    else if (r.val) r.val.textContent = r.p.type === 'int' ? String(Number(r.input.value)) : Number(r.input.value).toFixed(r.range.step < 0.01 ? 3 : 2);
  };
  Controls.prototype.apply = function (r, v) {
    this.set(r.i, v);
    if (r.p.type !== 'trigger') this.show(r);
  };

  Controls.prototype.binding = function (name, slot) {
    const k = loadKeys();
    if (k[name] && slot in k[name]) return k[name][slot]; // '' once the user cleared it
    return (this.defaults[name] && this.defaults[name][slot]) || '';
  };
  Controls.prototype.refreshKeys = function () {
    for (const r of this.rows)
      for (const [slot, el] of Object.entries(r.keys)) {
        const code = this.binding(r.p.name, slot);
        el.textContent = keyLabel(code); el.dataset.code = code;
        el.classList.toggle('bound', !!code);
        el.classList.remove('listening');
      }
  };
  Controls.prototype.listen = function (name, slot, el) {
    this.refreshKeys();
    this.listening = { name, slot, el };
    el.classList.add('listening'); el.textContent = 'key?';
  };
  Controls.prototype.bind = function (name, slot, code) {
    const k = loadKeys();
    // one key drives one slot: taken from any other parameter's slot that had it
    for (const n of Object.keys(k)) for (const s of Object.keys(k[n])) if (code && k[n][s] === code) k[n][s] = '';
    for (const r of this.rows) for (const s of Object.keys(r.keys))
      if (code && this.binding(r.p.name, s) === code && !(r.p.name === name && s === slot)) { k[r.p.name] = k[r.p.name] || {}; k[r.p.name][s] = ''; }
    k[name] = k[name] || {};
    k[name][slot] = code;
    saveKeys(k);
    this.refreshKeys();
  };

  // A key box that waits stops waiting when the user clicks elsewhere.
  Controls.prototype.cancel = function (target) {
    if (this.listening && target !== this.listening.el) { this.listening = null; this.refreshKeys(); }
  };

  // A keydown: binds it when a key box waits, else drives the control bound to it.
  // True when the key was used (the caller prevents its default).
  Controls.prototype.key = function (e) {
    if (this.listening) {
      const l = this.listening;
      this.listening = null;
      if (['ShiftLeft', 'ShiftRight', 'ControlLeft', 'ControlRight', 'AltLeft', 'AltRight', 'MetaLeft', 'MetaRight'].includes(e.code)) {
        this.listening = l; return true; // a modifier alone: still waiting
      }
      this.bind(l.name, l.slot, e.code === 'Escape' ? '' : e.code);
      return true;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || !e.code) return false;
    const t = e.target, tag = t && t.tagName;
    if (tag === 'SELECT' || tag === 'TEXTAREA' || (tag === 'INPUT' && !['range', 'checkbox', 'radio', 'button'].includes(t.type))) return false;
    if ((tag === 'INPUT' || tag === 'BUTTON') && NATIVE.has(e.code)) return false; // the focused control's own key
    for (const r of this.rows)
      for (const slot of Object.keys(r.keys)) {
        if (this.binding(r.p.name, slot) !== e.code) continue;
        if (slot === 'fire') this.apply(r, 1);
        else if (slot === 'toggle') { r.input.checked = !r.input.checked; this.apply(r, r.input.checked ? 1 : 0); }
        else {
          const step = r.p.type === 'int' ? 1 : Math.max(r.range.step, snap((r.range.max - r.range.min) / 20, r.range.step));
          const v = Math.min(r.range.max, Math.max(r.range.min, Number(r.input.value) + (slot === 'up' ? step : -step)));
          r.input.value = String(clean(v));
          this.apply(r, Number(r.input.value));
        }
        return true;
      }
    return false;
  };

  return { Controls, paramRange, keyLabel, STORE };
})();
