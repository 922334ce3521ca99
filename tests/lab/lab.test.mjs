// tests/lab/lab.test.mjs - browser tests of the animation lab (`make lab-test`).
//
// Serves build-lab/ on 127.0.0.1 (a free port), drives Debian's
// /usr/bin/chromium headless through npm playwright-core (lab/node_modules,
// no browser download), and checks the page against the command line
// (STANCE_CLI, default build/stance): the script's figures must equal
// `stance scenario --json` and the layer figures `stance layers --json`.
// Screenshots go to build-lab/artifacts/. Ends with "N passed, N failed".
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const labDir = path.resolve(root, process.env.LAB_DIR || 'build-lab');
const cli = path.resolve(root, process.env.STANCE_CLI || 'build/stance');
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
const artifacts = path.join(labDir, 'artifacts');
const require = createRequire(path.join(root, 'lab', 'package.json'));

let passed = 0, failed = 0, skipped = 0;
function check(cond, msg) { if (!cond) throw new Error(msg); }
function close(a, b, tol, msg) { check(Math.abs(a - b) <= tol, `${msg}: ${a} vs ${b} (tolerance ${tol})`); }

// ---- a static server for build-lab -------------------------------------------
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.png': 'image/png', '.json': 'application/json' };
function serve(dir) {
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.join(dir, url === '/' ? 'index.html' : url);
    if (!file.startsWith(dir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404); res.end('not found'); return;
    }
    res.writeHead(200, { 'Content-Type': MIME[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(Number(process.env.LAB_TEST_PORT || 0), '127.0.0.1', () => resolve(server)));
}

function cliJson(args) { return JSON.parse(execFileSync(cli, args, { encoding: 'utf8' })); }

async function setRange(page, sel, value) {
  await page.evaluate(([s, v]) => {
    const el = document.querySelector(s);
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, [sel, value]);
}
const text = (page, sel) => page.locator(sel).textContent();
async function waitText(page, sel, want, timeout = 5000) {
  await page.waitForFunction(([s, w]) => document.querySelector(s).textContent === w, [sel, want], { timeout });
}

async function main() {
  for (const [p, what] of [[labDir + '/index.html', 'build-lab (make lab)'], [cli, 'the CLI (make build)'], [browserPath, 'chromium (scripts/lab_deps.sh)']])
    if (!fs.existsSync(p)) { console.error(`lab test: ${p} is missing: ${what}`); console.log('0 passed, 1 failed'); process.exit(1); }
  const { chromium } = require('playwright-core');
  fs.mkdirSync(artifacts, { recursive: true });
  const server = await serve(labDir);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'stance-lab-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: browserPath, headless: true, viewport: { width: 1440, height: 1000 },
    // WebGL2 without a GPU: SwiftShader
    args: ['--no-sandbox', '--use-gl=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] || await context.newPage();
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  page.on('requestfailed', (r) => consoleErrors.push('request failed: ' + r.url()));
  const shots = [];

  const tests = [
    ['the page loads with no console error', async () => {
      await page.goto(url);
      await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
      await waitText(page, '#state', 'Idle');
      await page.waitForTimeout(1200);
      check(consoleErrors.length === 0, 'console errors: ' + consoleErrors.join(' | '));
      const err = await text(page, '#error');
      check(err === '', 'the page shows an error: ' + err);
      // frames over 3 s once started (the first half second compiles shaders and uploads the mesh)
      const fps = await page.evaluate(() => new Promise((resolve) => {
        let n = 0; const t0 = performance.now();
        const tick = (t) => { n++; if (t - t0 < 3000) requestAnimationFrame(tick); else resolve(n * 1000 / (t - t0)); };
        requestAnimationFrame(tick);
      }));
      check(fps >= 30, `the page runs at ${fps.toFixed(1)} fps (load average ${os.loadavg()[0].toFixed(1)})`);
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
      const a = await page.evaluate(() => window.stanceLab.sample());
      check(a.area > 2000, 'the character\'s screen box is ' + JSON.stringify(a.box));
      check(a.pixels / a.area > 0.25, `${a.pixels} of ${a.area} pixels in the character's box are not background`);
      // with the bones alone (mesh off) far fewer pixels are covered: the pixels are the mesh
      await page.click('#show-mesh');
      const bones = await page.evaluate(() => window.stanceLab.sample());
      await page.click('#show-mesh');
      check(bones.pixels < 0.5 * a.pixels, `bones only cover ${bones.pixels} pixels, the mesh ${a.pixels}`);
      // walking: two frames 0.3 s apart differ inside the box
      await setRange(page, '#speed', 1.5);
      await page.waitForTimeout(1200);
      const f1 = await page.evaluate(() => window.stanceLab.sample());
      await page.waitForTimeout(300);
      const f2 = await page.evaluate(() => window.stanceLab.sample());
      check(f1.pixels / f1.area > 0.2, `walking: ${f1.pixels} of ${f1.area} pixels covered`);
      let diff = 0;
      const same = f1.box.x0 === f2.box.x0 && f1.box.y0 === f2.box.y0 && f1.data.length === f2.data.length;
      if (same) for (let i = 0; i < f1.data.length; i += 4) if (Math.abs(f1.data[i] - f2.data[i]) + Math.abs(f1.data[i + 1] - f2.data[i + 1]) > 30) diff++;
      check(!same || diff > 0.02 * f1.area, `two frames of the walk differ in ${diff} of ${f1.area} pixels`);
      const shot = path.join(artifacts, 'lab-character.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
      await setRange(page, '#speed', 0);
      await waitText(page, '#state', 'Idle');
    }],
    ['the speed slider and the jump button change the state', async () => {
      await page.locator('body').click({ position: { x: 5, y: 5 } });
      for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight'); // 6 x 0.25 m/s
      check((await text(page, '#speed-val')) === '1.50 m/s', 'arrows set the speed: ' + await text(page, '#speed-val'));
      await waitText(page, '#state', 'Move');
      await page.waitForTimeout(600);
      await page.click('#jump');
      await waitText(page, '#state', 'Jump', 2000);
      await waitText(page, '#state', 'Move', 5000); // leaves by exit time, speed still 1.5
      await setRange(page, '#speed', 0);
      await waitText(page, '#state', 'Idle');
      await page.keyboard.press('Space');
      await waitText(page, '#state', 'Jump', 2000);
      const last = await text(page, '#last-jump');
      check(last.startsWith('Idle'), 'the last switch is from Idle: ' + last);
    }],
    ['switching mode changes the reported jump', async () => {
      const jumpWith = async (mode) => {
        await page.selectOption('#mode', { label: mode });
        await setRange(page, '#speed', 4);
        await waitText(page, '#state', 'Move', 5000);
        await page.waitForTimeout(800);
        await page.click('#jump');
        await waitText(page, '#state', 'Jump', 2000);
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
      await page.selectOption('#rate', '4');
      await page.waitForFunction(() => document.querySelector('#script-time').dataset.running === '0', null, { timeout: 20000 });
      const live = await page.locator('#worst-jump').getAttribute('data-cm');
      const cut = want.modes.find((m) => m.mode === 'cut');
      check(live === cut.worst_jump_cm.toFixed(2), `the animated script's worst jump ${live} cm equals the table's ${cut.worst_jump_cm}`);
      await page.selectOption('#rate', '1');
      // a second run with crossfade (transitions hatched on the band), at 1x, for the screenshot
      await page.selectOption('#mode', { label: 'crossfade' });
      await page.click('#script');
      await page.waitForFunction(() => parseFloat(document.querySelector('#script-time').textContent) > 11.0, null, { timeout: 20000 });
      const shot = path.join(artifacts, 'lab-state-machine.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
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
      await page.selectOption('#rate', '4');
      const live = async (setup, sel) => {
        await setup();
        await page.waitForTimeout(1400); // > 4 s of animation at 4x
        return parseFloat(await text(page, sel));
      };
      // right arm, local, over a run (the default)
      const armLocal = await live(async () => {
        await page.selectOption('#mask', '0'); await page.selectOption('#mask', '3');
      }, '#arm-max');
      close(armLocal, want.arm_angle_error_deg.local, 0.1, 'live arm angle, local space');
      const armLean = await live(async () => {
        await page.check('#on-lean'); await page.selectOption('#mask', '0'); await page.selectOption('#mask', '3');
      }, '#arm-max');
      close(armLean, want.arm_angle_error_deg.local_lean, 0.1, 'live arm angle, local space + lean');
      const armMesh = await live(async () => { await page.check('input[name=space][value="1"]'); }, '#arm-max');
      close(armMesh, want.arm_angle_error_deg.mesh_lean, 0.01, 'live arm angle, mesh space + lean');
      await page.uncheck('#on-lean');
      await page.check('input[name=space][value="0"]');
      const slideWhole = await live(async () => {
        await page.check('input[name=base][value="1"]'); await page.selectOption('#mask', '1');
      }, '#slide');
      close(slideWhole, want.foot_slide_cm_per_m.whole, 0.5, 'live foot sliding, whole-body wave over a walk');
      const slideUpper = await live(async () => { await page.selectOption('#mask', '2'); }, '#slide');
      close(slideUpper, want.foot_slide_cm_per_m.upper, 0.5, 'live foot sliding, upper-body wave over a walk');
      // the screenshot: right arm, local space, lean on, over a run
      await page.check('input[name=base][value="2"]');
      await page.check('#on-lean');
      await page.selectOption('#mask', '3');
      await page.selectOption('#rate', '1');
      await page.waitForTimeout(1500);
      const shot = path.join(artifacts, 'lab-layers.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
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
      const t0 = parseFloat(await text(page, '#as-time'));
      await page.waitForTimeout(500);
      const t1 = parseFloat(await text(page, '#as-time'));
      check(t1 !== t0, `the clip plays: time ${t0} -> ${t1}`);
      // a broken file is refused with the loader's message
      const bad = path.join(artifacts, 'broken.stance');
      const bytes = fs.readFileSync(file);
      bytes[bytes.length - 1] ^= 0xff;
      fs.writeFileSync(bad, bytes);
      await page.setInputFiles('#file', bad);
      await page.waitForFunction(() => document.querySelector('#as-error').textContent !== '', null, { timeout: 5000 });
      await page.setInputFiles('#file', file);
      await page.waitForFunction(() => document.querySelector('#as-error').textContent === '', null, { timeout: 5000 });
      await page.waitForTimeout(800);
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
      const walk = want.clips.findIndex((c) => c.name === 'Walk');
      check(walk >= 0, 'the fox has a Walk clip');
      await page.selectOption('#clip', String(walk));
      await page.waitForTimeout(700);
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
      await page.waitForTimeout(300);
      const st = JSON.parse(await page.evaluate(() => window.stanceLab.status()));
      check(st.joints === 43 && st.joints === want.joints.length, `joints: ${st.joints} (the CLI: ${want.joints.length})`);
      const tris = want.meshes.reduce((n, m) => n + m.triangles, 0);
      check(st.triangles > 0 && st.triangles === tris, `triangles: page ${st.triangles}, CLI ${tris}`);
      const m = await page.evaluate(() => window.stanceLab.machine());
      check(m && ['Idle', 'Move', 'Jump'].every((n) => m.states.includes(n)), 'the state machine view shows ' + JSON.stringify(m && m.states));
      check(m.current === 'Idle', 'it starts in ' + m.current);
      const a = await page.evaluate(() => window.stanceLab.sample());
      check(a.pixels > 50, `the robot's mesh covers ${a.pixels} pixels`);
      await page.click('#as-jump');
      await page.waitForFunction(() => window.stanceLab.machine().current === 'Jump', null, { timeout: 2000 });
      await page.waitForTimeout(100);
      const shot = path.join(artifacts, 'lab-robot.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
      await page.waitForFunction(() => window.stanceLab.machine().current === 'Idle', null, { timeout: 5000 });
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
      await setRange(page, '#as-speed', 3);
      await page.waitForFunction(() => window.stanceLab.machine().current === 'Move', null, { timeout: 3000 });
      await page.click('#as-jump');
      await page.waitForFunction(() => window.stanceLab.machine().current === 'Jump', null, { timeout: 2000 });
      // the wave layer: its weight slider moves the layer's weight
      await setRange(page, '#as-layers input[data-layer="1"]', 1);
      await page.waitForFunction(() => window.stanceLab.machine().layers[1] > 0.99, null, { timeout: 3000 });
      // unmapping walk and run leaves no lesson graph: the clips play one at a time
      await page.selectOption('#as-map-walk', '-1');
      await page.selectOption('#as-map-run', '-1');
      check((await text(page, '#as-error')).includes('walk or run'), 'error: ' + await text(page, '#as-error'));
      check((await text(page, '#as-view')) === 'playing one clip', await text(page, '#as-view'));
    }],
    ['the crowd: 100 characters, update timed in WebAssembly, frame rate', async () => {
      await page.click('#tab-cr');
      await page.waitForTimeout(1500);
      const st = JSON.parse(await page.evaluate(() => window.stanceLab.status()));
      check(st.characters === 100, 'characters: ' + st.characters);
      check(st.update_ms >= 0 && st.update_avg_ms > 0, 'update time: ' + JSON.stringify(st));
      // the crowd is drawn: the view has far more non-background pixels with the meshes than without
      const seen = await page.evaluate(() => window.stanceLab.sample(true));
      await page.click('#show-mesh');
      const ground = await page.evaluate(() => window.stanceLab.sample(true));
      await page.click('#show-mesh');
      console.log(`       crowd pixels: ${seen.pixels} of ${seen.area} not background, ${ground.pixels} without the meshes`);
      check(seen.pixels - ground.pixels > 0.03 * seen.area, `the crowd covers ${seen.pixels - ground.pixels} pixels of ${seen.area}`);
      // frames over 5 s, counted by the page
      const count = () => page.evaluate(() => new Promise((resolve) => {
        let n = 0; const t0 = performance.now();
        const tick = (t) => { n++; if (t - t0 < 5000) requestAnimationFrame(tick); else resolve(n * 1000 / (t - t0)); };
        requestAnimationFrame(tick);
      }));
      // up to 3 windows of 5 s: on a shared machine another job can take a core for
      // a window; the view holds the rate when one whole window does
      const want = Number(process.env.LAB_CROWD_MIN_FPS || 55);
      const windows = [];
      while (windows.length < 3 && !(windows.length && Math.max(...windows) >= want)) windows.push(await count());
      const fps = Math.max(...windows);
      const after = JSON.parse(await page.evaluate(() => window.stanceLab.status()));
      const shot = path.join(artifacts, 'lab-crowd.png');
      await page.screenshot({ path: shot, fullPage: true });
      shots.push(shot);
      // what limits it: the same crowd updating, its meshes not drawn
      await page.click('#show-mesh');
      const bare = await count();
      await page.click('#show-mesh');
      const gpu = await page.evaluate(() => window.stanceLab.renderer());
      console.log(`       crowd: ${fps.toFixed(1)} fps over 5 s (windows: ${windows.map((f) => f.toFixed(1)).join(', ')}; ${bare.toFixed(1)} fps with the meshes not drawn), ` +
        `update + skinning ${after.update_avg_ms} ms a frame in wasm, ${after.triangles} triangles, renderer ${gpu}, ${os.loadavg()[0].toFixed(1)} load`);
      // LAB_CROWD_MIN_FPS lowers the bar on purpose (say, on a loaded machine without a GPU); the default is the issue's
      check(fps >= want, `the crowd holds ${fps.toFixed(1)} fps over 5 s (wanted >= ${want}; ${bare.toFixed(1)} without drawing the meshes)`);
    }],
    ['pause and step one frame', async () => {
      await page.click('#tab-sm');
      await page.click('#pause');
      const a = await text(page, '#speed-seen');
      await setRange(page, '#speed', 3);
      await page.waitForTimeout(300);
      check((await text(page, '#speed-seen')) === a, 'paused: nothing moves');
      await page.click('#step');
      await page.waitForTimeout(100);
      check((await text(page, '#speed-seen')) !== a, 'a step moves one frame');
      await page.click('#pause');
    }],
    ['no console error during the whole session', async () => {
      check(consoleErrors.length === 0, 'console errors: ' + consoleErrors.join(' | '));
    }],
  ];

  for (const [name, fn] of tests) {
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
  await context.close();
  server.close();
  fs.rmSync(profile, { recursive: true, force: true });
  for (const s of shots) console.log('screenshot: ' + path.relative(root, s));
  console.log(`${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ''));
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); console.log('0 passed, 1 failed'); process.exit(1); });
