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
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
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
      const fps = Number(await text(page, '#fps'));
      check(fps >= 30, `the page runs at ${fps} fps`);
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
