// lab/lab_editor3.js - the graph editor's fields for what was JSON-only (issue 28): a float
// parameter's damping, a 1-D blend space's speed_warp, IK entries (add a footlock, two_bone or aim
// entry, its joints chosen from the skeleton; legs, pelvis, chain, forward, limits, weight; remove),
// and the clip notes of the "clips" sidecar per clip (events with payloads, windows, curves, markers,
// ground speed). Every change is an edit of lab_editor.js's model (StanceEditor.ui.edit): it is
// built and runs at once on the character, and undo and redo take it back.
'use strict';

(function () {
  const IK_KINDS = ['footlock', 'two_bone', 'aim'];
  let U = null; // StanceEditor.ui

  const joints = () => { const s = U.lab().skel(2); return s ? s.names : []; };
  const jointSelect = (value, set, kind) => {
    const names = joints();
    return U.select(names.includes(value) ? names : [value, ...names], value, (v) => U.edit(() => set(v)), { data: { kind } });
  };
  const numOr = (v) => (v === null ? undefined : v);
  const setKey = (o, k, v) => { if (v === undefined || v === null || v === '') delete o[k]; else o[k] = v; };

  // ---- fields in the editor's own rows ---------------------------------------------------

  function paramFields(p, i) {
    if ((p.type || 'float') !== 'float') return [];
    return ['damping', U.num(p.damping, (v) => U.edit((m) => setKey(m.params[i], 'damping', v === 0 ? undefined : v)),
      { data: { kind: 'damping' }, placeholder: '0', title: 'seconds: the value follows what is set with this halflife (empty: none)' })];
  }
  function blendFields(b, bp, two) {
    if (two) return [];
    return [U.el('label', { title: 'scale playback so the blended root moves at the parameter\'s value (positions that are root speeds)' },
      U.el('input', { type: 'checkbox', checked: !!b.speed_warp, data: { kind: 'speed-warp' },
        on: { change: (e) => U.edit((m) => setKey(bp(m), 'speed_warp', e.target.checked || undefined)) } }), 'speed warp')];
  }

  // ---- IK entries ---------------------------------------------------------------------------

  // the joints of a new entry, guessed from the names (the user changes them in the selects): a
  // foot's chain of three (footlock), a hand's (two_bone), the joint above the head and the head
  // (aim). When the end has too few parents (a rig whose feet hang from the root), the knee or
  // elbow by name, its parent and its child, or the end of its side ("Foot.L" for "LowerLeg.L").
  function guessChain(kind, skip) {
    const s = U.lab().skel(2);
    if (!s) return [];
    const up = (j, n) => { const out = [j]; while (out.length < n && s.parents[out[0]] >= 0) out.unshift(s.parents[out[0]]); return out; };
    const all = (re) => s.names.map((n, j) => [n, j]).filter(([n, j]) => re.test(n) && !(skip || []).includes(n)).map(([, j]) => j);
    if (kind === 'aim') { const h = all(/head/i).find((j) => s.parents[j] >= 0); return h !== undefined ? up(h, 2).map((j) => s.names[j]) : []; }
    const leg = kind === 'footlock';
    const end = all(leg ? /foot|ankle/i : /hand|wrist/i).find((j) => up(j, 3).length === 3 && up(j, 3)[0] !== 0);
    if (end !== undefined) return up(end, 3).map((j) => s.names[j]);
    const knee = all(leg ? /lower.?leg|calf|shin|knee/i : /lower.?arm|fore.?arm|elbow/i).find((j) => s.parents[j] >= 0);
    if (knee === undefined) return [];
    const side = s.names[knee].slice(-2);
    let ankle = s.parents.findIndex((p) => p === knee);
    if (ankle < 0) ankle = all(leg ? /foot|ankle/i : /hand|wrist|palm/i).find((j) => s.names[j].endsWith(side));
    return ankle === undefined ? [] : [s.parents[knee], knee, ankle].map((j) => s.names[j]);
  }
  function newEntry(m, kind) {
    const c = guessChain(kind), e = { name: U.uniqueName(m.ik || [], kind === 'footlock' ? 'feet' : kind === 'aim' ? 'look' : 'reach'), kind };
    if (kind === 'aim') { e.chain = c.length ? c : [joints()[0] || '']; e.forward = [0, 0, 1]; } else e.legs = [{ hip: c[0] || '', knee: c[1] || '', ankle: c[2] || '' }];
    return e;
  }
  function legRow(k, i, g) {
    const leg = (m) => m.ik[i].legs[g];
    return U.el('div', { className: 'ed-row ed-leg', data: { leg: String(g) } },
      k.kind === 'footlock' ? 'leg ' + (g + 1) : 'chain',
      jointSelect(k.legs[g].hip, (v) => { leg(U.model()).hip = v; }, 'hip'),
      jointSelect(k.legs[g].knee, (v) => { leg(U.model()).knee = v; }, 'knee'),
      jointSelect(k.legs[g].ankle, (v) => { leg(U.model()).ankle = v; }, 'ankle'),
      k.kind === 'footlock' && k.legs.length > 1 ? U.btn('\u00d7', 'remove this leg', () => U.edit((m) => { m.ik[i].legs.splice(g, 1); }), { data: { act: 'del-leg' } }) : null);
  }
  function ikItem(k, i) {
    const e = (m) => m.ik[i];
    const head = U.el('div', { className: 'ed-row', data: { ik: k.name } },
      U.input(k.name, (v) => U.edit((m) => { e(m).name = v; }), { className: 'ed-name', title: 'rename' }),
      U.el('span', { textContent: k.kind }),
      ...(k.kind !== 'footlock' ? ['weight', ...U.bindingControl(k.weight, (v) => setKey(U.model().ik[i], 'weight', v), 'ik-weight', 'full')] : []),
      U.btn('\u00d7', 'delete this IK entry', () => U.edit((m) => { m.ik.splice(i, 1); if (!m.ik.length) delete m.ik; }), { data: { act: 'del' } }));
    const body = U.el('div', { className: 'ed-sub' });
    if (k.kind === 'aim') {
      const chain = k.chain || [];
      body.append(U.el('div', { className: 'ed-row' }, 'chain', ...chain.map((j, c) => jointSelect(j, (v) => { e(U.model()).chain[c] = v; }, 'chain')),
        U.btn('+', 'add the joint below the last (or any: choose it)', () => U.edit((m) => {
          const s = U.lab().skel(2), last = s.names.indexOf(chain[chain.length - 1]);
          const child = s.parents.findIndex((p) => p === last);
          e(m).chain.push(s.names[child >= 0 ? child : last]);
        }), { data: { act: 'add-chain' } }),
        chain.length > 1 ? U.btn('\u2212', 'remove the last joint', () => U.edit((m) => { e(m).chain.pop(); }), { data: { act: 'del-chain' } }) : null));
      const f = k.forward || [0, 0, 1];
      body.append(U.el('div', { className: 'ed-row' }, 'forward',
        ...[0, 1, 2].map((a) => U.num(f[a], (v) => U.edit((m) => { const x = (e(m).forward || [0, 0, 1]).slice(); x[a] = v === null ? 0 : v; e(m).forward = x; }), { data: { kind: 'forward-' + 'xyz'[a] } })),
        'max angle', U.num(k.max_angle, (v) => U.edit((m) => setKey(e(m), 'max_angle', v === 0 ? undefined : v)), { data: { kind: 'max-angle' }, placeholder: '0', title: 'radians per joint, 0 = no limit' })));
    } else {
      (k.legs || []).forEach((l, g) => body.append(legRow(k, i, g)));
      const opts = U.el('div', { className: 'ed-row' });
      if (k.kind === 'footlock') {
        if ((k.legs || []).length < 4) opts.append(U.btn('+ leg', 'add a leg (hip, knee, ankle)', () => U.edit((m) => {
          const c = guessChain('footlock', e(m).legs.flatMap((l) => [l.hip, l.knee, l.ankle]));
          e(m).legs.push({ hip: c[0] || '', knee: c[1] || '', ankle: c[2] || '' });
        }), { data: { act: 'add-leg' } }));
        opts.append('pelvis', U.select([['', '(the first hip\'s parent)'], ['\u0000', '(none)'], ...joints()], k.pelvis === undefined ? '' : k.pelvis === '' ? '\u0000' : k.pelvis,
          (v) => U.edit((m) => { if (v === '') delete e(m).pelvis; else e(m).pelvis = v === '\u0000' ? '' : v; }), { data: { kind: 'pelvis' } }));
        for (const [key, label, tip] of [['blend_time', 'release', 'seconds to blend out of a lock (empty: 0.2)'], ['plant_time', 'plant', 'seconds to slow into a lock (empty: 0.05)']])
          opts.append(label, U.num(k[key], (v) => U.edit((m) => setKey(e(m), key, v === 0 ? undefined : v)), { data: { kind: key }, title: tip }));
      }
      opts.append('softness', U.num(k.softness, (v) => U.edit((m) => setKey(e(m), 'softness', v === 0 ? undefined : v)), { data: { kind: 'softness' }, title: '[0, 0.5) (empty: 0.02)' }));
      body.append(opts);
    }
    return U.el('div', { className: 'ed-item', data: { ikEntry: k.name } }, head, body);
  }
  function ikPanel() {
    const m = U.model(), list = Array.isArray(m.ik) ? m.ik : [];
    const kind = U.select(IK_KINDS, 'footlock', () => {}, { id: 'ed-new-ik-kind' });
    const add = U.btn('+ IK entry', 'add an IK entry (at most 8), its joints guessed from the names: choose them below', () => U.edit((mm) => {
      if ((mm.ik || []).length >= 8) return false;
      (mm.ik = mm.ik || []).push(newEntry(mm, kind.value));
    }), { id: 'ed-add-ik' });
    return U.section('IK', ...list.map(ikItem), U.el('div', { className: 'ed-row' }, kind, add));
  }

  // ---- clip notes ---------------------------------------------------------------------------

  // "t:v t:v ..." <-> [[t, v], ...]; a word that is not a number stays as it is (the reader names it)
  const keysText = (keys) => (keys || []).map((k) => k.join(':')).join(' ');
  const parseKeys = (t) => t.trim().split(/[\s,]+/).filter(Boolean).map((p) => p.split(':').map((x) => (Number.isFinite(Number(x)) ? Number(x) : x)));

  function rowsOf(list, make, addLabel, addTip, blank, kind, get) {
    const out = (list || []).map((x, k) => U.el('div', { className: 'ed-row', data: { [kind]: String(k) } }, ...make(x, k),
      U.btn('\u00d7', 'delete', () => U.edit((m) => { const l = get(m); l.splice(k, 1); }), { data: { act: 'del-' + kind } })));
    out.push(U.btn(addLabel, addTip, () => U.edit((m) => { get(m, true).push(blank()); }), { data: { act: 'add-' + kind } }));
    return out;
  }
  function clipItem(name, c) {
    const at = (m) => m.clips[name];
    const list = (key) => (m, make) => { const o = at(m); if (make && !Array.isArray(o[key])) o[key] = []; return o[key]; };
    const tidy = (m) => { const o = at(m); for (const k of ['events', 'windows', 'markers']) if (Array.isArray(o[k]) && !o[k].length) delete o[k]; if (o.curves && !Object.keys(o.curves).length) delete o.curves; };
    const ed = (f) => U.edit((m) => { f(m); tidy(m); });
    const field = (obj, key, kind, props) => U.num(obj[key], (v) => ed((m) => setKey(kind(m), key, numOr(v))), props);
    const text = (obj, key, kind, props) => U.input(obj[key], (v) => ed((m) => setKey(kind(m), key, v)), Object.assign({ className: 'ed-name' }, props));
    const body = U.el('div', { className: 'ed-sub' });
    if (c.retarget) body.append(U.el('div', { className: 'hint', textContent: 'retargeted from ' + c.retarget.from + ' (in the JSON text)' }));
    body.append(U.el('div', { className: 'hint', textContent: 'events: t (s), name, payload int / float / string, min weight' }));
    body.append(...rowsOf(c.events, (e, k) => {
      const ev = (m) => at(m).events[k], pl = e.payload || {};
      const pay = (key, v) => ed((m) => {
        const p = ev(m).payload || {};
        setKey(p, key, v);
        if (Object.keys(p).length) ev(m).payload = p; else delete ev(m).payload;
      });
      return [field(e, 't', ev, { data: { kind: 'event-t' } }), text(e, 'name', ev, { data: { kind: 'event-name' } }),
        U.num(pl.int, (v) => pay('int', numOr(v)), { data: { kind: 'payload-int' }, placeholder: 'int' }),
        U.num(pl.float, (v) => pay('float', numOr(v)), { data: { kind: 'payload-float' }, placeholder: 'float' }),
        U.input(pl.string, (v) => pay('string', v), { className: 'ed-name', data: { kind: 'payload-string' }, placeholder: 'string' }),
        field(e, 'min_weight', ev, { data: { kind: 'min-weight' }, placeholder: '0' })];
    }, '+ event', 'an event at a time of the clip', () => ({ t: 0, name: 'event' }), 'event', list('events')));
    body.append(U.el('div', { className: 'hint', textContent: 'windows: name, from, to (s), min weight' }));
    body.append(...rowsOf(c.windows, (w, k) => {
      const wi = (m) => at(m).windows[k];
      return [text(w, 'name', wi, { data: { kind: 'window-name' } }), field(w, 'from', wi, { data: { kind: 'window-from' } }),
        field(w, 'to', wi, { data: { kind: 'window-to' } }), field(w, 'min_weight', wi, { data: { kind: 'min-weight' }, placeholder: '0' })];
    }, '+ window', 'a named span of the clip', () => ({ name: 'window', from: 0, to: 0 }), 'window', list('windows')));
    body.append(U.el('div', { className: 'hint', textContent: 'curves: name, keys "t:v t:v ..."' }));
    const curves = Object.entries(c.curves || {});
    curves.forEach(([cn, keys]) => body.append(U.el('div', { className: 'ed-row', data: { curve: cn } },
      U.input(cn, (v) => ed((m) => { // rename: the same place in the object's order
        const o = at(m).curves, out = {};
        for (const [a, b] of Object.entries(o)) out[a === cn ? v : a] = b;
        at(m).curves = out;
      }), { className: 'ed-name', data: { kind: 'curve-name' } }),
      U.input(keysText(keys), (v) => ed((m) => { at(m).curves[cn] = parseKeys(v); }), { data: { kind: 'curve-keys' }, style: 'width: 150px' }),
      U.btn('\u00d7', 'delete this curve', () => ed((m) => { delete at(m).curves[cn]; }), { data: { act: 'del-curve' } }))));
    body.append(U.btn('+ curve', 'a named float track of the clip', () => ed((m) => {
      const o = at(m).curves = at(m).curves || {};
      let n = 'Curve', k = 2;
      while (o[n]) n = 'Curve' + k++;
      o[n] = [[0, 0]];
    }), { data: { act: 'add-curve' } }));
    body.append(U.el('div', { className: 'hint', textContent: 'sync markers: t (s), name; ground speed (m/s)' }));
    body.append(...rowsOf(c.markers, (mk, k) => {
      const mm = (m) => at(m).markers[k];
      return [field(mk, 't', mm, { data: { kind: 'marker-t' } }), text(mk, 'name', mm, { data: { kind: 'marker-name' } })];
    }, '+ marker', 'a named point of the cycle (a foot down)', () => ({ t: 0, name: 'L' }), 'marker', list('markers')));
    body.append(U.el('div', { className: 'ed-row' }, 'speed', field(c, 'speed', at, { data: { kind: 'clip-speed' }, placeholder: '-', title: 'm/s the character travels while it plays (empty: not given)' })));
    return U.el('div', { className: 'ed-item', data: { clip: name } },
      U.el('div', { className: 'ed-row' }, U.el('b', { textContent: name }),
        U.btn('\u00d7', 'remove this clip\'s notes', () => U.edit((m) => { delete m.clips[name]; if (!Object.keys(m.clips).length) delete m.clips; }), { data: { act: 'del-clip-notes' } })),
      body);
  }
  function notesPanel() {
    const m = U.model(), entries = Object.entries(m.clips || {}).filter(([k, v]) => k[0] !== '_' && v && typeof v === 'object');
    const have = new Set(entries.map(([k]) => k)), free = U.clips().filter((c) => !have.has(c));
    const pick = U.select(free, free[0] || '', () => {}, { id: 'ed-notes-clip' });
    const add = U.btn('+ notes', 'events, windows, curves, markers and a speed for this clip', () => U.edit((mm) => {
      if (!pick.value) return false;
      (mm.clips = mm.clips || {})[pick.value] = {};
    }), { id: 'ed-add-notes' });
    return U.section('Clip notes', ...entries.map(([k, v]) => clipItem(k, v)), U.el('div', { className: 'ed-row' }, pick, add));
  }

  function init() {
    if (!window.StanceEditor || !StanceEditor.ui) return;
    U = StanceEditor.ui;
    U.hooks.param = paramFields;
    U.hooks.blend = blendFields;
    U.panels.push(ikPanel, notesPanel);
  }
  init();
})();
