// tests/lab/import.test.mjs - browser tests of the lab's in-page import (lab/lab_import.*):
// glTF files chosen in the file box or dropped on the view are imported in WebAssembly by
// `stance import`'s code; the result must be the CLI's (STANCE_CLI): the same .stance bytes,
// and the joints, clips and triangles of `stance info --json`. The Fox's base-colour texture
// and a test-written glTF's vertex colours must be drawn; FBX and BVH get the one-line
// command. Run by `make lab-test` (LAB_DIR, STANCE_CLI); data from ../shared/data
// (STANCE_DATA). Screenshots go to build-lab/artifacts/import-*.png (not committed).
// No timing bar: waits only catch hangs. Ends with "N passed, N failed".
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { cli, artifacts, DATA, check, labDir, HANG_MS, browserPath, openLab, runTests, requireWebgl, textureCheck } from './browser.mjs';
import { quadGltf, glb, png, colourCount } from './gltf_write.mjs';

const FOX = path.join(DATA, 'fox', 'Fox.glb'), ROBOT = path.join(DATA, 'robot_expressive', 'RobotExpressive.glb');
const INTERP = path.join(DATA, 'interpolation_test', 'interpolation_test.gltf');
const BVH = '/usr/share/assimp/models/BVH/01_01.bvh';

const text = (page, sel) => page.locator(sel).textContent();
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');

// the CLI's import of a file with no option (the page's defaults): { bytes, info }
function cliImport(file, extra = []) {
  const out = path.join(artifacts, 'import-cli-' + path.basename(file).replace(/\.[^.]*$/, '') + '.stance');
  const r = spawnSync(cli, ['import', file, '-o', out, ...extra], { encoding: 'utf8' });
  check(r.status === 0, 'stance import ' + file + ': ' + r.stderr);
  return { bytes: fs.readFileSync(out), info: JSON.parse(execFileSync(cli, ['info', out, '--json'], { encoding: 'utf8' })), stderr: r.stderr };
}
const triangles = (info) => (info.meshes || []).reduce((n, m) => n + m.triangles, 0);

// files dropped on the view together: a real drop event whose DataTransfer holds them
async function drop(page, files) {
  const list = files.map((f) => ({ name: f.name, b64: Buffer.from(f.bytes).toString('base64') }));
  const dt = await page.evaluateHandle((l) => {
    const d = new DataTransfer();
    for (const f of l) d.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name));
    return d;
  }, list);
  await page.locator('#view').dispatchEvent('drop', { dataTransfer: dt });
}
// after a choice or a drop: the imported file's name in the panel, or the error line
async function settled(page, file) {
  await page.waitForFunction((f) => document.querySelector('#as-file').textContent === f || document.querySelector('#as-error').textContent !== '',
    file, { timeout: HANG_MS });
  check((await text(page, '#as-error')) === '', 'error: ' + await text(page, '#as-error'));
}
// the page's import against the CLI's: bytes, joints, clips, triangles
async function sameAsCli(page, file, stanceName, extra = []) {
  const want = cliImport(file, extra);
  const got = await page.evaluate(() => ({ bytes: Array.from(window.StanceImport.last.bytes), name: window.StanceImport.last.name,
    status: JSON.parse(window.stanceLab.status()) }));
  const bytes = Buffer.from(got.bytes);
  check(sha(bytes) === sha(want.bytes), `${stanceName}: the page wrote ${bytes.length} bytes (sha ${sha(bytes).slice(0, 12)}), ` +
    `the CLI ${want.bytes.length} (sha ${sha(want.bytes).slice(0, 12)})`);
  const joints = Number(await text(page, '#as-joints')), tris = Number(await text(page, '#as-triangles'));
  const clips = Number((await text(page, '#as-clips')).split(' ')[0]);
  check(joints === want.info.joints.length, `joints ${joints}, CLI ${want.info.joints.length}`);
  check(clips === want.info.clips.length, `clips ${clips}, CLI ${want.info.clips.length}`);
  check(tris === triangles(want.info), `triangles ${tris}, CLI ${triangles(want.info)}`);
  const names = await page.evaluate(() => Array.from(document.querySelectorAll('#clip option')).map((o) => o.textContent.replace(/ \([\d.]+ s\)$/, '')));
  check(JSON.stringify(names) === JSON.stringify(want.info.clips.map((c) => c.name)), 'clip names ' + names);
  return { want, bytes, ms: await page.evaluate(() => Math.round(window.StanceImport.last.ms)) };
}

async function main() {
  const { server, browser, page, consoleErrors } = await openLab('import', [[labDir + '/index.html', 'build-lab (make lab)'], [cli, 'the CLI (make build)'], [browserPath, 'chromium (scripts/lab_deps.sh)']], 'stance-lab-import-');
  fs.mkdirSync(artifacts, { recursive: true });
  await requireWebgl(page, browser, server);
  await page.click('#tab-as');

  const tests = [
    ['Fox.glb chosen in the file box: imported in the page, the CLI\'s bytes, joints, clips, triangles; its texture drawn', async () => {
      if (!fs.existsSync(FOX)) return 'skip: ' + FOX + ' is missing (set STANCE_DATA)';
      await page.setInputFiles('#file', FOX);
      await settled(page, 'Fox.stance');
      const { want, ms } = await sameAsCli(page, FOX, 'Fox.stance');
      check((await text(page, '#as-import')).includes('imported in the page from Fox.glb'), 'line: ' + await text(page, '#as-import'));
      const look = await page.evaluate(() => window.StanceImport.current.prims.map((p) => ({ name: p.name, image: p.image })));
      check(look.length === 1 && look[0].image === 0, 'look: ' + JSON.stringify(look));
      // play the Survey clip a little, the camera framed on it
      await page.evaluate(() => window.stanceLab.step(30));
      const t = await textureCheck(page, 0);
      console.log(`       ${want.info.joints.length} joints, ${want.info.clips.length} clips, ${triangles(want.info)} triangles (imported in ${ms} ms); texture ${t.size.join('x')}: ` +
        `${t.on.coloured} of ${t.on.drawn} pixels in the box coloured (${t.on.match} of the texture's colours, ${t.bins} bins of 351), ` +
        `${t.off.coloured} without textures`);
      check(t.on.drawn > 2000, 'the Fox drew ' + t.on.drawn + ' pixels');
      check(t.on.coloured > 0.5 * t.on.drawn, `textured: ${t.on.coloured} of ${t.on.drawn} pixels coloured`);
      check(t.on.match > 0.9 * t.on.coloured, `textured: ${t.on.match} of ${t.on.coloured} coloured pixels have the texture's colours`);
      check(t.off.coloured < 0.01 * t.off.drawn, `without textures: ${t.off.coloured} of ${t.off.drawn} pixels coloured (clay is grey)`);
      await page.screenshot({ path: path.join(artifacts, 'import-fox.png') });
      // in metres: the page's import scale is stance import's --scale
      await page.fill('#import-scale', '0.01');
      await page.setInputFiles('#file', []);
      await page.setInputFiles('#file', FOX);
      await page.waitForFunction(() => document.querySelector('#as-import').textContent.includes('--scale 0.01'), null, { timeout: HANG_MS });
      await sameAsCli(page, FOX, 'Fox.stance (--scale 0.01)', ['--scale', '0.01']);
      check((await text(page, '#as-height')).startsWith('0.6'), 'height ' + await text(page, '#as-height'));
      await page.fill('#import-scale', '1');
    }],
    ['RobotExpressive.glb dropped on the view: imported in the page, the CLI\'s bytes, joints, clips, triangles', async () => {
      if (!fs.existsSync(ROBOT)) return 'skip: ' + ROBOT + ' is missing (set STANCE_DATA)';
      await drop(page, [{ name: 'RobotExpressive.glb', bytes: fs.readFileSync(ROBOT) }]);
      await settled(page, 'RobotExpressive.stance');
      const { want, ms } = await sameAsCli(page, ROBOT, 'RobotExpressive.stance');
      check((await text(page, '#as-kind')).startsWith('the lesson'), 'graph: ' + await text(page, '#as-kind'));
      // stance import's warnings (morph targets ignored), the same lines as the CLI's
      const warned = await page.evaluate(() => window.StanceImport.last.warnings);
      const cliWarned = want.stderr.split('\n').filter(Boolean).map((l) => l.split(ROBOT).join('RobotExpressive.glb'));
      check(warned.length === 17 && JSON.stringify(warned) === JSON.stringify(cliWarned), `warnings: ${warned.length} in the page, ${cliWarned.length} from the CLI`);
      check((await text(page, '#as-import')).includes('17 warnings'), 'line: ' + await text(page, '#as-import'));
      const look = await page.evaluate(() => window.StanceImport.current.prims);
      check(look.length >= want.info.meshes.length && look.every((p) => p.image < 0),
        'RobotExpressive has no textures: ' + JSON.stringify(look.map((p) => [p.name, p.image])));
      await page.evaluate(() => window.stanceLab.step(20));
      await page.screenshot({ path: path.join(artifacts, 'import-robot.png') });
      console.log(`       ${want.info.joints.length} joints, ${want.info.clips.length} clips, ${triangles(want.info)} triangles, ${want.bytes.length} bytes (imported in ${ms} ms)`);
    }],
    ['a .gltf chosen with its .bin: imported in the page as the CLI does; its missing image named', async () => {
      if (!fs.existsSync(INTERP)) return 'skip: ' + INTERP + ' is missing (set STANCE_DATA)';
      await page.setInputFiles('#file', [INTERP, INTERP.replace(/\.gltf$/, '.bin')]);
      await settled(page, 'interpolation_test.stance');
      await sameAsCli(page, INTERP, 'interpolation_test.stance');
      check((await text(page, '#as-import')).includes('l.jpg'), 'the missing image: ' + await text(page, '#as-import'));
      // without its .bin: the importer's own message, as the CLI gives it
      await page.setInputFiles('#file', INTERP);
      await page.waitForFunction(() => document.querySelector('#as-error').textContent !== '', null, { timeout: HANG_MS });
      const err = await text(page, '#as-error');
      const dir = fs.mkdtempSync(path.join(artifacts, 'gltf-alone-'));
      fs.copyFileSync(INTERP, path.join(dir, 'interpolation_test.gltf'));
      const r = spawnSync(cli, ['import', 'interpolation_test.gltf', '-o', 'x.stance'], { cwd: dir, encoding: 'utf8' });
      fs.rmSync(dir, { recursive: true, force: true });
      const line = r.stderr.trim().replace(/^stance: /, '');
      check(r.status === 1 && err.startsWith(line), `page: ${err}\n       CLI: ${line}`);
      check(err.includes('interpolation_test.bin'), 'names the .bin: ' + err);
    }],
    ['vertex colours (COLOR_0 of a glTF written here) are drawn', async () => {
      const bytes = glb(quadGltf({ colors: true }));
      fs.writeFileSync(path.join(artifacts, 'colored.glb'), bytes);
      await drop(page, [{ name: 'colored.glb', bytes }]);
      await settled(page, 'colored.stance');
      await sameAsCli(page, path.join(artifacts, 'colored.glb'), 'colored.stance');
      const r = await colourCount(page, ['r > g + 60 && r > b + 60', 'b > g + 60 && b > r + 60']);
      console.log(`       ${r.on.drawn} pixels: ${r.on.n[0]} red, ${r.on.n[1]} blue; without: ${r.off.n[0]} red, ${r.off.n[1]} blue`);
      check(r.on.n[0] > 0.1 * r.on.drawn && r.on.n[1] > 0.1 * r.on.drawn, 'vertex colours: ' + JSON.stringify(r.on));
      check(r.off.n[0] === 0 && r.off.n[1] === 0, 'without: ' + JSON.stringify(r.off));
      await page.screenshot({ path: path.join(artifacts, 'import-colors.png') });
    }],
    ['a .gltf chosen with its .bin and a texture its URI puts in a folder: the texture drawn', async () => {
      const dir = fs.mkdtempSync(path.join(artifacts, 'quad-'));
      const q = quadGltf({ imageUri: 'textures/green%20tile.png', binUri: 'quad.bin' });
      fs.writeFileSync(path.join(dir, 'quad.gltf'), JSON.stringify(q.gltf));
      fs.writeFileSync(path.join(dir, 'quad.bin'), q.bin);
      fs.mkdirSync(path.join(dir, 'textures'));
      fs.writeFileSync(path.join(dir, 'textures', 'green tile.png'), png(4, 4, [20, 200, 40]));
      // the browser's file box gives names only: the image is found by its name
      await page.setInputFiles('#file', [path.join(dir, 'quad.gltf'), path.join(dir, 'quad.bin'), path.join(dir, 'textures', 'green tile.png')]);
      await settled(page, 'quad.stance');
      await sameAsCli(page, path.join(dir, 'quad.gltf'), 'quad.stance');
      const look = await page.evaluate(() => window.StanceImport.current.prims.map((p) => [p.name, p.image, p.note]));
      check(JSON.stringify(look) === '[["quad",0,""]]', 'look: ' + JSON.stringify(look));
      const r = await colourCount(page, ['g > r + 60 && g > b + 60']);
      console.log(`       ${r.on.drawn} pixels: ${r.on.n[0]} green; without the texture: ${r.off.n[0]}`);
      check(r.on.n[0] > 0.1 * r.on.drawn, 'textured: ' + JSON.stringify(r.on)); // (the ground grid is drawn too)
      check(r.off.n[0] === 0, 'without: ' + JSON.stringify(r.off));
      await page.screenshot({ path: path.join(artifacts, 'import-quad.png') });
      fs.rmSync(dir, { recursive: true, force: true });
    }],
    ['a dropped .fbx or .bvh: one line naming the command that imports it', async () => {
      const before = await text(page, '#as-file');
      const files = [{ name: 'Character.fbx', bytes: Buffer.from('Kaydara FBX Binary  \0') }];
      if (fs.existsSync(BVH)) files.push({ name: '01_01.bvh', bytes: fs.readFileSync(BVH) });
      for (const f of files) {
        await drop(page, [f]);
        await page.waitForFunction(() => document.querySelector('#as-error').textContent !== '', null, { timeout: HANG_MS });
        const line = await text(page, '#as-error'), stem = f.name.replace(/\.[^.]*$/, '');
        console.log('       ' + line);
        check(!line.includes('\n') && line.includes(`stance import ${f.name} -o ${stem}.stance`), f.name + ': ' + line);
        check((await text(page, '#as-file')) === before, 'the loaded file stays: ' + await text(page, '#as-file'));
      }
      await page.screenshot({ path: path.join(artifacts, 'import-bvh.png') });
    }],
    ['a truncated .glb: the importer\'s message, as the CLI gives it', async () => {
      if (!fs.existsSync(FOX)) return 'skip: ' + FOX + ' is missing';
      const bad = path.join(artifacts, 'Cut.glb');
      fs.writeFileSync(bad, fs.readFileSync(FOX).subarray(0, 5000));
      await page.setInputFiles('#file', bad);
      await page.waitForFunction(() => document.querySelector('#as-error').textContent !== '', null, { timeout: HANG_MS });
      const r = spawnSync(cli, ['import', 'Cut.glb', '-o', 'x.stance'], { cwd: artifacts, encoding: 'utf8' });
      const line = r.stderr.trim().replace(/^stance: /, '');
      check(r.status === 1 && (await text(page, '#as-error')) === line, `page: ${await text(page, '#as-error')}\n       CLI: ${line}`);
      check(consoleErrors.length === 0, 'console errors: ' + consoleErrors.join(' | '));
    }],
  ];
  await runTests(tests, { browser, server, lines: 3 });
}
main().catch((e) => { console.error(e); console.log('0 passed, 1 failed'); process.exit(1); });
