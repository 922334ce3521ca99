// tests/lab/browser.mjs - what the lab's browser tests (lab.test.mjs) and its
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
export function canvasProblem(s) {
  if (s.glError) return `readPixels failed with GL error 0x${s.glError.toString(16)} (0x9242: the context is lost)`;
  if (s.zero === s.area) return `the canvas read back as zero bytes (${s.area} pixels): nothing was drawn into it`;
  return '';
}

export function median(a) {
  const s = [...a].sort((x, y) => x - y), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
