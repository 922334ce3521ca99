// scripts/lab_crowd_fps.mjs - the lab's crowd frame rate, measured the way
// tests/lab/lab.test.mjs does (Debian chromium headless, WebGL2 through
// SwiftShader, frames counted with requestAnimationFrame over 5 s), RUNS times,
// each in a fresh browser, with the CPU time the browser's processes spent
// per frame (read from /proc): "gpu" is SwiftShader drawing and compositing,
// "page" the renderer (wasm update, JavaScript, DOM). `make lab-crowd-fps`;
// LAB_DIR=another/build-lab compares another build (say, main's) the same way.
// Prints one line a run and the median.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const labDir = path.resolve(root, process.env.LAB_DIR || 'build-lab');
const runs = Math.max(1, Number(process.env.RUNS || 3));
const seconds = 5;
const require = createRequire(path.join(root, 'lab', 'package.json'));
const { chromium } = require('playwright-core');
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm' };

if (!fs.existsSync(path.join(labDir, 'index.html'))) {
  console.error(`lab_crowd_fps: ${labDir}/index.html is missing (make lab)`);
  process.exit(1);
}
const server = http.createServer((req, res) => {
  const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const file = path.join(labDir, url === '/' ? 'index.html' : url);
  if (!file.startsWith(labDir + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'Content-Type': MIME[path.extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store' });
  fs.createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

// CPU milliseconds so far of the browser's processes whose command line names the profile, by process type
const TICK_MS = 10; // USER_HZ = 100 on Linux
function cpuByType(profile) {
  const out = {};
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let cmd, stat;
    try { cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'); stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { continue; }
    if (!cmd.includes(profile)) continue;
    const type = (/--type=([a-z-]+)/.exec(cmd) || [null, 'browser'])[1];
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the state on: utime is the 12th, stime the 13th
    out[type] = (out[type] || 0) + (Number(f[11]) + Number(f[12])) * TICK_MS;
  }
  return out;
}

const results = [];
for (let r = 0; r < runs; r++) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'stance-crowd-fps-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, viewport: { width: 1440, height: 1000 },
    args: ['--no-sandbox', '--use-gl=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = context.pages()[0] || await context.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
    await page.click('#tab-cr');
    await page.waitForTimeout(1500);
    const c0 = cpuByType(profile);
    const { frames, fps } = await page.evaluate((s) => new Promise((resolve) => {
      let n = 0; const t0 = performance.now();
      const tick = (t) => { n++; if (t - t0 < s * 1000) requestAnimationFrame(tick); else resolve({ frames: n, fps: n * 1000 / (t - t0) }); };
      requestAnimationFrame(tick);
    }), seconds);
    const c1 = cpuByType(profile);
    const per = (k) => ((c1[k] || 0) - (c0[k] || 0)) / frames;
    const st = JSON.parse(await page.evaluate(() => window.stanceLab.status()));
    results.push(fps);
    console.log(`run ${r + 1}: ${fps.toFixed(1)} fps over ${seconds} s, CPU per frame: gpu ${per('gpu-process').toFixed(1)} ms, ` +
      `page ${per('renderer').toFixed(1)} ms; ${st.triangles} triangles, update ${st.update_avg_ms} ms in wasm; load ${os.loadavg()[0].toFixed(1)}`);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}
server.close();
const sorted = [...results].sort((a, b) => a - b), mid = sorted.length >> 1;
const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
console.log(`crowd: median ${median.toFixed(1)} fps of ${runs} runs (${sorted[0].toFixed(1)} to ${sorted[sorted.length - 1].toFixed(1)}), ${labDir}`);
