// tests/lab/browser.mjs - what the lab's browser tests (tests/lab/*.test.mjs) and its
// benchmark (scripts/lab_bench.mjs) share: a static server for build-lab/,
// Debian's /usr/bin/chromium started headless through npm playwright-core
// (lab/node_modules, no browser download) with WebGL2 through SwiftShader,
// and the check that the page got a working WebGL2 context that draws.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const labDir = path.resolve(root, process.env.LAB_DIR || 'build-lab');
export const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
// The one hang guard of every lab test's wait (page load, an import, a state the page reaches): it
// only tells a hung page from a slow one, so it sits far above any run seen, 15 s imports at load 36
// and a 30 s wait outrun at load 32 included. A wait's outcome never depends on the machine's load.
export const HANG_MS = 600000;
// what every lab test names: the CLI whose figures it compares with the page's (STANCE_CLI, as the
// Makefile sets it), the folder for its screenshots and files, the shared data (STANCE_DATA, else
// ../shared/data beside the repository) and its check
export const cli = path.resolve(root, process.env.STANCE_CLI || 'build/stance');
export const artifacts = path.join(labDir, 'artifacts');
export const DATA = process.env.STANCE_DATA || path.join(root, '..', 'shared', 'data');
export function check(cond, msg) { if (!cond) throw new Error(msg); }

const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.png': 'image/png', '.json': 'application/json' };

// serves dir on 127.0.0.1 (port LAB_TEST_PORT, or a free one); resolves to the server
export function serve(dir) {
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

// a fresh headless chromium on its own profile: { context, page, profile, close() }
export async function launch(prefix = 'stance-lab-chromium-') {
  const { chromium } = createRequire(path.join(root, 'lab', 'package.json'))('playwright-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: browserPath, headless: true, viewport: { width: 1440, height: 1000 },
    // WebGL2 without a GPU: SwiftShader. No GPU watchdog: on a loaded machine SwiftShader's
    // frames can take long enough for it to kill the GPU process, which loses the context.
    // LAB_CHROMIUM_ARGS adds more (say --disable-webgl, to see how the tests report a page without WebGL2)
    args: ['--no-sandbox', '--use-gl=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--disable-gpu-watchdog',
      '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ...(process.env.LAB_CHROMIUM_ARGS || '').split(/\s+/).filter(Boolean)],
  });
  const page = context.pages()[0] || await context.newPage();
  context.setDefaultTimeout(HANG_MS); // clicks, key presses and waits without their own: the same hang guard
  return {
    context, page, profile,
    async close() { await context.close(); fs.rmSync(profile, { recursive: true, force: true }); },
  };
}

// after the page loaded (body[data-ready] set): '' when it has a WebGL2 context that is not
// lost and its view drew (the whole canvas read back holds the clear colour and something
// else); else why not, with `kind` 'context' (no usable context: the browser's or the GPU
// process' fault, not the lab's) or 'drawing' (a context, but nothing drawn)
export async function webglProblem(page) {
  const w = await page.evaluate(() => window.stanceLab && window.stanceLab.webgl());
  if (!w) return { kind: 'context', why: 'the page has no stanceLab (it did not start)' };
  if (!w.context) return { kind: 'context', why: 'getContext("webgl2") gave none: ' + (w.error || 'no reason given') };
  if (w.lost) return { kind: 'context', why: `the context is lost (${w.losses} loss${w.losses === 1 ? '' : 'es'}, ${w.restored} restored)` };
  if (!/^WebGL 2/.test(w.version)) return { kind: 'context', why: 'the context is ' + (w.version || 'of no version') };
  const s = await page.evaluate(() => window.stanceLab.sample(true, true));
  const read = canvasProblem(s);
  if (read) return { kind: 'context', why: read };
  if (!s.clear || !s.pixels)
    return { kind: 'drawing', why: `the view drew nothing: ${s.pixels} pixels drawn, ${s.clear} background, of ${s.area} (${w.renderer})` };
  return null;
}

// a stanceLab.sample() result that read nothing back (a lost context reads zero bytes and sets an error)
// the pixel tests' start: when WebGL2 cannot draw, say why (and whose fault it is not),
// close the page and the server, and fail without running a test
export async function requireWebgl(page, browser, server) {
  const problem = await webglProblem(page);
  if (!problem) return;
  console.log(`FAIL - WebGL2: ${problem.why} (${problem.kind === 'context' ? 'not a lab fault' : 'the lab draws nothing'}); no test ran`);
  await browser.close(); server.close();
  console.log('0 passed, 1 failed');
  process.exit(1);
}
export function canvasProblem(s) {
  if (s.glError) return `readPixels failed with GL error 0x${s.glError.toString(16)} (0x9242: the context is lost)`;
  if (s.zero === s.area) return `the canvas read back as zero bytes (${s.area} pixels): nothing was drawn into it`;
  return '';
}

export function median(a) {
  const s = [...a].sort((x, y) => x - y), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// In the page: the character's box (stanceLab.sample) with and without textures, paused.
// A pixel counts as coloured when its channels differ by more than 40 (the clay is grey),
// and as the texture's when its chromaticity (r:g:b) is one the texture holds (bins of
// 1/25; lighting scales a texel's channels alike, so it keeps them). The texture: image
// `image` of the in-page import's look (from 'current') or of the loaded file's texture
// section (from 'file'), lab_import.js.
export async function textureCheck(page, image, from = 'current') {
  return page.evaluate(async ([img, src]) => {
    const lab = window.stanceLab, look = window.StanceImport[src];
    const bmp = look.textures[img];
    const c = document.createElement('canvas'); c.width = bmp.width; c.height = bmp.height;
    const g = c.getContext('2d'); g.drawImage(bmp, 0, 0);
    const t = g.getImageData(0, 0, c.width, c.height).data;
    const key = (r, gg, b) => { const s = r + gg + b || 1; return Math.round(25 * r / s) + ',' + Math.round(25 * gg / s); };
    const bins = new Set();
    for (let i = 0; i < t.length; i += 4) {
      if (Math.max(t[i], t[i + 1], t[i + 2]) - Math.min(t[i], t[i + 1], t[i + 2]) <= 40) continue;
      const r = t[i], gg = t[i + 1], b = t[i + 2];
      for (const d of [-1, 0, 1]) bins.add(key(r, gg, b)), bins.add(key(Math.max(0, r + d * 8), gg, b)); // neighbours: rounding
    }
    const box = document.querySelector('#looks');
    await lab.pause(true);
    // the time controls' blue cross on the joint plotted is no colour of the file's
    if (window.StanceTime) window.StanceTime.cross = false;
    const count = async () => {
      const s = await lab.sample(false, false);
      let drawn = 0, coloured = 0, match = 0;
      for (let i = 0; i < s.data.length; i += 4) {
        const r = s.data[i], gg = s.data[i + 1], b = s.data[i + 2];
        if (Math.abs(r - 240) + Math.abs(gg - 242) + Math.abs(b - 245) <= 40) continue; // the background
        drawn++;
        if (Math.max(r, gg, b) - Math.min(r, gg, b) <= 40) continue;
        coloured++;
        if (bins.has(key(r, gg, b))) match++;
      }
      return { drawn, coloured, match, box: s.box };
    };
    const on = await count();
    box.click();
    await lab.frame();
    const off = await count();
    box.click();
    await lab.frame();
    return { on, off, bins: bins.size, size: [bmp.width, bmp.height] };
  }, [image, from]);
}

// A test file's start: when a required [path, what] is missing, says so and exits ("0 passed, 1
// failed"); otherwise serves the lab, opens it in a fresh chromium (profile prefix) and waits for
// body[data-ready]: { server, url, browser, page, consoleErrors } (the page's console errors and
// uncaught exceptions, collected from the start).
export async function openLab(test, required, prefix) {
  for (const [p, what] of required)
    if (!fs.existsSync(p)) { console.error(`${test} test: ${p} is missing: ${what}`); console.log('0 passed, 1 failed'); process.exit(1); }
  const server = await serve(labDir);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await launch(prefix);
  const page = browser.page;
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('body[data-ready]', { timeout: HANG_MS });
  return { server, url, browser, page, consoleErrors };
}

// Runs a test file's [name, fn] pairs in order. A fn that returns a string starting "skip" is
// skipped; one that throws fails, printing the first `lines` lines of its message, then
// onFail(passed, failed) runs (a screenshot, say). Then closes the browser and the server, prints
// "P passed, F failed[, S skipped]" and exits, 1 when any failed.
export async function runTests(tests, { browser, server, lines = 5, onFail = null }) {
  let passed = 0, failed = 0, skipped = 0;
  for (const [name, fn] of tests) {
    try {
      const r = await fn();
      if (typeof r === 'string' && r.startsWith('skip')) { skipped++; console.log(`SKIP - ${name}: ${r}`); } else { passed++; console.log(`ok   - ${name}`); }
    } catch (e) {
      failed++;
      console.log(`FAIL - ${name}: ${e.message.split('\n').slice(0, lines).join('\n       ')}`);
      if (onFail) await onFail(passed, failed).catch(() => {});
    }
  }
  await browser.close();
  server.close();
  console.log(`${passed} passed, ${failed} failed${skipped ? ', ' + skipped + ' skipped' : ''}`);
  process.exit(failed ? 1 : 0);
}

// The farthest joint, in metres, between the pose the time controls recorded for view `view` at
// `back` frames back and the ghost's (the same switch replayed under the ghost's mode) at that frame.
export function ghostDistance(page, view, back) {
  return page.evaluate(([v, b]) => {
    const L = window.Module, n = L._lab_joint_count(v);
    const a = new Float32Array(L.HEAPF32.buffer, L._lab_time_pose(v, b), 3 * n).slice();
    const g = new Float32Array(L.HEAPF32.buffer, L._lab_time_ghost_pose(v, b), 3 * n).slice();
    let m = 0;
    for (let j = 0; j < n; j++) m = Math.max(m, Math.hypot(a[3 * j] - g[3 * j], a[3 * j + 1] - g[3 * j + 1], a[3 * j + 2] - g[3 * j + 2]));
    return m;
  }, [view, back]);
}
