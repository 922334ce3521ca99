// scripts/lab_bench.mjs - the lab's frame rates (`make lab-bench`; not part of
// `make check`, whose tests depend on no timing). RUNS times (default 3), each
// in a fresh headless chromium (tests/lab/browser.mjs: WebGL2 through
// SwiftShader), frames counted with requestAnimationFrame over 5 s: the page
// as it opens (the state-machine view, one character), then the crowd view
// (100 characters), with the CPU time the browser's processes spent per crowd
// frame (read from /proc): "gpu" is SwiftShader drawing and compositing,
// "page" the renderer (wasm update, JavaScript, DOM). Prints one line a run,
// then the medians with the CPU's name and the load average before and after.
// LAB_DIR=another/build-lab measures another build (say, main's) the same way.
import fs from 'node:fs';
import os from 'node:os';
import { labDir, serve, launch, webglProblem, median } from '../tests/lab/browser.mjs';

const runs = Math.max(1, Number(process.env.RUNS || 3));
const seconds = 5;

if (!fs.existsSync(labDir + '/index.html')) {
  console.error(`lab_bench: ${labDir}/index.html is missing (make lab)`);
  process.exit(1);
}
const cpuName = (/^model name\s*:\s*(.*)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8')) || [null, 'unknown CPU'])[1];
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const server = await serve(labDir);

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
// frames a second over s seconds, counted by the page
const fpsOver = (page, s) => page.evaluate((secs) => new Promise((resolve) => {
  let n = 0; const t0 = performance.now();
  const tick = (t) => { n++; if (t - t0 < secs * 1000) requestAnimationFrame(tick); else resolve({ frames: n, fps: n * 1000 / (t - t0) }); };
  requestAnimationFrame(tick);
}), s);

const loadBefore = load();
const pageFps = [], crowdFps = [], gpuMs = [], pageMs = [];
for (let r = 0; r < runs; r++) {
  const b = await launch('stance-lab-bench-');
  try {
    const page = b.page;
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForSelector('body[data-ready]', { timeout: 60000 });
    const bad = await webglProblem(page);
    if (bad) { console.log(`run ${r + 1}: no measure, ${bad.why}`); continue; }
    await page.waitForTimeout(1000); // the first frames compile shaders and upload the mesh
    const one = await fpsOver(page, seconds);
    await page.click('#tab-cr');
    await page.waitForTimeout(1500);
    const c0 = cpuByType(b.profile);
    const crowd = await fpsOver(page, seconds);
    const c1 = cpuByType(b.profile);
    const per = (k) => ((c1[k] || 0) - (c0[k] || 0)) / crowd.frames;
    const st = JSON.parse(await page.evaluate(() => window.stanceLab.status()));
    pageFps.push(one.fps), crowdFps.push(crowd.fps), gpuMs.push(per('gpu-process')), pageMs.push(per('renderer'));
    console.log(`run ${r + 1}: page ${one.fps.toFixed(1)} fps, crowd ${crowd.fps.toFixed(1)} fps over ${seconds} s; crowd CPU per frame: ` +
      `gpu ${per('gpu-process').toFixed(1)} ms, page ${per('renderer').toFixed(1)} ms; ${st.triangles} triangles, ` +
      `update ${st.update_avg_ms} ms in wasm; load ${os.loadavg()[0].toFixed(2)}`);
  } finally {
    await b.close();
  }
}
server.close();
if (!crowdFps.length) { console.log('lab-bench: no run measured'); process.exit(1); }
const range = (a) => `${Math.min(...a).toFixed(1)} to ${Math.max(...a).toFixed(1)}`;
console.log(`cpu: ${cpuName}, ${os.cpus().length} logical cores; load average (1, 5, 15 min) ${loadBefore} before, ${load()} after`);
console.log(`page (one character): median ${median(pageFps).toFixed(1)} fps of ${pageFps.length} runs (${range(pageFps)})`);
console.log(`crowd (100 characters): median ${median(crowdFps).toFixed(1)} fps of ${crowdFps.length} runs (${range(crowdFps)}); ` +
  `CPU per frame medians: gpu ${median(gpuMs).toFixed(1)} ms, page ${median(pageMs).toFixed(1)} ms; ${labDir}`);
