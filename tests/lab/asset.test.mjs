// tests/lab/asset.test.mjs - browser tests of what a .stance made by the command line
// brings to the lab: the Fox imported by `stance import` (STANCE_CLI) carries its
// base-colour texture in the file's texture section (docs/stance-format.md, version 6);
// loaded in the page, pixels of the texture's colours are drawn inside the character's
// box; a corrupt texture section is the reader's message, in the page as in `stance info`,
// and the file still loads (without textures). And the page's JSON reader, Debian's
// jansson compiled with emcc (scripts/lab_jansson.sh), gives `stance graph-check`'s
// FILE:LINE:COL message on 34 malformed graph documents.
// Run by `make lab-test` (LAB_DIR, STANCE_CLI); data from ../shared/data (STANCE_DATA).
// Screenshots go to build-lab/artifacts/asset-*.png (not committed). No timing bar.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cli, artifacts, DATA, check, labDir, HANG_MS, browserPath, openLab, runTests, requireWebgl, textureCheck } from './browser.mjs';

const FOX = path.join(DATA, 'fox', 'Fox.glb');

const text = (page, sel) => page.locator(sel).textContent();

// FNV-1a 64 of the payload, the header's checksum (docs/stance-format.md)
function fixChecksum(b) {
  let h = 14695981039346656037n;
  for (let i = 32; i < b.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(b[i])) * 1099511628211n);
  b.writeBigUInt64LE(h, 24);
}
// the offset of the "txtr" section's head (walking the section heads)
function txtrAt(b) {
  for (let at = 32; at + 16 <= b.length; at += 16 + Number(b.readBigUInt64LE(at + 8)))
    if (b.toString('latin1', at, at + 4) === 'txtr') return at;
  return -1;
}

async function loadStance(page, file) {
  await page.evaluate(() => { document.querySelector('#as-file').textContent = ''; });
  await page.setInputFiles('#file', file);
  await page.waitForFunction((f) => document.querySelector('#as-file').textContent === f, path.basename(file), { timeout: HANG_MS });
}

// The 34 documents tests/test_graphfile_labjson.c gave the lab's former hand-written reader.
const MALFORMED = [
  '{"version": 1,}', '{"version": 1 "asset": 2}', '{"a": 1, "a": 2}', '{"a": 1e999}', '{"a": tru}',
  '{"a": "x', '[1,2]]', '{"a":\n  [1, 2,\n   3x]}', '{"a": "\\u0000"}', '{"a": 99999999999999999999}',
  '{"a": -99999999999999999999}', '{"a": -}', '{"a": 01}', '{"a": 1} x', '{"a" 1}', '{1: 2}',
  '{"a": [1,}', '{"a": nul}', '{"a": 1.}', '{"a": .5}', '{"a": +1}', '{"a": "\\q"}',
  '{"a": "ab\tc"}', '{"a": "\\ud800"}', '{"a": "\\udc00"}', '{"a": "x\\ud800y"}', '{"a": 12e}',
  '{"a": [1 2]}', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x20, 0x22, 0xff, 0x22, 0x7d]), Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x20, 0x22, 0xc3, 0x22, 0x7d]),
  '  {\n\t"b": {"c": [true, false, nulll]}}', '{"a": {"b": 1,\n "b": 2}}', '{"a": "\\u12"}', 'true',
];

async function main() {
  const { server, browser, page, consoleErrors } = await openLab('asset', [[labDir + '/index.html', 'build-lab (make lab)'], [cli, 'the CLI (make build)'], [browserPath, 'chromium (scripts/lab_deps.sh)']], 'stance-lab-asset-');
  fs.mkdirSync(artifacts, { recursive: true });
  await requireWebgl(page, browser, server);
  await page.click('#tab-as');
  const foxStance = path.join(artifacts, 'asset-fox.stance');

  const tests = [
    ['the Fox imported by the CLI: its .stance carries the texture, and the lab draws it', async () => {
      if (!fs.existsSync(FOX)) return 'skip: ' + FOX + ' is missing (set STANCE_DATA)';
      const r = spawnSync(cli, ['import', FOX, '-o', foxStance], { encoding: 'utf8' });
      check(r.status === 0, 'stance import: ' + r.stderr);
      const info = JSON.parse(execFileSync(cli, ['info', foxStance, '--json'], { encoding: 'utf8' }));
      const bytes = fs.readFileSync(foxStance);
      check(bytes.readUInt32LE(8) === 6, 'version ' + bytes.readUInt32LE(8));
      check(info.textures && info.textures.images.length === 1 && info.textures.images[0].format === 'png' &&
        JSON.stringify(info.textures.meshes) === '[0]', 'stance info: ' + JSON.stringify(info.textures));
      await loadStance(page, foxStance);
      check((await text(page, '#as-error')) === '', 'error: ' + await text(page, '#as-error'));
      const file = await page.evaluate(() => ({ meshes: window.StanceImport.file && window.StanceImport.file.meshes,
        imported: window.StanceImport.current !== null, bytes: window.StanceImport.file && window.StanceImport.file.images[0].size }));
      check(!file.imported && JSON.stringify(file.meshes) === '[0]' && file.bytes === info.textures.images[0].bytes, 'the page read ' + JSON.stringify(file));
      const t = await textureCheck(page, 0, 'file');
      console.log(`       texture ${t.size.join('x')} (${info.textures.images[0].bytes} bytes of PNG): ${t.on.coloured} of ${t.on.drawn} pixels ` +
        `coloured (${t.on.match} of the texture's colours, ${t.bins} bins), ${t.off.coloured} without textures`);
      check(t.on.drawn > 2000, 'the Fox drew ' + t.on.drawn + ' pixels');
      check(t.on.coloured > 0.5 * t.on.drawn, `textured: ${t.on.coloured} of ${t.on.drawn} pixels coloured`);
      check(t.on.match > 0.9 * t.on.coloured, `textured: ${t.on.match} of ${t.on.coloured} coloured pixels have the texture's colours`);
      check(t.off.coloured < 0.01 * t.off.drawn, `without textures: ${t.off.coloured} of ${t.off.drawn} pixels coloured`);
      await page.screenshot({ path: path.join(artifacts, 'asset-fox.png') });
    }],
    ['a corrupt texture section: the reader\'s message in the page and in stance info; the file loads without textures', async () => {
      if (!fs.existsSync(foxStance)) return 'skip: no Fox .stance';
      const b = Buffer.from(fs.readFileSync(foxStance));
      const at = txtrAt(b);
      check(at > 0, 'no txtr section');
      b.writeUInt32LE(3, at + 16 + 4); // image 0's kind
      fixChecksum(b);
      const bad = path.join(artifacts, 'asset-bad-texture.stance');
      fs.writeFileSync(bad, b);
      const r = spawnSync(cli, ['info', bad], { encoding: 'utf8' });
      const want = r.stderr.trim().replace(/^stance: /, '').replace(bad + ': ', '');
      check(r.status === 1 && want.startsWith('texture section: image 0 is kind 3'), 'stance info: ' + r.stderr);
      await loadStance(page, bad);
      const line = await text(page, '#as-error');
      console.log('       ' + line);
      check(line === 'asset-bad-texture.stance: ' + want + ' (drawn without textures)', `page: ${line}\n       CLI: ${want}`);
      check(await page.evaluate(() => window.StanceImport.file === null), 'textures kept');
    }],
    ['the page\'s jansson (Debian\'s source, emcc) gives graph-check\'s FILE:LINE:COL on 34 malformed documents', async () => {
      if (!fs.existsSync(foxStance)) return 'skip: no Fox .stance';
      await loadStance(page, foxStance); // the editor reads a graph for the loaded character
      let same = 0;
      const diffs = [];
      for (let i = 0; i < MALFORMED.length; i++) {
        const doc = Buffer.from(MALFORMED[i]);
        const f = path.join(artifacts, 'graph.json');
        fs.writeFileSync(f, doc);
        const gc = spawnSync(cli, ['graph-check', 'graph.json'], { cwd: artifacts, encoding: 'utf8' });
        const want = gc.stderr.trim().split('\n')[0].replace(/^stance: /, '');
        const got = await page.evaluate((bytes) => {
          const L = window.Module, b = Uint8Array.from(bytes);
          const p = L._lab_editor_text_buffer(b.length);
          L.HEAPU8.set(b, p);
          const n = L._lab_editor_name(); const name = new TextEncoder().encode('graph.json');
          L.HEAPU8.set(name, n); L.HEAPU8[n + name.length] = 0;
          return L._lab_editor_check() === 0 ? '(built)' : L.UTF8ToString(L._lab_error());
        }, Array.from(doc));
        if (gc.status !== 0 && got === want) same++; else diffs.push(`doc ${i}: page '${got}', CLI '${want}'`);
      }
      console.log(`       ${same} of ${MALFORMED.length} messages the CLI's, e.g. ${await page.evaluate(() => window.Module.UTF8ToString(window.Module._lab_error()))}`);
      check(same === MALFORMED.length, diffs.slice(0, 4).join('\n       '));
      check(consoleErrors.length === 0, 'console errors: ' + consoleErrors.join(' | '));
    }],
  ];
  await runTests(tests, { browser, server, lines: 5 });
}
main().catch((e) => { console.error(e); console.log('0 passed, 1 failed'); process.exit(1); });
