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
import zlib from 'node:zlib';
import { root, labDir, HANG_MS, browserPath, openLab, runTests, webglProblem, canvasProblem, textureCheck } from './browser.mjs';

const cli = path.resolve(root, process.env.STANCE_CLI || 'build/stance');
const artifacts = path.join(labDir, 'artifacts');
const DATA = process.env.STANCE_DATA || path.join(root, '..', 'shared', 'data');
const FOX = path.join(DATA, 'fox', 'Fox.glb'), ROBOT = path.join(DATA, 'robot_expressive', 'RobotExpressive.glb');
const INTERP = path.join(DATA, 'interpolation_test', 'interpolation_test.gltf');
const BVH = '/usr/share/assimp/models/BVH/01_01.bvh';

function check(cond, msg) { if (!cond) throw new Error(msg); }
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

// A glTF 2.0 file written here from the specification: a 2 m quad standing on two joints
// (root, and a child the animation turns), skinned to the root, one clip "Turn" of 1 s.
// colors: COLOR_0 red at the bottom and blue at the top; else TEXCOORD_0 over the quad and
// a base-colour texture whose image is at `imageUri` (the .bin at `binUri`, both external).
// Returns { gltf (the JSON object), bin (Buffer) }.
function quadGltf({ colors, imageUri, binUri }) {
  const f32 = (a) => Buffer.from(new Float32Array(a).buffer), u16 = (a) => Buffer.from(new Uint16Array(a).buffer);
  const u8 = (a) => Buffer.from(new Uint8Array(a).buffer);
  const parts = [
    f32([-0.5, 0, 0, 0.5, 0, 0, 0.5, 2, 0, -0.5, 2, 0]),        // POSITION
    colors ? f32([1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1]) // COLOR_0 (VEC4)
      : f32([0, 1, 1, 1, 1, 0, 0, 0]),                         // TEXCOORD_0
    u8([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),       // JOINTS_0
    f32([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]),      // WEIGHTS_0
    u16([0, 1, 2, 0, 2, 3, 0, 2, 1, 0, 3, 2]),                  // both faces
    f32([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -2, 0, 1]), // inverse binds
    f32([0, 1]),                                               // times
    f32([0, 0, 0, 1, 0, 0.3826834, 0, 0.9238795]),             // rotations
  ];
  const views = [], offs = [];
  let off = 0;
  for (const p of parts) { offs.push(off); views.push({ buffer: 0, byteOffset: off, byteLength: p.length }); off += (p.length + 3) & ~3; }
  const bin = Buffer.alloc(off);
  parts.forEach((p, i) => p.copy(bin, offs[i]));
  const acc = (v, type, ct, count, extra) => ({ bufferView: v, componentType: ct, count, type, ...extra });
  const attributes = { POSITION: 0, JOINTS_0: 2, WEIGHTS_0: 3, [colors ? 'COLOR_0' : 'TEXCOORD_0']: 1 };
  const gltf = {
    asset: { version: '2.0' }, scene: 0, scenes: [{ nodes: [0, 2] }],
    nodes: [{ name: 'root', children: [1] }, { name: 'top', translation: [0, 2, 0] }, { name: 'quad', mesh: 0, skin: 0 }],
    meshes: [{ name: 'quad', primitives: [{ attributes, indices: 4, ...(colors ? {} : { material: 0 }) }] }],
    skins: [{ joints: [0, 1], inverseBindMatrices: 5 }],
    animations: [{ name: 'Turn', samplers: [{ input: 6, output: 7 }], channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }] }],
    accessors: [acc(0, 'VEC3', 5126, 4, { min: [-0.5, 0, 0], max: [0.5, 2, 0] }), acc(1, colors ? 'VEC4' : 'VEC2', 5126, 4),
      acc(2, 'VEC4', 5121, 4), acc(3, 'VEC4', 5126, 4), acc(4, 'SCALAR', 5123, 12), acc(5, 'MAT4', 5126, 2),
      acc(6, 'SCALAR', 5126, 2, { min: [0], max: [1] }), acc(7, 'VEC4', 5126, 2)],
    bufferViews: views, buffers: [{ byteLength: bin.length, ...(binUri ? { uri: binUri } : {}) }],
  };
  if (!colors) Object.assign(gltf, { materials: [{ pbrMetallicRoughness: { baseColorTexture: { index: 0 } } }],
    textures: [{ source: 0 }], images: [{ uri: imageUri }] });
  return { gltf, bin };
}
function glb({ gltf, bin }) {
  let json = Buffer.from(JSON.stringify(gltf));
  json = Buffer.concat([json, Buffer.alloc((4 - json.length % 4) % 4, 0x20)]);
  const head = Buffer.alloc(12), jh = Buffer.alloc(8), bh = Buffer.alloc(8);
  head.write('glTF', 0); head.writeUInt32LE(2, 4); head.writeUInt32LE(12 + 8 + json.length + 8 + bin.length, 8);
  jh.writeUInt32LE(json.length, 0); jh.write('JSON', 4); bh.writeUInt32LE(bin.length, 0); bh.write('BIN\0', 4);
  return Buffer.concat([head, jh, json, bh, bin]);
}
// A PNG of w x h pixels of one RGB colour, written from the PNG specification (zlib from node).
function png(w, h, rgb) {
  const crcTable = Array.from({ length: 256 }, (_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
  const crc = (b) => { let c = 0xFFFFFFFF; for (const x of b) c = crcTable[(c ^ x) & 255] ^ (c >>> 8); return (c ^ 0xFFFFFFFF) >>> 0; };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4), sum = Buffer.alloc(4), td = Buffer.concat([Buffer.from(type), data]);
    len.writeUInt32BE(data.length); sum.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 2; // 8 bits, RGB
  const rows = Buffer.alloc(h * (1 + 3 * w));
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) rows.set(rgb, y * (1 + 3 * w) + 1 + 3 * x);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}
// In the page, paused: the whole view's drawn pixels and those of a colour (a page function
// of r, g, b, as source), with the looks on and off
async function colourCount(page, tests) {
  return page.evaluate(async (ts) => {
    const lab = window.stanceLab, box = document.querySelector('#looks');
    const fs = ts.map((t) => new Function('r', 'g', 'b', 'return ' + t));
    await lab.pause(true);
    // the time controls' blue cross on the joint plotted is no colour of the file's
    if (window.StanceTime) window.StanceTime.cross = false;
    const count = async () => {
      const s = await lab.sample(false, true); // the whole view: two joints make a thin box
      const n = ts.map(() => 0);
      let drawn = 0;
      for (let i = 0; i < s.data.length; i += 4) {
        const [r, g, b] = [s.data[i], s.data[i + 1], s.data[i + 2]];
        if (Math.abs(r - 240) + Math.abs(g - 242) + Math.abs(b - 245) <= 40) continue;
        drawn++;
        fs.forEach((f, k) => { if (f(r, g, b)) n[k]++; });
      }
      return { drawn, n };
    };
    const on = await count();
    box.click(); await lab.frame();
    const off = await count();
    box.click(); await lab.frame();
    if (window.StanceTime) window.StanceTime.cross = true;
    return { on, off };
  }, tests);
}

async function main() {
  const { server, browser, page, consoleErrors } = await openLab('import', [[labDir + '/index.html', 'build-lab (make lab)'], [cli, 'the CLI (make build)'], [browserPath, 'chromium (scripts/lab_deps.sh)']], 'stance-lab-import-');
  fs.mkdirSync(artifacts, { recursive: true });
  const problem = await webglProblem(page);
  if (problem) {
    console.log(`FAIL - WebGL2: ${problem.why} (${problem.kind === 'context' ? 'not a lab fault' : 'the lab draws nothing'}); no test ran`);
    await browser.close(); server.close();
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
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
