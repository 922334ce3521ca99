// tests/lab/looks.test.mjs - browser tests of the looks a .stance carries (docs/stance-format.md,
// version 6: the texture section "txtr" and the vertex colour section "vcol"):
// - a glTF quad written here from the specification with COLOR_0 (red at its foot, blue at its
//   top), imported by the CLI (STANCE_CLI): `stance info --json` lists its colours, and loaded in
//   the page it is drawn red and blue (none with "textures and vertex colours" unticked);
// - the editor's "Save .stance" on that file and on the Fox imported by the CLI (a texture)
//   writes the sections it loaded: the CLI lists them, and their bytes are the loaded file's.
// Run by `make lab-test` (LAB_DIR, STANCE_CLI); data from ../shared/data (STANCE_DATA).
// Screenshots go to build-lab/artifacts/looks-*.png (not committed). No timing bar.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cli, artifacts, DATA, check, labDir, HANG_MS, browserPath, openLab, runTests, requireWebgl } from './browser.mjs';
import { quadGltf, glb, colourCount } from './gltf_write.mjs';

const FOX = path.join(DATA, 'fox', 'Fox.glb');

const text = (page, sel) => page.locator(sel).textContent();
const info = (file) => JSON.parse(execFileSync(cli, ['info', file, '--json'], { encoding: 'utf8' }));

// the body of the section with this tag (walking the section heads), or null
function section(b, tag) {
  for (let at = 32; at + 16 <= b.length; at += 16 + Number(b.readBigUInt64LE(at + 8)))
    if (b.toString('latin1', at, at + 4) === tag) return b.subarray(at + 16, at + 16 + Number(b.readBigUInt64LE(at + 8)));
  return null;
}

async function loadStance(page, file) {
  await page.evaluate(() => { document.querySelector('#as-file').textContent = ''; });
  await page.setInputFiles('#file', file);
  await page.waitForFunction((f) => document.querySelector('#as-file').textContent === f || document.querySelector('#as-error').textContent !== '',
    path.basename(file), { timeout: HANG_MS });
  check((await text(page, '#as-error')) === '', 'error: ' + await text(page, '#as-error'));
}

// The editor on the loaded file: a graph of one state playing `clip`, typed as JSON text and
// run, then "Save .stance" clicked; the downloaded bytes.
async function saveFromPage(page, clip, out) {
  if (!(await page.evaluate(() => document.querySelector('#editor').open))) await page.click('#editor > summary');
  await page.click('#ed-new');
  const model = await page.evaluate(() => window.StanceEditor.model());
  model.machines = [{ name: 'Base', states: [{ name: 'Play', clip }], transitions: [] }];
  if (!(await page.evaluate(() => document.querySelector('#ed-text').open))) await page.click('#ed-text > summary');
  await page.fill('#ed-json', JSON.stringify(model, null, 1));
  await page.click('#ed-run-text');
  const e = await page.evaluate(() => window.StanceEditor.error());
  check(e === '', 'the editor: ' + e);
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#ed-save-stance')]);
  await dl.saveAs(out);
  return fs.readFileSync(out);
}

async function main() {
  const { server, browser, page, consoleErrors } = await openLab('looks', [[labDir + '/index.html', 'build-lab (make lab)'], [cli, 'the CLI (make build)'], [browserPath, 'chromium (scripts/lab_deps.sh)']], 'stance-lab-looks-');
  fs.mkdirSync(artifacts, { recursive: true });
  await requireWebgl(page, browser, server);
  await page.click('#tab-as');
  const coloredGlb = path.join(artifacts, 'looks-colored.glb'), colored = path.join(artifacts, 'looks-colored.stance');
  const foxStance = path.join(artifacts, 'looks-fox.stance');

  const tests = [
    ['a CLI-made file with COLOR_0: stance info lists the colours, the page draws them', async () => {
      fs.writeFileSync(coloredGlb, glb(quadGltf({ colors: true })));
      const r = spawnSync(cli, ['import', coloredGlb, '-o', colored], { encoding: 'utf8' });
      check(r.status === 0, 'stance import: ' + r.stderr);
      check(r.stdout.includes("1 mesh' vertex colours kept"), 'stance import says: ' + r.stdout);
      const b = fs.readFileSync(colored), i = info(colored);
      check(b.readUInt32LE(8) === 6, 'version ' + b.readUInt32LE(8));
      check(JSON.stringify(i.vertex_colors) === '{"meshes":[4]}' && !i.textures, 'stance info: ' + JSON.stringify(i.vertex_colors));
      // the colours as written (floats 1 0 0 1 and 0 0 1 1) are 65535 and 0 in the section
      const v = section(b, 'vcol'), u16 = (k) => v.readUInt16LE(8 + 2 * k);
      check(v.readUInt32LE(0) === 1 && v.readUInt32LE(4) === 4 && v.length === 8 + 32, 'vcol section of ' + v.length + ' bytes');
      const want = [65535, 0, 0, 65535, 65535, 0, 0, 65535, 0, 0, 65535, 65535, 0, 0, 65535, 65535];
      check(want.every((w, k) => u16(k) === w), 'colours ' + Array.from({ length: 16 }, (_, k) => u16(k)).join(' '));
      await loadStance(page, colored);
      check(await page.evaluate(() => window.StanceImport.current === null), 'a loaded .stance, not an in-page import');
      const c = await colourCount(page, ['r > g + 60 && r > b + 60', 'b > g + 60 && b > r + 60']);
      console.log(`       ${c.on.drawn} pixels: ${c.on.n[0]} red, ${c.on.n[1]} blue; without: ${c.off.n[0]} red, ${c.off.n[1]} blue`);
      check(c.on.n[0] > 0.1 * c.on.drawn && c.on.n[1] > 0.1 * c.on.drawn, 'vertex colours: ' + JSON.stringify(c.on));
      check(c.off.n[0] === 0 && c.off.n[1] === 0, 'without: ' + JSON.stringify(c.off));
      await page.screenshot({ path: path.join(artifacts, 'looks-colored.png') });
    }],
    ['"Save .stance" of the page writes the vertex colours it loaded', async () => {
      check(fs.existsSync(colored), 'no coloured .stance');
      const saved = await saveFromPage(page, 'Turn', path.join(artifacts, 'looks-colored-saved.stance'));
      const i = info(path.join(artifacts, 'looks-colored-saved.stance'));
      check(JSON.stringify(i.vertex_colors) === '{"meshes":[4]}', 'stance info of the saved file: ' + JSON.stringify(i.vertex_colors));
      check(section(saved, 'vcol').equals(section(fs.readFileSync(colored), 'vcol')), 'the saved colours differ from the loaded ones');
      check(section(saved, 'GRPH') !== null && saved.readUInt32LE(8) === 6, 'a compiled graph in a version 6 file');
      const gc = spawnSync(cli, ['graph-check', path.join(artifacts, 'looks-colored-saved.stance')], { encoding: 'utf8' });
      check(gc.status === 0, 'graph-check: ' + gc.stdout + gc.stderr);
    }],
    ['"Save .stance" on the Fox the CLI imported keeps its texture', async () => {
      if (!fs.existsSync(FOX)) return 'skip: ' + FOX + ' is missing (set STANCE_DATA)';
      const r = spawnSync(cli, ['import', FOX, '-o', foxStance], { encoding: 'utf8' });
      check(r.status === 0, 'stance import: ' + r.stderr);
      await loadStance(page, foxStance);
      const out = path.join(artifacts, 'looks-fox-saved.stance');
      const saved = await saveFromPage(page, 'Survey', out);
      const a = info(foxStance), b = info(out);
      check(b.textures && JSON.stringify(b.textures) === JSON.stringify(a.textures), 'stance info: ' + JSON.stringify(b.textures) + ' / ' + JSON.stringify(a.textures));
      check(section(saved, 'txtr').equals(section(fs.readFileSync(foxStance), 'txtr')), 'the saved texture section differs from the loaded one');
      check(b.clips.length === 1 && b.clips[0].name === 'Survey', 'clips: ' + b.clips.map((c) => c.name));
      console.log(`       saved ${saved.length} bytes: ${b.textures.images[0].bytes} bytes of PNG, clip ${b.clips[0].name}, a graph`);
      check(consoleErrors.length === 0, 'console errors: ' + consoleErrors.join(' | '));
    }],
  ];
  await runTests(tests, { browser, server, lines: 3 });
}

main().catch((e) => { console.error(e); console.log('0 passed, 1 failed'); process.exit(1); });
