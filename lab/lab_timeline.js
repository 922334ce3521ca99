// lab/lab_timeline.js - the lab's timelines under the state-machine and
// layers views, on a 2D canvas: the state band with the jump at each switch,
// the current transition and the last switches (state machine); the arm
// angle and the planted feet over the last seconds (layers). It draws what
// lab.js recorded from the runtime; it calls nothing of it.
'use strict';

window.StanceTimeline = (function () {
  const STATE_COLOR = { Idle: '#9aa5b1', Move: '#4c8bf5', Jump: '#f59f00', Walk: '#4c8bf5', Run: '#2563eb' };
  const SHORT_MODE = { crossfade: 'xfade', 'inertialize-simple': 'inert-s', inertialize: 'inert', deadblend: 'dead' };

  function niceScale(m) {
    for (const s of [1, 2, 5, 10, 20, 50, 100, 200]) if (m <= s) return s;
    return Math.ceil(m / 100) * 100;
  }

  function hatch(ctx, x, y, w, h) {
    ctx.save();
    ctx.beginPath(); ctx.rect(x, y, w, h); ctx.clip();
    ctx.strokeStyle = 'rgba(0,0,0,0.45)'; ctx.lineWidth = 1.5;
    for (let k = Math.floor(x / 6) * 6 - h; k < x + w; k += 6) { ctx.beginPath(); ctx.moveTo(k, y + h); ctx.lineTo(k + h, y); ctx.stroke(); }
    ctx.restore();
  }

  // s: { hist [{ t, state, from, jump }], time, switches [{ t, cm, name, mode }], historyS, dt,
  //      stateName(i), state, from (-1: no transition), progress, clips (sampled now) }
  function drawState(c, s) {
    const { hist: smHist, time: smTime, switches, historyS: HISTORY_S, dt: DT } = s;
    const ctx = c.getContext('2d');
    ctx.clearRect(0, 0, c.width, c.height);
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, c.width, c.height);
    const left = 50, right = 660, top = 18, barH = 80, bandY = top + barH + 10, bandH = 24;
    const tx = (t) => left + (right - left) * (1 - (smTime - t) / HISTORY_S);
    ctx.font = '12px sans-serif'; ctx.fillStyle = '#1f2328';
    ctx.fillText('jump at each switch (cm) and the state playing, last ' + HISTORY_S + ' s', left, 12);
    // state band: runs of one state; hatched where a transition is running
    let i = 0;
    while (i < smHist.length) {
      let k = i;
      while (k + 1 < smHist.length && smHist[k + 1].state === smHist[i].state) k++;
      const x0 = tx(smHist[i].t - DT), x1 = tx(smHist[k].t);
      ctx.fillStyle = STATE_COLOR[s.stateName(smHist[i].state)] || '#6c757d';
      ctx.fillRect(x0, bandY, x1 - x0 + 0.5, bandH);
      i = k + 1;
    }
    i = 0;
    while (i < smHist.length) {
      if (smHist[i].from < 0) { i++; continue; }
      let k = i;
      while (k + 1 < smHist.length && smHist[k + 1].from >= 0) k++;
      hatch(ctx, tx(smHist[i].t - DT), bandY, tx(smHist[k].t) - tx(smHist[i].t - DT), bandH);
      i = k + 1;
    }
    ctx.strokeStyle = '#8a949e'; ctx.strokeRect(left, bandY, right - left, bandH);
    // jump bars
    let m = 1;
    for (const h of smHist) if (h.jump > m) m = h.jump;
    const sc = niceScale(m);
    ctx.strokeStyle = '#cfd6dd'; ctx.beginPath(); ctx.moveTo(left, top + barH); ctx.lineTo(right, top + barH); ctx.stroke();
    ctx.fillStyle = '#57606a'; ctx.font = '10px sans-serif'; ctx.textAlign = 'right';
    ctx.fillText(sc + ' cm', left - 4, top + 8); ctx.fillText('0', left - 4, top + barH);
    ctx.textAlign = 'center';
    for (const h of smHist) {
      if (h.jump < 0) continue;
      const bh = Math.max(1.5, barH * Math.min(1, h.jump / sc)), x = tx(h.t);
      ctx.fillStyle = '#d62828'; ctx.fillRect(x - 3, top + barH - bh, 6, bh);
      ctx.fillText(h.jump.toFixed(1), x, top + barH - bh - 3);
    }
    // time axis
    ctx.fillStyle = '#57606a'; ctx.textAlign = 'center';
    for (let s = 0; s <= HISTORY_S; s++) ctx.fillText(s === 0 ? 'now' : '-' + s + ' s', tx(smTime - s), bandY + bandH + 13);
    // legend
    let lx = left;
    ctx.textAlign = 'left'; ctx.font = '11px sans-serif';
    for (const n of ['Idle', 'Move', 'Jump']) {
      ctx.fillStyle = STATE_COLOR[n]; ctx.fillRect(lx, c.height - 24, 12, 12);
      ctx.fillStyle = '#1f2328'; ctx.fillText(n, lx + 16, c.height - 14); lx += 62;
    }
    hatch(ctx, lx, c.height - 24, 12, 12); ctx.strokeStyle = '#8a949e'; ctx.strokeRect(lx, c.height - 24, 12, 12);
    ctx.fillStyle = '#1f2328'; ctx.fillText('transition', lx + 16, c.height - 14); lx += 80;
    // current transition and its progress; clips sampled
    const from = s.from, prog = s.progress, clips = s.clips;
    const stName = s.stateName(s.state);
    ctx.fillText(from >= 0 ? s.stateName(from) + ' \u2192 ' + stName : stName + ' (no transition)', lx, c.height - 14);
    ctx.strokeStyle = '#8a949e'; ctx.strokeRect(lx + 130, c.height - 24, 100, 12);
    if (from >= 0) { ctx.fillStyle = '#4c8bf5'; ctx.fillRect(lx + 130, c.height - 24, 100 * prog, 12); }
    lx += 245;
    ctx.fillStyle = '#1f2328'; ctx.fillText('clips', lx, c.height - 14);
    for (let k = 0; k < clips; k++) { ctx.fillStyle = '#6d28d9'; ctx.fillRect(lx + 34 + k * 15, c.height - 24, 12, 12); }
    // the last switches as a bar chart
    const bx = 690, bw = c.width - bx - 10;
    ctx.fillStyle = '#1f2328'; ctx.font = '12px sans-serif';
    ctx.fillText('last switches (jump, cm)', bx, 12);
    let mm = 1;
    for (const w of switches) mm = Math.max(mm, w.cm);
    const bs = niceScale(mm);
    ctx.font = '10px sans-serif';
    switches.forEach((w, k) => {
      const y = 22 + k * 17;
      ctx.fillStyle = '#f0f3f6'; ctx.fillRect(bx + 110, y, bw - 150, 12);
      ctx.fillStyle = '#d62828'; ctx.fillRect(bx + 110, y, Math.max(1, (bw - 150) * w.cm / bs), 12);
      ctx.fillStyle = '#1f2328'; ctx.textAlign = 'left';
      ctx.fillText(w.name.replace('->', '\u2192') + ' ' + (SHORT_MODE[w.mode] || w.mode), bx, y + 10);
      ctx.textAlign = 'right'; ctx.fillText(w.cm.toFixed(2), c.width - 10, y + 10);
    });
    ctx.textAlign = 'left';
  }

  // ---- layers: arm angle and planted feet over time ---------------------------

  // s: { hist [{ t, angle, planted: [l, r] }], time, historyS, dt }
  function drawLayers(c, s) {
    const { hist: lyHist, time: lyTime, historyS: HISTORY_S, dt: DT } = s;
    const ctx = c.getContext('2d');
    ctx.clearRect(0, 0, c.width, c.height);
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, c.width, c.height);
    const left = 50, right = c.width - 20, top = 22, h = 110;
    const tx = (t) => left + (right - left) * (1 - (lyTime - t) / HISTORY_S);
    let m = 5;
    for (const p of lyHist) m = Math.max(m, p.angle);
    const sc = niceScale(m);
    ctx.font = '12px sans-serif'; ctx.fillStyle = '#1f2328';
    ctx.fillText('right upper arm: angle to the wave as authored (degrees), last ' + HISTORY_S + ' s', left, 14);
    ctx.strokeStyle = '#cfd6dd'; ctx.strokeRect(left, top, right - left, h);
    ctx.fillStyle = '#57606a'; ctx.font = '10px sans-serif'; ctx.textAlign = 'right';
    ctx.fillText(sc + '\u00b0', left - 4, top + 8); ctx.fillText('0\u00b0', left - 4, top + h);
    ctx.strokeStyle = '#dc2626'; ctx.lineWidth = 2; ctx.beginPath();
    lyHist.forEach((p, k) => { const x = tx(p.t), y = top + h - h * Math.min(1, p.angle / sc); if (k) ctx.lineTo(x, y); else ctx.moveTo(x, y); });
    ctx.stroke(); ctx.lineWidth = 1;
    // planted strips
    const names = ['left foot planted', 'right foot planted'];
    for (let f = 0; f < 2; f++) {
      const y = top + h + 12 + f * 16;
      ctx.fillStyle = '#f0f3f6'; ctx.fillRect(left, y, right - left, 11);
      ctx.fillStyle = '#22c55e';
      for (const p of lyHist) if (p.planted[f]) ctx.fillRect(tx(p.t - DT), y, (right - left) / (HISTORY_S * 60) + 0.6, 11);
      ctx.fillStyle = '#57606a'; ctx.textAlign = 'right'; ctx.fillText(f ? 'R' : 'L', left - 4, y + 9);
      ctx.textAlign = 'left'; ctx.fillText(names[f], left + 4, y + 9);
    }
  }

  return { drawState, drawLayers };
})();
