// tests/lab/editor3.test.mjs - browser tests of the graph editor's third part (issue 28): "Edit
// this graph" on a compiled .stance writes back everything the compiled form holds (bindings, IK
// entries, clip notes, sync groups), checked by compiling what the page saves with the CLI (the same
// bytes as the file loaded) and by the page's own comparison line; and the fields for what was
// JSON-only: a parameter's damping, a blend space's speed_warp, a condition on a curve, IK entries
// added with their joints chosen from the skeleton and removed, and a clip's notes (events with
// payloads, windows, curves, markers, speed). Real clicks and key presses in headless Chromium
// (tests/lab/browser.mjs); the saved JSON is checked with the schema, `stance graph-check` and
// `stance compile` (the page's "Save .stance" equals the CLI's compile of the saved JSON).
// Screenshots go to build-lab/artifacts/editor3-*.png.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cli, artifacts, DATA, check, root, labDir, HANG_MS, browserPath, openLab, runTests } from './browser.mjs';
import { type, noEditorError, stateSel, transSel, model, pick, validate } from './editor_util.mjs';

const GLB = path.join(DATA, 'robot_expressive', 'RobotExpressive.glb');

const same = (a, b) => Buffer.compare(fs.readFileSync(a), fs.readFileSync(b)) === 0;

async function main() {
  const { server, browser, page, consoleErrors } = await openLab('editor3', [[labDir + '/index.html', 'build-lab (make lab)'], [cli, 'the CLI (make build)'], [browserPath, 'chromium'], [GLB, 'RobotExpressive (../shared/data)']], 'stance-editor3-chromium-');
  fs.mkdirSync(artifacts, { recursive: true });
  const shot = async (name) => page.screenshot({ path: path.join(artifacts, `editor3-${name}.png`) });
  const at = (f) => path.join(artifacts, f);
  const load = async (file) => {
    await page.setInputFiles('#file', file);
    await page.waitForFunction((n) => document.querySelector('#as-file').textContent === n, path.basename(file), { timeout: HANG_MS });
    await page.evaluate(() => window.stanceLab.pause(true));
  };
  const saveJson = async (out) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#ed-save-json')]);
    await dl.saveAs(out);
  };
  const undoKey = async (key) => { await page.locator('#ed-body h3').first().click(); await page.keyboard.press(key); };

  const tests = [];
  // item 1: each shipped graph with bindings, IK, clip notes or sync, compiled by the CLI and edited in the page
  for (const g of ['robot_curves', 'robot_events', 'robot_sync', 'robot_footlock']) {
    tests.push([`"Edit this graph" on graphs/${g}.json compiled: the saved JSON passes graph-check and the schema and compiles to the same bytes`, async () => {
      const compiled = at(`editor3-${g}.stance`), back = at(`editor3-${g}.json`), again = at(`editor3-${g}-again.stance`);
      execFileSync(cli, ['compile', path.join(root, 'graphs', g + '.json'), '-o', compiled], { stdio: 'pipe' });
      await page.click('#tab-as');
      await load(compiled);
      if (await page.locator('#editor').getAttribute('open') === null) await page.click('#editor > summary');
      await page.click('#ed-open');
      await noEditorError(page, g);
      const note = page.locator('#ed-note');
      check(await note.getAttribute('data-same') === '1', 'the page does not find the graph the same: ' + await note.textContent());
      const said = await note.textContent();
      check(/byte for byte/.test(said) && /places/.test(said), 'the note: ' + said);
      check((said.match(/places/g) || []).length === 1, 'places said more than once: ' + said);
      const m = await model(page), src = JSON.parse(fs.readFileSync(path.join(root, 'graphs', g + '.json'), 'utf8'));
      check(!m.params.some((p) => p.name.startsWith('curve:')), 'a curve\'s parameter is written as a parameter');
      check(JSON.stringify(Object.keys(m.clips || {}).sort()) === JSON.stringify(Object.keys(src.clips || {}).sort()), 'clips: ' + Object.keys(m.clips || {}));
      check((m.ik || []).length === (src.ik || []).length, 'IK entries: ' + JSON.stringify(m.ik));
      if (g === 'robot_curves') {
        check(JSON.stringify(m.layers[1].weight) === '{"curve":"WaveWeight"}', 'layer weight: ' + JSON.stringify(m.layers[1].weight));
        check(JSON.stringify(m.ik[0].weight) === '{"param":"aim"}', 'IK weight: ' + JSON.stringify(m.ik[0].weight));
        check(JSON.stringify(m.machines[1].states[2].blend1d.param) === '{"curve":"Greeting"}', 'blend axis: ' + JSON.stringify(m.machines[1].states[2].blend1d.param));
        check(m.machines[1].transitions[1].when[0].curve === 'WaveDone', 'curve condition: ' + JSON.stringify(m.machines[1].transitions[1].when));
        check(JSON.stringify(m.clips.Walking.events[0].payload) === '{"int":1,"float":0.5,"string":"gravel"}', 'payload');
        await page.locator('#editor [data-clip="Walking"]').scrollIntoViewIfNeeded();
        await shot('notes-' + g);
        await note.scrollIntoViewIfNeeded();
        await shot('note-' + g);
      }
      if (g === 'robot_sync') check(m.machines[0].states.filter((s) => s.sync).length >= 2 && m.clips.Walking.markers.length > 0, 'sync groups and markers');
      await type(page, '#ed-asset', compiled);
      await saveJson(back);
      const gc = spawnSync(cli, ['graph-check', back], { encoding: 'utf8' });
      check(gc.status === 0, 'graph-check: ' + gc.stdout + gc.stderr);
      check(validate(back).status === 0, 'schema: ' + validate(back).stdout);
      execFileSync(cli, ['compile', back, '-o', again], { stdio: 'pipe' });
      check(same(compiled, again), `stance compile of the saved JSON differs from the file loaded (${fs.statSync(compiled).size} and ${fs.statSync(again).size} bytes)`);
    }]);
  }

  tests.push(['a footlock entry with its own contact threshold: the page says the text is not the compiled graph, and why', async () => {
    const src = JSON.parse(fs.readFileSync(path.join(root, 'graphs', 'robot_footlock.json'), 'utf8'));
    src.asset = GLB;
    src.ik[0].contact_height = 0.02; // a compiled graph keeps the contacts it found, not this
    const file = at('editor3-threshold.json'), compiled = at('editor3-threshold.stance');
    fs.writeFileSync(file, JSON.stringify(src, null, 1));
    execFileSync(cli, ['compile', file, '-o', compiled], { stdio: 'pipe' });
    await load(compiled);
    await page.click('#ed-open');
    await noEditorError(page, 'threshold');
    const note = page.locator('#ed-note'), said = await note.textContent();
    check(await note.getAttribute('data-same') === '0', 'the page finds the graph the same: ' + said);
    check(/is not the loaded file's/.test(said) && /contact_height/.test(said) && /places/.test(said), 'the note: ' + said);
  }]);

  tests.push(['damping, speed_warp and a condition on a curve: each runs at once and undoes', async () => {
    // on robot_curves.json's graph, opened from its compiled file (the last test but three loaded it; load it again)
    await load(at('editor3-robot_curves.stance'));
    await page.click('#ed-open');
    await noEditorError(page, 'open');
    const speed = '#editor .ed-row[data-param="speed"]';
    await type(page, `${speed} input[data-kind="damping"]`, '0.3');
    await noEditorError(page, 'damping');
    check((await model(page)).params[0].damping === 0.3, 'damping: ' + (await model(page)).params[0].damping);
    check(/"damping": 0.3/.test(await page.evaluate(() => window.StanceEditor.text())), 'the damping did not run');
    await undoKey('Control+z');
    check((await model(page)).params[0].damping === 0.1, 'undo: damping ' + (await model(page)).params[0].damping);
    await page.check(`${stateSel('Move')} input[data-kind="speed-warp"]`);
    await noEditorError(page, 'speed_warp');
    check((await model(page)).machines[0].states[1].blend1d.speed_warp === true, 'speed_warp');
    // a condition on the curve Lean on Idle -> Move, with its value typed
    await page.click(`${transSel(1)} [data-act="add-cond"]`);
    const cond = `${transSel(1)} .ed-cond >> nth=1`;
    await pick(page, `${cond} >> select[data-kind="cond-param"]`, '\u0000Lean');
    await type(page, `${cond} >> input[data-kind="value"]`, '0.05');
    await noEditorError(page, 'curve condition');
    const c = (await model(page)).machines[0].transitions[1].when[1];
    check(JSON.stringify(c) === '{"op":">=","value":0.05,"curve":"Lean"}', 'curve condition: ' + JSON.stringify(c));
    await page.locator(`${transSel(1)}`).scrollIntoViewIfNeeded();
    await shot('fields');
    await undoKey('Control+z');
    check((await model(page)).machines[0].transitions[1].when[1].value === 0, 'undo the value');
    await undoKey('Control+y');
    check((await model(page)).machines[0].transitions[1].when[1].value === 0.05, 'redo the value');
  }]);

  tests.push(['IK entries: a footlock with two legs and a two_bone chain added, joints chosen from the skeleton; one removed and back by Ctrl+Z', async () => {
    await pick(page, '#ed-new-ik-kind', 'footlock');
    await page.click('#ed-add-ik');
    await noEditorError(page, 'footlock added');
    let m = await model(page);
    const feet = m.ik[m.ik.length - 1];
    check(feet.kind === 'footlock' && feet.name === 'feet' && JSON.stringify(feet.legs) === '[{"hip":"UpperLeg.L","knee":"LowerLeg.L","ankle":"Foot.L"}]', 'footlock: ' + JSON.stringify(feet));
    const item = '#editor .ed-item[data-ik-entry="feet"]';
    await page.click(`${item} [data-act="add-leg"]`);
    await noEditorError(page, 'leg added');
    // the second leg's joints chosen in the selects
    for (const [k, j] of [['hip', 'UpperLeg.R'], ['knee', 'LowerLeg.R'], ['ankle', 'Foot.R']])
      await pick(page, `${item} .ed-leg[data-leg="1"] select[data-kind="${k}"]`, j);
    await type(page, `${item} input[data-kind="plant_time"]`, '0.08');
    await noEditorError(page, 'legs chosen');
    m = await model(page);
    check(JSON.stringify(m.ik[1].legs[1]) === '{"hip":"UpperLeg.R","knee":"LowerLeg.R","ankle":"Foot.R"}' && m.ik[1].plant_time === 0.08, 'legs: ' + JSON.stringify(m.ik[1]));
    await pick(page, '#ed-new-ik-kind', 'two_bone');
    await page.click('#ed-add-ik');
    await noEditorError(page, 'two_bone added');
    const reach = '#editor .ed-item[data-ik-entry="reach"]';
    for (const [k, j] of [['hip', 'UpperArm.R'], ['knee', 'LowerArm.R'], ['ankle', 'Palm2.R']])
      await pick(page, `${reach} select[data-kind="${k}"]`, j);
    await pick(page, `${reach} select[data-kind="ik-weight-kind"]`, 'param');
    await noEditorError(page, 'two_bone chosen');
    m = await model(page);
    check(m.ik.length === 3 && JSON.stringify(m.ik[2]) === '{"name":"reach","kind":"two_bone","legs":[{"hip":"UpperArm.R","knee":"LowerArm.R","ankle":"Palm2.R"}],"weight":{"param":"speed"}}', 'two_bone: ' + JSON.stringify(m.ik[2]));
    await page.locator(item).scrollIntoViewIfNeeded();
    await shot('ik');
    await page.click(`${reach} [data-act="del"]`);
    check((await model(page)).ik.length === 2, 'the entry was not removed');
    await undoKey('Control+z');
    check((await model(page)).ik.length === 3, 'undo did not bring it back');
    await noEditorError(page, 'undo');
  }]);

  tests.push(['clip notes of Idle typed in: an event with a payload, a window, a curve, a marker, a speed', async () => {
    await pick(page, '#ed-notes-clip', 'Idle');
    await page.click('#ed-add-notes');
    await noEditorError(page, 'notes added');
    const c = '#editor .ed-item[data-clip="Idle"]';
    await page.click(`${c} [data-act="add-event"]`);
    await type(page, `${c} input[data-kind="event-t"]`, '0.5');
    await type(page, `${c} input[data-kind="event-name"]`, 'blink');
    await type(page, `${c} input[data-kind="payload-int"]`, '3');
    await type(page, `${c} input[data-kind="payload-string"]`, 'eye');
    await page.click(`${c} [data-act="add-window"]`);
    await type(page, `${c} input[data-kind="window-name"]`, 'rest');
    await type(page, `${c} input[data-kind="window-from"]`, '0.25');
    await type(page, `${c} input[data-kind="window-to"]`, '1.5');
    await page.click(`${c} [data-act="add-curve"]`);
    await type(page, `${c} input[data-kind="curve-name"]`, 'Calm');
    await type(page, `${c} input[data-kind="curve-keys"]`, '0:0 1.25:1');
    await page.click(`${c} [data-act="add-marker"]`);
    await type(page, `${c} input[data-kind="marker-t"]`, '0.75');
    await type(page, `${c} input[data-kind="marker-name"]`, 'R');
    await type(page, `${c} input[data-kind="clip-speed"]`, '0.5');
    await noEditorError(page, 'notes typed');
    const n = (await model(page)).clips.Idle;
    const want = '{"events":[{"t":0.5,"name":"blink","payload":{"int":3,"string":"eye"}}],"windows":[{"name":"rest","from":0.25,"to":1.5}],"curves":{"Calm":[[0,0],[1.25,1]]},"markers":[{"t":0.75,"name":"R"}],"speed":0.5}';
    check(JSON.stringify(n) === want, 'Idle notes: ' + JSON.stringify(n));
    await page.locator(c).scrollIntoViewIfNeeded();
    await shot('clip-notes');
    // a window past the clip's end: the reader's message at its line
    await type(page, `${c} input[data-kind="window-to"]`, '9');
    const e = await page.evaluate(() => window.StanceEditor.error());
    check(/graph\.json:\d+:\d+: .*"to"/.test(e) || /graph\.json:\d+:\d+:.*9/.test(e), 'the message: ' + e);
    await undoKey('Control+z');
    await noEditorError(page, 'undo the bad window');
  }]);

  tests.push(['the edited graph saved: schema, graph-check, and the page\'s .stance equals stance compile of the saved JSON', async () => {
    const out = at('editor3-edited.json'), mine = at('editor3-edited-page.stance'), cliOut = at('editor3-edited-cli.stance');
    await saveJson(out);
    const gc = spawnSync(cli, ['graph-check', out], { encoding: 'utf8' });
    check(gc.status === 0, 'graph-check: ' + gc.stdout + gc.stderr);
    check(validate(out).status === 0, 'schema: ' + validate(out).stdout);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#ed-save-stance')]);
    await dl.saveAs(mine);
    execFileSync(cli, ['compile', out, '-o', cliOut], { stdio: 'pipe' });
    check(same(mine, cliOut), `the page's .stance (${fs.statSync(mine).size} B) differs from stance compile's (${fs.statSync(cliOut).size} B)`);
    const sc = spawnSync(cli, ['scenario', '--graph', out, '--script', path.join(artifacts, 'editor3-script.json')], { encoding: 'utf8' });
    check(sc.status === 0, 'scenario: ' + sc.stderr);
    check(consoleErrors.length === 0, 'console errors: ' + consoleErrors.join(' | '));
  }]);

  fs.writeFileSync(path.join(artifacts, 'editor3-script.json'), JSON.stringify({ duration: 3, changes: [{ t: 0, set: { speed: 0 } }, { t: 1, set: { speed: 4 } }, { t: 2, trigger: 'jump' }] }));
  await runTests(tests, { browser, server, lines: Infinity, onFail: (p, f) => shot('fail-' + p + '-' + f) });
}
main().catch((e) => { console.error(e); console.log('0 passed, 1 failed'); process.exit(1); });
