// tests/lab/time.test.mjs - browser tests of the lab's time controls (lab/lab_time.c, lab/lab_time.js;
// issue 28 item 4), run by `make lab-test` after lab.test.mjs (STANCE_CLI and LAB_DIR as the Makefile sets).
//
// In a 1280x720 window, with real key presses and clicks: the built-in character is driven by keys
// and stepped frame by frame while the test reads its pose after each frame (the test's own record);
// then the key , steps back 2 s and . forward again, a click on the scrubber jumps, and every pose
// shown must equal the test's record bit for bit. The tape's jump at each switch must equal the
// scenario runner's (the CLI's measure). A switch replayed under crossfade must give another pose than
// the recorded cut, while the replay under the recorded mode equals the tape. On RobotExpressive
// (build-lab/robot.stance) the joint plot, its joint picked by a click on the view, must equal
// `stance sample --json` at the clip times of the frames (1e-5 m), and its speed the CLI's positions
// differentiated; the file's graph gets switches with their pops. No timing: the page is paused and
// stepped by fixed 1/60 s frames; waits are hang guards. Screenshots go to build-lab/artifacts/time-*.png.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cli, artifacts, check, labDir, HANG_MS, serve, launch, webglProblem, ghostDistance } from './browser.mjs';

const DT = 1 / 60;
let passed = 0, failed = 0;

// the current view's pose (model translations, x then y then z) as 32-bit words
const poseBits = (page, v) => page.evaluate((view) => {
  const L = window.Module, n = L._lab_joint_count(view), out = [];
  for (let a = 0; a < 3; a++) out.push(...new Uint32Array(new Float32Array(L.HEAPF32.buffer, L._lab_pose(view, a), n).slice().buffer));
  return out;
}, v);
// paused: k live steps (StanceTime.forward: the Step button's path), each frame's pose bits and the runner's jump
const record = (page, v, k) => page.evaluate(([view, n]) => {
  const L = window.Module, out = [];
  for (let i = 0; i < n; i++) {
    window.StanceTime.forward(1);
    const c = L._lab_joint_count(view), p = [];
    for (let a = 0; a < 3; a++) p.push(...new Uint32Array(new Float32Array(L.HEAPF32.buffer, L._lab_pose(view, a), c).slice().buffer));
    out.push({ pose: p, jump: view === 0 ? L._lab_sm_jump_cm() : -1 });
  }
  return out;
}, [v, k]);
const data = (page) => page.evaluate(() => window.StanceTime.data());
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const shot = (page, name) => page.screenshot({ path: path.join(artifacts, `time-${name}.png`) });

async function test(name, fn, ctx) {
  try { await fn(ctx); passed++; console.log('ok   ' + name); } catch (e) { failed++; console.log('FAIL ' + name + '\n     ' + (e.stack || e).toString().split('\n').slice(0, 3).join('\n     ')); }
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  const server = await serve(labDir);
  const b = await launch('stance-lab-time-');
  const page = b.page;
  page.on('pageerror', (e) => console.log('page error: ' + e.message));
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: HANG_MS });
  const gl = await webglProblem(page);
  if (gl) { console.log('no WebGL2 in this browser (not a lab fault): ' + gl.why); process.exitCode = 1; await b.close(); server.close(); return; }
  const rec = [];

  await test('scrub back 2 s and forward: each pose equals the recorded one bit for bit', async () => {
    await page.locator('#view').click({ position: { x: 5, y: 5 } }); // focus the page, not a control
    await page.keyboard.press('k'); // pause
    check(await page.evaluate(() => JSON.parse(window.stanceLab.status()).paused), 'k did not pause');
    for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowUp'); // speed 2 m/s
    rec.push(...await record(page, 0, 100));
    await page.keyboard.press(' '); // jump
    rec.push(...await record(page, 0, 100));
    for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowDown');
    rec.push(...await record(page, 0, 100));
    const d = await data(page);
    check(d.frames >= rec.length && d.cursor === 0, `tape: ${d.frames} frames, cursor ${d.cursor}`);
    check(d.jump.filter((j) => j >= 0).length >= 2, 'fewer than 2 switches recorded');
    for (let k = 1; k <= 120; k++) {
      await page.keyboard.press(',');
      const p = await poseBits(page, 0);
      check(same(p, rec[rec.length - 1 - k].pose), `back ${k} frames: the pose differs from the recorded one`);
    }
    check((await data(page)).cursor === 120, 'not 2 s back');
    check((await page.locator('#time-at').textContent()) === '-2.00 s', 'the readout does not say -2.00 s');
    await shot(page, 'scrubbed');
    for (let k = 119; k >= 0; k--) {
      await page.keyboard.press('.');
      const p = await poseBits(page, 0);
      check(same(p, rec[rec.length - 1 - k].pose), `forward to ${k} back: the pose differs from the recorded one`);
    }
    // a click on the scrubber's middle: the frame there, its pose as recorded
    const box = await page.locator('#time-scrub').boundingBox();
    check(box && box.y + box.height <= 720 && box.x + box.width <= 1280, 'the scrubber is outside 1280x720');
    await page.mouse.click(box.x + box.width * 0.75, box.y + box.height / 2);
    const c = (await data(page)).cursor;
    check(c > 0 && c < rec.length, `the click put the cursor at ${c}`);
    check(same(await poseBits(page, 0), rec[rec.length - 1 - c].pose), `scrubbed to ${c} back: the pose differs`);
    const bad = await page.evaluate(() => window.Module._lab_time_mismatches(0));
    check(bad === 0, `${bad} frames replayed differ from the tape`);
    const shown = await page.evaluate(() => [window.Module._lab_time_shown(0), window.Module._lab_time_bytes(0)]);
    console.log(`     ${shown[0]} frames shown by replay, all equal to the tape; the tape holds ${(shown[1] / 1e6).toFixed(1)} MB`);
  }, null);

  await test('the pop at each switch is the scenario runner\'s (the CLI\'s measure)', async () => {
    const d = await data(page);
    const tape = d.jump.slice(d.frames - rec.length);
    const runner = rec.map((r) => r.jump);
    let n = 0;
    for (let i = 0; i < rec.length; i++) {
      check(Object.is(Math.fround(tape[i]), Math.fround(runner[i])), `frame ${i}: tape ${tape[i]} cm, runner ${runner[i]} cm`);
      if (runner[i] >= 0) n++;
    }
    check(n >= 2, `${n} switches`);
  }, null);

  await test('a switch replayed under crossfade and as recorded (cut): two poses', async () => {
    // 3 frames after the first switch of the recording
    let d = await data(page);
    const first = d.frames - rec.length;
    const sw = d.jump.findIndex((j, i) => i >= first && j >= 0);
    check(sw >= 0, 'no switch');
    const want = d.frames - 1 - (sw + 3);
    const box = await page.locator('#time-scrub').boundingBox();
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    let c = (await data(page)).cursor;
    while (c !== want) { await page.keyboard.press(c < want ? ',' : '.'); c = (await data(page)).cursor; }
    await page.selectOption('#time-ghost', { label: 'crossfade' });
    await page.waitForFunction(() => { const x = window.StanceTime.data(); return x.ghost && x.ghostFrames >= 4; }, null, { timeout: HANG_MS });
    d = await data(page);
    check(d.ghostStart === d.frames - 1 - sw, `the ghost starts ${d.ghostStart} back, the switch is ${d.frames - 1 - sw}`);
    check(d.ghostDiff === 0 && d.ghostSame === d.ghostFrames, `the replay as recorded differs from the tape on ${d.ghostDiff} of ${d.ghostFrames} frames`);
    const dist = await ghostDistance(page, 0, d.cursor);
    check(dist > 0.005, `the two modes' poses are ${(dist * 100).toFixed(3)} cm apart`);
    check(d.ghostJump >= 0 && d.ghostJump !== d.jump[sw], `pop under crossfade ${d.ghostJump} cm, as recorded ${d.jump[sw]} cm`);
    check(/under crossfade/.test(await page.locator('#time-pop').textContent()), 'the pop readout names no crossfade');
    await shot(page, 'ghost');
    await page.selectOption('#time-ghost', { label: 'off' });
  }, null);

  await test('RobotExpressive: the joint plot (joint clicked) equals stance sample --json', async () => {
    await page.locator('#tab-as').click();
    await page.locator('#ex-robot').click();
    await page.waitForFunction(() => document.querySelector('#as-file').textContent === 'robot.stance', null, { timeout: HANG_MS });
    const walking = await page.evaluate(() => Array.from(document.querySelectorAll('#clip option')).find((o) => /^Walking/.test(o.textContent)).value);
    await page.selectOption('#clip', walking);
    await page.locator('#view').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('k');
    if (!(await page.evaluate(() => JSON.parse(window.stanceLab.status()).paused))) await page.keyboard.press('k');
    await page.evaluate(() => window.StanceTime.forward(150));
    const names = await page.evaluate(() => Array.from(document.querySelectorAll('#time-joint option')).map((o) => o.textContent));
    const j = names.indexOf('LowerArm.R'); // the right forearm (the file has no hand joint)
    check(j >= 0, 'no LowerArm.R in ' + names.join(','));
    // pick it by a click on the view
    await page.evaluate(() => window.stanceLab.frame());
    await page.locator('#time-pick').click();
    const at = await page.evaluate((k) => window.StanceTime.jointScreen(k), j);
    await page.mouse.click(at.x, at.y);
    const picked = Number(await page.locator('#time-joint').inputValue());
    check(picked === j || (await page.evaluate(([a, b2]) => { // another joint at the same spot on the screen
      const p = window.StanceTime.jointScreen(a), q = window.StanceTime.jointScreen(b2); return Math.hypot(p.x - q.x, p.y - q.y) < 2; }, [picked, j])),
    `the click picked ${names[picked]}, not ${names[j]}`);
    await page.selectOption('#time-what', { label: 'position y (m)' });
    await page.evaluate(() => window.stanceLab.frame());
    const clip = await page.evaluate(() => { const L = window.Module; const i = Number(document.querySelector('#clip').value);
      return { i, duration: L._lab_asset_clip_duration(i), name: L.UTF8ToString(L._lab_asset_clip_name(i)) }; });
    const d = await data(page);
    check(d.joint === picked, 'the plot is not of the joint picked');
    // frames playing the clip alone, within one loop of it
    const idx = [];
    for (let i = 0; i < d.frames; i++) if (d.state[i] === clip.i && d.from[i] < 0) idx.push(i);
    check(idx.length >= 60, `${idx.length} frames of ${clip.name} alone`);
    const times = idx.map((i) => (d.nt[i] - Math.floor(d.nt[i])) * clip.duration);
    const out = JSON.parse(execFileSync(cli, ['sample', path.join(labDir, 'robot.stance'), '--clip', clip.name, '--times', times.map((t) => t.toPrecision(9)).join(','), '--json'],
      { encoding: 'utf8', maxBuffer: 1 << 28 }));
    const s = out.clips[0].samples;
    const xyz = [];
    for (const what of [0, 1, 2, 3]) {
      await page.selectOption('#time-what', String(what));
      xyz.push((await data(page)).values);
    }
    let worst = 0, worstSpeed = 0, speeds = 0;
    idx.forEach((i, k) => {
      for (let a = 0; a < 3; a++) worst = Math.max(worst, Math.abs(xyz[a][i] - s[k].model[picked][a]));
      if (k && idx[k - 1] === i - 1 && times[k] > times[k - 1]) { // the speed: the CLI's positions over one frame
        const m0 = s[k - 1].model[picked], m1 = s[k].model[picked];
        const v = Math.hypot(m1[0] - m0[0], m1[1] - m0[1], m1[2] - m0[2]) / DT;
        worstSpeed = Math.max(worstSpeed, Math.abs(xyz[3][i] - v)); speeds++;
      }
    });
    check(worst <= 1e-5, `the plot differs from stance sample by ${worst} m`);
    check(speeds >= 30 && worstSpeed <= 2e-5 / DT, `speed differs by ${worstSpeed} m/s over ${speeds} frames`);
    console.log(`     ${names[picked]}: ${idx.length} frames, largest difference ${worst.toExponential(2)} m; speed ${worstSpeed.toExponential(2)} m/s over ${speeds}`);
    await page.selectOption('#time-what', '3');
    await shot(page, 'plot-robot');
  }, null);

  await test('RobotExpressive\'s own graph: switches, their pops and a ghost', async () => {
    await page.locator('#as-run-graph').click();
    await page.evaluate(() => window.StanceTime.forward(30));
    const slider = page.locator('#as-params .param[data-param="speed"] input[type=range]');
    await slider.focus();
    await page.keyboard.press('End');
    await page.locator('#view').click({ position: { x: 5, y: 5 } });
    await page.evaluate(() => window.StanceTime.forward(90));
    const d = await data(page);
    const sw = d.jump.map((j, i) => [j, i]).filter(([j]) => j >= 0);
    check(sw.length >= 1, 'no switch on the file\'s graph');
    check(/last switch \d+\.\d\d cm/.test(await page.locator('#time-pop').textContent()), 'no pop figure');
    const k = sw[sw.length - 1][1];
    const want = d.frames - 1 - (k + 4);
    let c = d.cursor;
    while (c !== want) { await page.keyboard.press(c < want ? ',' : '.'); c = (await data(page)).cursor; }
    await page.selectOption('#time-ghost', { label: 'inertialize' });
    await page.waitForFunction(() => { const x = window.StanceTime.data(); return x.ghost && x.ghostFrames >= 5; }, null, { timeout: HANG_MS });
    const g = await data(page);
    check(g.ghostDiff === 0, `the replay as recorded differs from the tape on ${g.ghostDiff} frames`);
    await shot(page, 'robot-graph');
    await page.selectOption('#time-ghost', { label: 'off' });
  }, null);

  await test('every time control lies inside 1280x720', async () => {
    for (const tab of ['sm', 'ly', 'as']) {
      await page.locator('#tab-' + tab).click();
      await page.evaluate(() => window.stanceLab.frame());
      for (const id of ['time-back', 'time-fwd', 'time-scrub', 'time-cut', 'time-joint', 'time-pick', 'time-what', 'time-ghost']) {
        const bb = await page.locator('#' + id).boundingBox();
        check(bb && bb.x >= 0 && bb.y >= 0 && bb.x + bb.width <= 1280 && bb.y + bb.height <= 720, `${tab}: #${id} at ${JSON.stringify(bb)}`);
      }
      await shot(page, 'view-' + tab);
    }
  }, null);

  await b.close();
  server.close();
  console.log(`${passed} passed, ${failed} failed`);
  if (failed) process.exitCode = 1;
}

main().catch((e) => { console.error(e); process.exit(1); });
