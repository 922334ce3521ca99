// tests/lab/lab.test.mjs - browser tests of the animation lab (`make lab-test`).
//
// Serves build-lab/ on 127.0.0.1 (a free port), drives Debian's
// /usr/bin/chromium headless through npm playwright-core (lab/node_modules,
// no browser download; tests/lab/browser.mjs), and checks the page against the
// command line (STANCE_CLI, default build/stance): the script's figures must
// equal `stance scenario --json` and the layer figures `stance layers --json`.
// Screenshots go to build-lab/artifacts/. Ends with "N passed, N failed".
//
// Nothing here depends on the machine's speed: no frame-rate or wall-time bar
// (`make lab-bench` measures those). Where a check needs animation to have
// run, the page is paused and advanced a fixed number of 1/60 s steps
// (stanceLab.step), or the test waits on the lab's simulated clock
// (stanceLab.status().time: the page clamps a frame's wall time to 0.1 s and
// runs at most 8 steps a frame, so on a slow machine animation time runs
// behind wall time). Timeouts only catch hangs, at 10x or more the normal wait.
// A browser whose page gets no WebGL2 context is closed and a fresh one started
// once; then the run stops saying so (not a lab fault) instead of failing
// pixel checks for that reason. LAB_TEST_ONLY=REGEX runs only the tests whose
// names match (and the first, which loads the page), for work on one part.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, artifacts, DATA, check, root, labDir, HANG_MS, browserPath, serve, launch, webglProblem, canvasProblem } from './browser.mjs';

const ONLY = process.env.LAB_TEST_ONLY ? new RegExp(process.env.LAB_TEST_ONLY) : null;

let passed = 0, failed = 0, skipped = 0;
function close(a, b, tol, msg) { check(Math.abs(a - b) <= tol, `${msg}: ${a} vs ${b} (tolerance ${tol})`); }

function cliJson(args) { return JSON.parse(execFileSync(cli, args, { encoding: 'utf8' })); }

async function setRange(page, sel, value) {
  await page.evaluate(([s, v]) => {
    const el = document.querySelector(s);
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, [sel, value]);
}
const text = (page, sel) => page.locator(sel).textContent();
async function waitText(page, sel, want, timeout = HANG_MS) {
  await page.waitForFunction(([s, w]) => document.querySelector(s).textContent === w, [sel, want], { timeout });
}
const status = async (page) => JSON.parse(await page.evaluate(() => window.stanceLab.status()));
// the lab's simulated clock (the current view's steps x 1/60 s) advancing by `seconds`, the page running
async function waitSim(page, seconds) {
  const t0 = (await status(page)).time;
  await page.waitForFunction(([t, s]) => JSON.parse(window.stanceLab.status()).time >= t + s - 1e-6, [t0, seconds],
    { timeout: HANG_MS });
}
// n more frames drawn (paused or not)
async function waitFrames(page, n) {
  const f0 = (await status(page)).frames;
  await page.waitForFunction(([f, k]) => JSON.parse(window.stanceLab.status()).frames >= f + k, [f0, n], { timeout: HANG_MS });
}
// paused, advance n steps of 1/60 s; resolves once the frame after them is drawn
const step = (page, n) => page.evaluate((k) => window.stanceLab.step(k), n);
const resume = (page) => page.evaluate(() => window.stanceLab.pause(false));
// paused, step `chunk` frames at a time until cond (a page function of arg) holds; the steps taken
async function stepUntil(page, cond, arg, chunk, max, what) {
  const n = await page.evaluate(async ([c, a, k, m]) => {
    const f = new Function('return ' + c)();
    let done = 0;
    while (!f(a)) { if (done >= m) return -1; await window.stanceLab.step(k); done += k; }
    return done;
  }, [cond.toString(), arg, chunk, max]);
  check(n >= 0, `${what}: not reached in ${max} steps of 1/60 s`);
  return n;
}
const webgl = (page) => page.evaluate(() => window.stanceLab.webgl());
// the control row of a parameter of the loaded file's graph (lab_controls.js)
const param = (name) => `#as-params .param[data-param="${name}"]`;
const current = (page) => page.evaluate(() => window.stanceLab.machine().current);
async function waitState(page, name) {
  await page.waitForFunction((n) => window.stanceLab.machine() && window.stanceLab.machine().current === n, name, { timeout: HANG_MS });
}
// a range input clicked with the mouse at a share of its width
async function clickRange(page, sel, share) {
  const b = await page.locator(sel).boundingBox();
  await page.mouse.click(b.x + b.width * share, b.y + b.height / 2);
}
// The slider range docs/lab.md gives, worked out here from the values the test's graph file uses
// (its conditions' values and its blend entries' positions) and the parameter's value
function expectedRange(type, value, uses) {
  if (!uses.length) return { min: Math.min(0, value), max: Math.max(1, value) };
  const lo = Math.min(value, ...uses), hi = Math.max(value, ...uses);
  const m = 0.25 * (hi > lo ? hi - lo : Math.max(1, Math.abs(hi)));
  const min = lo >= 0 ? Math.max(0, lo - m) : lo - m, max = hi + m;
  if (type === 'int') return { min: Math.floor(min), max: Math.ceil(max), step: 1 };
  const raw = (max - min) / 100, p10 = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = (raw / p10 >= 5 ? 5 : raw / p10 >= 2 ? 2 : 1) * p10;
  return { min: Math.floor(min / step + 1e-9) * step, max: Math.ceil(max / step - 1e-9) * step, step };
}
// In the page: the rows of the view where the mesh is drawn (pixels that change when the mesh box is
// unticked, the page paused), as a share of the view's height, and the rows themselves
async function meshRows(page) {
  return page.evaluate(async () => {
    const lab = window.stanceLab, box = document.querySelector('#show-mesh');
    await lab.pause(true);
    const a = await lab.sample(false, true);
    box.click();
    const b = await lab.sample(false, true);
    box.click();
    await lab.frame();
    const w = a.box.x1 - a.box.x0, h = a.box.y1 - a.box.y0;
    let top = h, bottom = -1;
    for (let i = 0; i < a.data.length; i += 4) {
      if (Math.abs(a.data[i] - b.data[i]) + Math.abs(a.data[i + 1] - b.data[i + 1]) + Math.abs(a.data[i + 2] - b.data[i + 2]) < 30) continue;
      const y = h - 1 - Math.floor(i / 4 / w); // readPixels rows run bottom-up
      top = Math.min(top, y); bottom = Math.max(bottom, y);
    }
    return { top, bottom, height: h, share: bottom >= top ? (bottom - top + 1) / h : 0 };
  });
}
// a context lost during the run (the browser's GPU process stopped): the page takes the
// restored one; waits for it once, with a note. False when it does not come back.
async function contextBack(page, why) {
  const gl = await webgl(page);
  if (!gl.context) return false;
  console.log(`       note: ${why}; waiting for the WebGL2 context to come back (${gl.losses} lost, ${gl.restored} restored so far)`);
  try {
    await page.waitForFunction(() => !window.stanceLab.webgl().lost, null, { timeout: HANG_MS });
    await waitFrames(page, 3);
    return true;
  } catch { return false; }
}
// the canvas' pixels (stanceLab.sample), refused when nothing could be read back
async function pixels(page, noData) {
  for (let again = true; ; again = false) {
    const s = await page.evaluate((d) => window.stanceLab.sample(d), noData);
    const bad = canvasProblem(s);
    if (!bad) return s;
    if (!again || !await contextBack(page, bad)) throw new Error(`${bad}; WebGL2: ${JSON.stringify(await webgl(page))} (not a lab fault)`);
  }
}
// before pixel comparisons: the context is there and the view drew something
async function canvasDraws(page) {
  let p = await webglProblem(page);
  if (p && p.kind === 'context' && await contextBack(page, p.why)) p = await webglProblem(page);
  if (p) throw new Error((p.kind === 'context' ? 'no working WebGL2 context (not a lab fault): ' : 'the canvas does not draw: ') + p.why);
}

async function main() {
  for (const [p, what] of [[labDir + '/index.html', 'build-lab (make lab)'], [cli, 'the CLI (make build)'], [browserPath, 'chromium (scripts/lab_deps.sh)']])
    if (!fs.existsSync(p)) { console.error(`lab test: ${p} is missing: ${what}`); console.log('0 passed, 1 failed'); process.exit(1); }
  fs.mkdirSync(artifacts, { recursive: true });
  const server = await serve(labDir);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const consoleErrors = [];
  // the page in a fresh browser, loaded, with a working WebGL2 context; a browser that
  // started without one is closed and one more started
  let browser = null, problem = null;
  const KIND = { context: 'no working WebGL2 context', drawing: 'a canvas that drew nothing', start: 'not started' };
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      browser = await launch();
      consoleErrors.length = 0;
      const pg = browser.page;
      pg.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
      pg.on('pageerror', (e) => consoleErrors.push(String(e)));
      pg.on('requestfailed', (r) => consoleErrors.push('request failed: ' + r.url()));
      await pg.goto(url);
      await pg.waitForSelector('body[data-ready]', { timeout: HANG_MS }); // "1", or "no-webgl"
      problem = await webglProblem(pg);
    } catch (e) {
      problem = { kind: 'start', why: e.message.split('\n')[0] };
    }
    if (!problem) break;
    if (browser) await browser.close().catch(() => {});
    browser = null;
    if (attempt === 1) console.log(`note: the first browser's page has ${KIND[problem.kind]} (${problem.why}); closed it, starting a fresh browser (once)`);
  }
  if (!browser) {
    console.log(problem.kind === 'context'
      ? `FAIL - WebGL2: a fresh browser has no WebGL2 context either (${problem.why}): chromium/SwiftShader did not give the page one, not a lab fault; no test ran`
      : problem.kind === 'drawing'
        ? `FAIL - WebGL2: the page's canvas drew nothing in two browsers (${problem.why}); the context is there, so look at the lab's drawing; no test ran`
        : `FAIL - the page did not start in two browsers: ${problem.why}; no test ran`);
    server.close();
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  const page = browser.page;
  const shots = [];

  const tests = [
    ['the page loads with a WebGL2 context and no console error', async () => {
      check((await page.getAttribute('body', 'data-ready')) === '1', 'the page did not start: ' + await text(page, '#error'));
      const gl = await page.evaluate(() => window.stanceLab.webgl());
      check(gl.context && !gl.lost && gl.version.startsWith('WebGL 2'), 'WebGL2: ' + JSON.stringify(gl));
      console.log(`       ${gl.version}, ${gl.renderer}`);
      await waitText(page, '#state', 'Idle');
      await waitFrames(page, 60); // a second of frames at 60 fps: any error of drawing or stepping shows
      check(consoleErrors.length === 0, 'console errors: ' + consoleErrors.join(' | '));
      const err = await text(page, '#error');
      check(err === '', 'the page shows an error: ' + err);
    }],
    ['status() reports the built-in character with its mesh', async () => {
      const st = JSON.parse(await page.evaluate(() => window.stanceLab.status()));
      for (const k of ['state', 'transition', 'fps', 'characters', 'joints', 'triangles'])
        check(k in st, 'status() has no ' + k + ': ' + JSON.stringify(st));
      // the reference: what `stance demo` prints about the built-in character
      const demo = execFileSync(cli, ['demo'], { encoding: 'utf8' });
      const info = { joints: Number(/skeleton: (\d+) joints/.exec(demo)[1]), mesh: { triangles: Number(/mesh: .* (\d+) triangles/.exec(demo)[1]) } };
      check(st.state === 'Idle' && st.transition === 'none', 'state: ' + JSON.stringify(st));
      check(st.characters === 1, 'characters: ' + st.characters);
      check(st.joints === info.joints, `joints: page ${st.joints}, stance demo ${info.joints}`);
      check(st.triangles === info.mesh.triangles, `triangles: page ${st.triangles}, stance demo ${info.mesh.triangles}`);
    }],
    ['the canvas shows the skinned mesh, and it moves', async () => {
      // the character's screen box (its joints projected) is mostly covered by non-background pixels
      await canvasDraws(page);
      const a = await pixels(page);
      check(a.area > 2000, 'the character\'s screen box is ' + JSON.stringify(a.box));
      check(a.pixels / a.area > 0.25, `${a.pixels} of ${a.area} pixels in the character's box are not background`);
      // with the bones alone (mesh off) far fewer pixels are covered: the pixels are the mesh
      await page.click('#show-mesh');
      const bones = await pixels(page);
      await page.click('#show-mesh');
      check(bones.pixels < 0.5 * a.pixels, `bones only cover ${bones.pixels} pixels, the mesh ${a.pixels}`);
      // walking: two frames 0.3 s apart differ inside the box (paused: 1.2 s of steps, then 0.3 s)
      await setRange(page, '#speed', 1.5);
      await step(page, 72);
      const f1 = await pixels(page);
      await step(page, 18);
      const f2 = await pixels(page);
      check(f1.pixels / f1.area > 0.2, `walking: ${f1.pixels} of ${f1.area} pixels covered`);
      let diff = 0;
      const same = f1.box.x0 === f2.box.x0 && f1.box.y0 === f2.box.y0 && f1.data.length === f2.data.length;
      if (same) for (let i = 0; i < f1.data.length; i += 4) if (Math.abs(f1.data[i] - f2.data[i]) + Math.abs(f1.data[i + 1] - f2.data[i + 1]) > 30) diff++;
      check(!same || diff > 0.02 * f1.area, `two frames of the walk differ in ${diff} of ${f1.area} pixels`);
      const shot = path.join(artifacts, 'lab-character.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
      await resume(page);
      await setRange(page, '#speed', 0);
      await waitText(page, '#state', 'Idle');
    }],
    ['the speed slider and the jump button change the state', async () => {
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight'); // 6 x 0.25 m/s
      check((await text(page, '#speed-val')) === '1.50 m/s', 'arrows set the speed: ' + await text(page, '#speed-val'));
      await waitText(page, '#state', 'Move');
      await waitSim(page, 0.6);
      await page.click('#jump');
      await waitText(page, '#state', 'Jump');
      await waitText(page, '#state', 'Move'); // leaves by exit time, speed still 1.5
      await setRange(page, '#speed', 0);
      await waitText(page, '#state', 'Idle');
      await page.keyboard.press('Space');
      await waitText(page, '#state', 'Jump');
      const last = await text(page, '#last-jump');
      check(last.startsWith('Idle'), 'the last switch is from Idle: ' + last);
    }],
    ['switching mode changes the reported jump', async () => {
      // paused and stepped: running at 4 m/s for 0.8 s, then the jump
      const jumpWith = async (mode) => {
        await page.selectOption('#mode', { label: mode });
        await setRange(page, '#speed', 4);
        await stepUntil(page, () => document.querySelector('#state').textContent === 'Move', null, 1, 600, `${mode}: Move`);
        await step(page, 48);
        await page.click('#jump');
        await stepUntil(page, () => document.querySelector('#state').textContent === 'Jump', null, 1, 60, `${mode}: Jump`);
        const last = await page.locator('#last-jump').getAttribute('data-cm');
        const label = await text(page, '#last-jump');
        check(label.startsWith('Move'), `${mode}: the last switch is Move -> Jump: ${label}`);
        return Number(last);
      };
      const cut = await jumpWith('cut');
      const fade = await jumpWith('crossfade');
      const inert = await jumpWith('inertialize');
      check(cut > 1.0, `cut pops: ${cut} cm`);
      check(fade < 0.05, `crossfade starts from the old pose: ${fade} cm`);
      check(inert < cut, `inertialize jumps less than cut: ${inert} vs ${cut} cm`);
      await resume(page);
    }],
    ['the script\'s figures equal stance scenario --json', async () => {
      await page.selectOption('#mode', { label: 'cut' });
      await setRange(page, '#blend', 0.4);
      await page.selectOption('#easing', { label: 'linear' });
      await page.click('#script');
      await page.waitForSelector('#scenario-table tbody tr');
      const want = cliJson(['scenario', '--json', '--blend-time', '0.4', '--easing', 'linear']);
      const got = await page.$$eval('#scenario-table tbody tr', (rows) => rows.map((r) => {
        const o = {};
        for (const td of r.querySelectorAll('td')) o[td.dataset.key] = td.textContent;
        return o;
      }));
      check(got.length === want.modes.length, `${got.length} rows, the CLI has ${want.modes.length}`);
      want.modes.forEach((m, i) => {
        const g = got[i];
        const exp = { mode: m.mode, worst_jump_cm: m.worst_jump_cm.toFixed(2), at_s: m.at_s.toFixed(3), transition: m.transition,
          joint: m.joint, max_clips_sampled: String(m.max_clips_sampled), transitions: String(m.transitions) };
        for (const k of Object.keys(exp)) check(g[k] === exp[k], `${m.mode}.${k}: page ${g[k]}, CLI ${exp[k]}`);
      });
      check((await page.locator('#scenario-table').getAttribute('data-blend')) === '0.400', 'the table is for blend 0.4');
      // the animated script: the live worst switch equals the table's figure for cut
      // (the script's steps are 1/60 s whatever the frame rate: the figure depends on no timing)
      await page.selectOption('#rate', '4');
      await page.waitForFunction(() => document.querySelector('#script-time').dataset.running === '0', null, { timeout: HANG_MS });
      const live = await page.locator('#worst-jump').getAttribute('data-cm');
      const cut = want.modes.find((m) => m.mode === 'cut');
      check(live === cut.worst_jump_cm.toFixed(2), `the animated script's worst jump ${live} cm equals the table's ${cut.worst_jump_cm}`);
      await page.selectOption('#rate', '1');
      // a second run with crossfade (transitions hatched on the band), stepped to 11 s, for the screenshot
      await page.selectOption('#mode', { label: 'crossfade' });
      await page.click('#script');
      await stepUntil(page, () => parseFloat(document.querySelector('#script-time').textContent) > 11.0, null, 6, 900, 'the script at 11 s');
      const shot = path.join(artifacts, 'lab-state-machine.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
      await resume(page);
    }],
    ['the layers view: figures equal stance layers --json, live figures agree', async () => {
      await page.click('#tab-ly');
      await page.waitForSelector('#layers-table tbody tr');
      const want = cliJson(['layers', '--json']);
      const cell = async (k) => page.locator(`#layers-table td[data-key="${k}"]`).textContent();
      check((await cell('whole')) === want.foot_slide_cm_per_m.whole.toFixed(3) + ' cm/m', 'whole: ' + await cell('whole'));
      check((await cell('upper')) === want.foot_slide_cm_per_m.upper.toFixed(3) + ' cm/m', 'upper: ' + await cell('upper'));
      check((await cell('local')) === want.arm_angle_error_deg.local.toFixed(2) + '\u00b0', 'local: ' + await cell('local'));
      check((await cell('local_lean')) === want.arm_angle_error_deg.local_lean.toFixed(2) + '\u00b0', 'local_lean');
      check((await cell('mesh')) === want.arm_angle_error_deg.mesh.toFixed(3) + '\u00b0', 'mesh');
      check((await cell('mesh_lean')) === want.arm_angle_error_deg.mesh_lean.toFixed(3) + '\u00b0', 'mesh_lean');
      // paused: each setup restarts the layer graph's instance; 240 steps of 1/60 s then fill the
      // page's 4 s window with the frames the CLI measures (its 0..240)
      await page.evaluate(() => window.stanceLab.pause(true));
      const live = async (setup, sel) => {
        await setup();
        await step(page, 240);
        const st = await status(page);
        close(st.instance_time, 4, 1e-3, 'the layer graph restarted, then ran 240 steps: its time');
        return parseFloat(await text(page, sel));
      };
      // right arm, local, over a run (the default)
      const armLocal = await live(async () => {
        await page.selectOption('#mask', '0'); await page.selectOption('#mask', '3');
      }, '#arm-max');
      // the same frames as the CLI's: equal to the last digit shown (one unit of it: a rounding boundary)
      const DIGIT2 = 0.0101, DIGIT3 = 0.00101;
      close(armLocal, want.arm_angle_error_deg.local, DIGIT2, 'live arm angle, local space');
      const armLean = await live(async () => {
        await page.check('#on-lean'); await page.selectOption('#mask', '0'); await page.selectOption('#mask', '3');
      }, '#arm-max');
      close(armLean, want.arm_angle_error_deg.local_lean, DIGIT2, 'live arm angle, local space + lean');
      const armMesh = await live(async () => { await page.check('input[name=space][value="1"]'); }, '#arm-max');
      close(armMesh, want.arm_angle_error_deg.mesh_lean, DIGIT2 / 2, 'live arm angle, mesh space + lean'); // the page shows 2 digits, the CLI 3
      await page.uncheck('#on-lean');
      await page.check('input[name=space][value="0"]');
      const slideWhole = await live(async () => {
        await page.check('input[name=base][value="1"]'); await page.selectOption('#mask', '1');
      }, '#slide');
      close(slideWhole, want.foot_slide_cm_per_m.whole, DIGIT3, 'live foot sliding, whole-body wave over a walk');
      const slideUpper = await live(async () => { await page.selectOption('#mask', '2'); }, '#slide');
      close(slideUpper, want.foot_slide_cm_per_m.upper, DIGIT3, 'live foot sliding, upper-body wave over a walk');
      // the screenshot: right arm, local space, lean on, over a run
      await page.check('input[name=base][value="2"]');
      await page.check('#on-lean');
      await page.selectOption('#mask', '3');
      await step(page, 90);
      const shot = path.join(artifacts, 'lab-layers.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
      await resume(page);
    }],
    ['a .stance file plays its clips', async () => {
      const bvh = '/usr/share/assimp/models/BVH/01_01.bvh';
      if (!fs.existsSync(bvh)) return 'skip: ' + bvh + ' is missing (Debian assimp-testmodels)';
      const file = path.join(artifacts, 'cmu_01_01.stance');
      try {
        execFileSync(cli, ['import', bvh, '-o', file, '--scale', '0.056444'], { stdio: 'pipe' });
      } catch (e) {
        return 'skip: this CLI cannot import BVH (built without assimp)';
      }
      const want = cliJson(['info', file, '--json']);
      await page.click('#tab-as');
      await page.setInputFiles('#file', file);
      await waitText(page, '#as-file', 'cmu_01_01.stance');
      const joints = Number(await text(page, '#as-joints'));
      const nj = want.joints.length;
      check(joints === nj, `joints: page ${joints}, CLI ${nj}`);
      check((await text(page, '#as-error')) === '', 'load error: ' + await text(page, '#as-error'));
      const t0 = await text(page, '#as-time');
      await waitSim(page, 0.5);
      const t1 = await text(page, '#as-time');
      check(t1 !== t0, `the clip plays: time ${t0} -> ${t1}`);
      // a file without a mesh shows its bones: the mesh box unticked and disabled, bones ticked, drawn
      check(!want.meshes || want.meshes.length === 0, 'the BVH has no mesh: ' + JSON.stringify(want.meshes));
      check(await page.locator('#show-mesh').isDisabled() && !await page.locator('#show-mesh').isChecked(), 'the mesh box is unticked and disabled');
      check(await page.locator('#show-bones').isChecked(), 'the bones box is ticked');
      await canvasDraws(page);
      const bones = await pixels(page, true);
      check(bones.area > 2000 && bones.pixels > 300, `the bones cover ${bones.pixels} pixels of the skeleton's box ${JSON.stringify(bones.box)}`);
      // its states are named by its clips
      const m = await page.evaluate(() => window.stanceLab.machine());
      check(JSON.stringify(m.states) === JSON.stringify(want.clips.map((c) => c.name)), 'states: ' + JSON.stringify(m.states) + ', clips ' + want.clips.map((c) => c.name));
      const meshless = path.join(artifacts, 'lab-meshless.png');
      await page.screenshot({ path: meshless, fullPage: true });
      shots.push(meshless);
      // a broken file is refused with the loader's message
      const bad = path.join(artifacts, 'broken.stance');
      const bytes = fs.readFileSync(file);
      bytes[bytes.length - 1] ^= 0xff;
      fs.writeFileSync(bad, bytes);
      await page.setInputFiles('#file', bad);
      await page.waitForFunction(() => document.querySelector('#as-error').textContent !== '', null, { timeout: HANG_MS });
      await page.setInputFiles('#file', file);
      await page.waitForFunction(() => document.querySelector('#as-error').textContent === '', null, { timeout: HANG_MS });
      await waitSim(page, 0.8);
      const shot = path.join(artifacts, 'lab-asset.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
    }],
    ['a .stance file with several clips switches between them', async () => {
      const data = process.env.STANCE_DATA || path.join(root, '..', 'shared', 'data');
      const glb = path.join(data, 'fox', 'Fox.glb');
      if (!fs.existsSync(glb)) return 'skip: ' + glb + ' is missing (set STANCE_DATA)';
      const file = path.join(artifacts, 'fox.stance');
      try {
        execFileSync(cli, ['import', glb, '-o', file, '--scale', '0.01'], { stdio: 'pipe' }); // centimetres
      } catch (e) {
        return 'skip: this CLI cannot import glTF (built without assimp)';
      }
      const want = cliJson(['info', file, '--json']);
      await page.click('#tab-as');
      await page.setInputFiles('#file', file);
      await waitText(page, '#as-file', 'fox.stance');
      check(Number(await text(page, '#as-joints')) === want.joints.length, 'joint count');
      const names = await page.$$eval('#clip option', (os) => os.map((o) => o.textContent.replace(/ \(.*$/, '')));
      check(JSON.stringify(names) === JSON.stringify(want.clips.map((c) => c.name)), 'clip names: ' + names.join(', '));
      // no graph in the file (and no idle clip for the lesson's): one state per clip, named by it
      await waitFrames(page, 3);
      const m = await page.evaluate(() => window.stanceLab.machine());
      check(JSON.stringify(m.states) === JSON.stringify(names), 'states: ' + JSON.stringify(m.states));
      check(m.current === names[0], 'it starts in ' + m.current);
      // a file with a mesh: the mesh box is back, ticked
      check(!await page.locator('#show-mesh').isDisabled() && await page.locator('#show-mesh').isChecked(), 'the mesh box is back');
      const walk = want.clips.findIndex((c) => c.name === 'Walk');
      check(walk >= 0, 'the fox has a Walk clip');
      await page.selectOption('#clip', String(walk));
      await waitSim(page, 0.7);
      const t = parseFloat(await text(page, '#as-time'));
      check(t >= 0 && t <= want.clips[walk].duration_s + 1e-3, `the time ${t} s lies in Walk (${want.clips[walk].duration_s} s)`);
      check((await text(page, '#as-error')) === '' && (await text(page, '#error')) === '', 'no error');
      const shot = path.join(artifacts, 'lab-asset-fox.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
    }],
    ['RobotExpressive with its compiled graph: mesh, state machine, jump', async () => {
      const file = path.join(labDir, 'robot.stance');
      if (!fs.existsSync(file)) return 'skip: ' + file + ' is missing (make lab builds it when ../shared/data is present)';
      const want = cliJson(['info', file, '--json']);
      await page.click('#tab-as');
      await page.setInputFiles('#file', file);
      await waitText(page, '#as-file', 'robot.stance');
      check((await text(page, '#as-error')) === '', 'load error: ' + await text(page, '#as-error'));
      await waitFrames(page, 3); // drawn, and the state machine view (every other frame)
      const st = JSON.parse(await page.evaluate(() => window.stanceLab.status()));
      check(st.joints === 43 && st.joints === want.joints.length, `joints: ${st.joints} (the CLI: ${want.joints.length})`);
      const tris = want.meshes.reduce((n, m) => n + m.triangles, 0);
      check(st.triangles > 0 && st.triangles === tris, `triangles: page ${st.triangles}, CLI ${tris}`);
      const m = await page.evaluate(() => window.stanceLab.machine());
      check(m && ['Idle', 'Move', 'Jump'].every((n) => m.states.includes(n)), 'the state machine view shows ' + JSON.stringify(m && m.states));
      check(m.current === 'Idle', 'it starts in ' + m.current);
      await canvasDraws(page);
      const a = await pixels(page);
      check(a.pixels > 50, `the robot's mesh covers ${a.pixels} pixels`);
      // the camera framed it on load: the mesh stands about 60 % of the view's height
      const rows = await meshRows(page);
      console.log(`       robot on load: the mesh covers rows ${rows.top}..${rows.bottom} of ${rows.height} (${(100 * rows.share).toFixed(1)} %)`);
      check(rows.share > 0.5 && rows.share < 0.7, `the mesh fills ${(100 * rows.share).toFixed(1)} % of the view's height`);
      await resume(page);
      await page.click(param('jump') + ' button.act');
      await page.waitForFunction(() => window.stanceLab.machine().current === 'Jump', null, { timeout: HANG_MS });
      await waitFrames(page, 3);
      const shot = path.join(artifacts, 'lab-robot.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
      await page.waitForFunction(() => window.stanceLab.machine().current === 'Idle', null, { timeout: HANG_MS });
      // dropped on the view, the same file loads too
      await page.evaluate(async () => {
        const blob = await (await fetch('robot.stance')).blob();
        const dt = new DataTransfer();
        dt.items.add(new File([blob], 'dropped.stance'));
        document.querySelector('#view').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      });
      await waitText(page, '#as-file', 'dropped.stance');
      check(Number(await text(page, '#as-joints')) === 43, 'dropped: joints ' + await text(page, '#as-joints'));
    }],
    ['a file without a graph runs the lesson\'s graph on clips matched by name', async () => {
      const data = process.env.STANCE_DATA || path.join(root, '..', 'shared', 'data');
      const glb = path.join(data, 'robot_expressive', 'RobotExpressive.glb');
      if (!fs.existsSync(glb)) return 'skip: ' + glb + ' is missing (set STANCE_DATA)';
      const file = path.join(artifacts, 'robot_clips.stance');
      try { execFileSync(cli, ['import', glb, '-o', file], { stdio: 'pipe' }); } catch (e) { return 'skip: this CLI cannot import glTF'; }
      const want = cliJson(['info', file, '--json']);
      await page.setInputFiles('#file', file);
      await waitText(page, '#as-file', 'robot_clips.stance');
      check((await text(page, '#as-kind')).startsWith('the lesson'), 'graph: ' + await text(page, '#as-kind'));
      // the mapping panel: each role's clip is the first whose name contains the role, any case
      for (const role of ['idle', 'walk', 'run', 'jump', 'wave']) {
        const got = await page.locator('#as-map-' + role).inputValue();
        const exp = want.clips.findIndex((c) => c.name.toLowerCase().includes(role));
        check(Number(got) === exp, `${role}: clip ${got}, by name ${exp}`);
      }
      const m = await page.evaluate(() => window.stanceLab.machine());
      check(['Idle', 'Move', 'Jump'].every((n) => m.states.includes(n)), 'states: ' + m.states);
      await setRange(page, param('speed') + ' input[type=range]', 3);
      await page.waitForFunction(() => window.stanceLab.machine().current === 'Move', null, { timeout: HANG_MS });
      await page.click(param('jump') + ' button.act');
      await page.waitForFunction(() => window.stanceLab.machine().current === 'Jump', null, { timeout: HANG_MS });
      // the wave layer: its weight slider moves the layer's weight
      await setRange(page, '#as-layers input[data-layer="1"]', 1);
      await page.waitForFunction(() => window.stanceLab.machine().layers[1] > 0.99, null, { timeout: HANG_MS });
      // unmapping walk and run leaves no lesson graph: the clips play one at a time
      await page.selectOption('#as-map-walk', '-1');
      await page.selectOption('#as-map-run', '-1');
      check((await text(page, '#as-error')).includes('walk or run'), 'error: ' + await text(page, '#as-error'));
      check((await text(page, '#as-view')) === 'playing one clip', await text(page, '#as-view'));
    }],
    ['a graph of your own (Fox: velocity, alert, level, look) is driven by its own controls and keys', async () => {
      const glb = path.join(DATA, 'fox', 'Fox.glb');
      if (!fs.existsSync(glb)) return 'skip: ' + glb + ' is missing (set STANCE_DATA)';
      // the Fox in metres, and a graph of its own on it with parameters named neither speed nor jump
      const fox = path.join(artifacts, 'fox.stance');
      try { execFileSync(cli, ['import', glb, '-o', fox, '--scale', '0.01'], { stdio: 'pipe' }); } catch (e) { return 'skip: this CLI cannot import glTF'; }
      const graph = {
        version: 1, asset: 'fox.stance',
        params: [{ name: 'velocity', type: 'float', value: 0 }, { name: 'alert', type: 'bool' }, { name: 'look', type: 'trigger' },
          { name: 'level', type: 'int', value: 1 }],
        machines: [{
          name: 'Fox', entry: 'Survey',
          states: [
            { name: 'Survey', clip: 'Survey' },
            { name: 'Move', blend1d: { param: 'velocity', entries: [{ clip: 'Walk', x: 1 }, { clip: 'Run', x: 4 }] } },
            { name: 'Alert', clip: 'Survey', speed: 2 },
            { name: 'Look', clip: 'Survey', once: true }],
          transitions: [
            { from: 'Survey', to: 'Move', when: [{ param: 'velocity', op: '>=', value: 0.5, hysteresis: 0.1 }] },
            { from: 'Move', to: 'Survey', when: [{ param: 'velocity', op: '<', value: 0.5, hysteresis: 0.1 }] },
            { from: 'Survey', to: 'Alert', any_of: [[{ param: 'alert' }], [{ param: 'level', op: '>=', value: 3 }]] },
            { from: 'Alert', to: 'Survey', when: [{ param: 'alert', op: 'false' }, { param: 'level', op: '<', value: 3 }] },
            { from: '*', to: 'Look', when: [{ param: 'look' }] },
            { from: 'Look', to: 'Survey', exit: 'end' }],
        }],
      };
      const json = path.join(artifacts, 'fox_graph.json'), file = path.join(artifacts, 'fox_graph.stance');
      fs.writeFileSync(json, JSON.stringify(graph, null, 1));
      execFileSync(cli, ['compile', json, '-o', file], { stdio: 'pipe' });
      await page.click('#tab-as');
      await page.evaluate((k) => localStorage.removeItem(k), 'stance-lab.keys'); // no binding from an earlier run
      await page.setInputFiles('#file', file);
      await waitText(page, '#as-file', 'fox_graph.stance');
      check((await text(page, '#as-error')) === '', 'load error: ' + await text(page, '#as-error'));
      check((await text(page, '#as-kind')).startsWith('the file'), 'graph: ' + await text(page, '#as-kind'));
      await waitState(page, 'Survey');
      // a control per parameter, of its type
      check(await page.locator(param('velocity') + ' input[type=range]').count() === 1, 'velocity: a slider');
      check(await page.locator(param('alert') + ' input[type=checkbox]').count() === 1, 'alert: a box');
      check(await page.locator(param('look') + ' button.act').count() === 1, 'look: a button');
      check(await page.locator(param('level') + ' input[type=range]').count() === 1, 'level: a slider');
      // velocity's range: from the values the graph uses (0.5 -/+ 0.1 in two conditions, entries at 1 and 4) and its value 0
      const want = expectedRange('float', 0, [0.5, 0.4, 0.6, 0.5, 0.4, 0.6, 1, 4]);
      const got = await page.locator(param('velocity') + ' input').evaluate((el) => ({ min: Number(el.min), max: Number(el.max), step: Number(el.step) }));
      close(got.min, want.min, 1e-9, 'velocity slider min'); close(got.max, want.max, 1e-9, 'velocity slider max');
      close(got.step, want.step, 1e-12, 'velocity slider step');
      console.log(`       velocity slider ${got.min}..${got.max} step ${got.step}`);
      // a real click at 80 % of the slider: velocity about 4, the fox leaves Survey for Move
      await clickRange(page, param('velocity') + ' input', 0.8);
      const v = Number(await page.locator(param('velocity') + ' input').inputValue());
      check(v > 3 && v < 4.6, 'velocity after the click: ' + v);
      await waitState(page, 'Move');
      // Home on the focused slider: velocity 0, back to Survey
      await page.keyboard.press('Home');
      check(Number(await page.locator(param('velocity') + ' input').inputValue()) === 0, 'Home: velocity 0');
      await waitState(page, 'Survey');
      // level, an int: whole steps, its range from 3 (two conditions) and its value 1; End (the slider
      // focused by a click on its left end) raises it to the top: Alert; Home: Survey again
      const wantLevel = expectedRange('int', 1, [3, 3]);
      const gotLevel = await page.locator(param('level') + ' input').evaluate((el) => [Number(el.min), Number(el.max), Number(el.step)]);
      check(JSON.stringify(gotLevel) === JSON.stringify([wantLevel.min, wantLevel.max, 1]), `level slider ${gotLevel}, want ${JSON.stringify(wantLevel)}`);
      await clickRange(page, param('level') + ' input', 0.02);
      check(Number(await page.locator(param('level') + ' input').inputValue()) === wantLevel.min, 'level after a click at its left end');
      await page.keyboard.press('End');
      check(Number(await page.locator(param('level') + ' input').inputValue()) === wantLevel.max, 'End: level at the top');
      await waitState(page, 'Alert');
      await page.keyboard.press('Home');
      await waitState(page, 'Survey');
      // the alert box, clicked: Alert; clicked again: Survey
      await page.click(param('alert') + ' input');
      await waitState(page, 'Alert');
      const styles = await page.evaluate(() => window.stanceLab.machine().styles);
      await page.click(param('alert') + ' input');
      await waitState(page, 'Survey');
      // "Any state" is drawn unlike any state: dashed and white, not the current state's or a source's fill
      const any = styles['Any state'];
      check(any && any.dash && !styles.Alert.dash, 'the any-state box is dashed: ' + JSON.stringify(styles));
      check(any.fill !== styles.Alert.fill && any.fill !== styles.Survey.fill && any.fill !== '#fde68a', 'the any-state fill: ' + any.fill);
      // the user binds L to the look trigger (click its key box, press L), then L fires it
      const lookKey = param('look') + ' button.key';
      await page.click(lookKey);
      await page.keyboard.press('l');
      check((await text(page, lookKey)) === 'L', 'the key box shows ' + await text(page, lookKey));
      const stored = JSON.parse(await page.evaluate((k) => localStorage.getItem(k), 'stance-lab.keys'));
      check(stored.look && stored.look.fire === 'KeyL', 'localStorage: ' + JSON.stringify(stored));
      await page.keyboard.press('l');
      await waitState(page, 'Look');
      await waitState(page, 'Survey'); // Look plays once, then back
      // the first float's default keys: up arrow three times raises velocity by 3 x 5 % of the range
      await page.keyboard.press('ArrowUp'); await page.keyboard.press('ArrowUp'); await page.keyboard.press('ArrowUp');
      close(Number(await page.locator(param('velocity') + ' input').inputValue()), 0.75, 1e-9, 'velocity after 3 x up arrow');
      await waitState(page, 'Move');
      await page.keyboard.press('ArrowDown'); await page.keyboard.press('ArrowDown'); await page.keyboard.press('ArrowDown');
      await waitState(page, 'Survey');
      // loaded again, the binding is read back from localStorage
      await page.setInputFiles('#file', fox);
      await page.setInputFiles('#file', file);
      await waitText(page, '#as-file', 'fox_graph.stance');
      check((await text(page, lookKey)) === 'L', 'after a reload the key box shows ' + await text(page, lookKey));
      await page.keyboard.press('l');
      await waitState(page, 'Look');
      await page.click(param('alert') + ' input');
      await waitFrames(page, 3);
      const shot = path.join(artifacts, 'lab-fox-graph.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
      await page.click(param('alert') + ' input');
    }],
    ['at 1280x720 every control of every view is inside the viewport', async () => {
      await page.setViewportSize({ width: 1280, height: 720 });
      try {
        // every visible button, input and select, and the canvases, within 1280 x 720 with no page
        // scrolling; a control below the fold of a panel that scrolls on its own (overflow auto,
        // the panel itself inside the viewport) is reached by scrolling that panel, as in an inspector
        const outside = async (what) => page.evaluate((w) => {
          const bad = [];
          const inView = (r) => r.left >= 0 && r.top >= 0 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
          const inScrollingPanel = (el) => {
            for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
              const oy = getComputedStyle(a).overflowY;
              if ((oy === 'auto' || oy === 'scroll') && a.scrollHeight > a.clientHeight) return inView(a.getBoundingClientRect());
            }
            return false;
          };
          for (const el of document.querySelectorAll('button, input, select, canvas')) {
            if (!el.offsetParent && el.tagName !== 'CANVAS') continue; // hidden
            const r = el.getBoundingClientRect();
            if (!r.width || !r.height) continue;
            if (el.tagName === 'CANVAS') { if (r.left < 0 || r.right > innerWidth + 0.5) bad.push(w + ': canvas#' + el.id + ' ' + r.left + '..' + r.right); continue; }
            if (!inView(r) && !(r.left >= 0 && r.right <= innerWidth + 0.5 && inScrollingPanel(el)))
              bad.push(`${w}: ${el.tagName.toLowerCase()}#${el.id || el.dataset.param || el.textContent.slice(0, 20)} at ${Math.round(r.left)},${Math.round(r.top)}..${Math.round(r.right)},${Math.round(r.bottom)}`);
          }
          if (document.documentElement.scrollWidth > innerWidth) bad.push(w + ': the page scrolls sideways (' + document.documentElement.scrollWidth + ' px)');
          return bad;
        }, what);
        const bad = [];
        for (const [tab, name] of [['#tab-sm', 'state machine'], ['#tab-ly', 'layers'], ['#tab-cr', 'crowd']]) {
          await page.click(tab);
          await waitFrames(page, 2);
          bad.push(...await outside(name));
          const shot = path.join(artifacts, `lab-1280-${tab.slice(5)}.png`);
          await page.screenshot({ path: shot });
          shots.push(shot);
        }
        // the file view with the most controls: a file without a graph (the lesson's graph, its
        // parameters, the wave layer, the mapping of roles to clips), then the Fox's own graph
        await page.click('#tab-as');
        for (const f of ['robot_clips.stance', 'fox_graph.stance', 'robot.stance']) {
          const file = fs.existsSync(path.join(artifacts, f)) ? path.join(artifacts, f) : path.join(labDir, f);
          if (!fs.existsSync(file)) { console.log('       (no ' + f + ': not checked)'); continue; }
          await page.setInputFiles('#file', file);
          await waitText(page, '#as-file', f);
          await waitFrames(page, 2);
          bad.push(...await outside('your character, ' + f));
          const shot = path.join(artifacts, `lab-1280-as-${f.replace('.stance', '')}.png`);
          await page.screenshot({ path: shot });
          shots.push(shot);
        }
        check(!bad.length, bad.length + ' controls outside 1280x720: ' + bad.slice(0, 6).join('; '));
      } finally {
        await page.setViewportSize({ width: 1440, height: 1000 });
      }
    }],
    ['the crowd: 100 characters drawn, update timed in WebAssembly', async () => {
      await page.click('#tab-cr');
      await waitSim(page, 1.0);
      const st = await status(page);
      check(st.characters === 100, 'characters: ' + st.characters);
      check(st.update_ms >= 0 && st.update_avg_ms > 0, 'update time: ' + JSON.stringify(st));
      // the crowd is drawn: the view has far more non-background pixels with the meshes than without
      await canvasDraws(page);
      const seen = await pixels(page, true);
      await page.click('#show-mesh');
      const ground = await pixels(page, true);
      await page.click('#show-mesh');
      console.log(`       crowd pixels: ${seen.pixels} of ${seen.area} not background, ${ground.pixels} without the meshes`);
      check(seen.pixels - ground.pixels > 0.03 * seen.area, `the crowd covers ${seen.pixels - ground.pixels} pixels of ${seen.area}`);
      const shot = path.join(artifacts, 'lab-crowd.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
      // what the page measured (figures only: make lab-bench measures the frame rate)
      const after = await status(page);
      console.log(`       crowd: update + skinning ${after.update_avg_ms} ms a frame in wasm, ${after.triangles} triangles, ` +
        `renderer ${await page.evaluate(() => window.stanceLab.renderer())}, load ${os.loadavg()[0].toFixed(1)}`);
    }],
    ['pause and step one frame', async () => {
      await page.click('#tab-sm');
      await page.click('#pause');
      const a = await text(page, '#speed-seen');
      await setRange(page, '#speed', 3);
      const s0 = await status(page);
      await waitFrames(page, 20);
      check((await text(page, '#speed-seen')) === a, 'paused: nothing moves');
      check((await status(page)).steps === s0.steps, 'paused: no step ran');
      await page.click('#step');
      await waitFrames(page, 2);
      check((await text(page, '#speed-seen')) !== a, 'a step moves one frame');
      check((await status(page)).steps === s0.steps + 1, 'the step button runs one step');
      await page.click('#pause');
    }],
    ['no console error during the whole session', async () => {
      check(consoleErrors.length === 0, 'console errors: ' + consoleErrors.join(' | '));
    }],
  ];

  for (const [name, fn] of tests) {
    if (ONLY && name !== tests[0][0] && !ONLY.test(name)) continue;
    try {
      const r = await fn();
      if (typeof r === 'string' && r.startsWith('skip')) { skipped++; console.log(`skip - ${name}: ${r.slice(6)}`); }
      else { passed++; console.log(`ok   - ${name}`); }
    } catch (e) {
      failed++;
      console.log(`FAIL - ${name}: ${e.message.split('\n')[0]}`);
      const shot = path.join(artifacts, 'failure-' + (passed + failed + skipped) + '.png');
      try { await page.screenshot({ path: shot, fullPage: true }); console.log('       screenshot: ' + shot); } catch { /* page gone */ }
    }
  }
  const gl = await webgl(page).catch(() => null);
  if (gl && gl.losses) console.log(`note: the page's WebGL2 context was lost ${gl.losses} times during the run, restored ${gl.restored} (the browser's GPU process, not the lab)`);
  await browser.close();
  server.close();
  for (const s of shots) console.log('screenshot: ' + path.relative(root, s));
  console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ''));
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); console.log('0 passed, 1 failed'); process.exit(1); });
