// tests/lab/editor.test.mjs - browser tests of the lab's graph editor (lab/lab_editor.js,
// lab/lab_editor.c), run by `make lab-test` beside lab.test.mjs.
//
// On RobotExpressive imported by the CLI (all 14 clips), a graph is built from
// scratch with real clicks and key presses: parameters `velocity` (float) and
// `jump` (trigger), Idle, a Walk/Run blend space on velocity, Jump on the
// trigger, transitions with conditions, exit time and priority order, and an
// upper-body Wave layer whose mask is painted by clicking the skeleton. The
// character runs each edit at once (driven through the parameter controls),
// undo/redo by Ctrl+Z / Ctrl+Y restores the model, the saved JSON validates
// against docs/graph.schema.json (python3-jsonschema) and passes `stance
// graph-check`, `stance scenario --graph` runs it with a script, the saved
// .stance loads in the CLI with the same graph, an error shows the CLI's own
// FILE:LINE:COL message, a compiled graph opens as an editable model that
// rebuilds to the same graph, and the side panel stays inside 1280x720 with
// 16 parameters (it scrolls). Screenshots go to build-lab/artifacts/editor-*.png.
// Nothing depends on the machine's speed: the page is paused and stepped.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cli, artifacts, DATA, check, root, labDir, HANG_MS, browserPath, openLab, runTests, webglProblem } from './browser.mjs';
import { edError, type, noEditorError, stateSel, transSel } from './editor_util.mjs';

const GLB = path.join(DATA, 'robot_expressive', 'RobotExpressive.glb');

const text = (page, sel) => page.locator(sel).textContent();
const step = (page, n) => page.evaluate((k) => window.stanceLab.step(k), n);
const model = (page) => page.evaluate(() => window.StanceEditor.model());
const current = (page) => page.evaluate(() => window.stanceLab.machine() && window.stanceLab.machine().current);

// a select inside the editor item `item` (a CSS selector), by its data-kind, set to `value` as a user does
async function pick(page, sel, value) {
  await page.locator(sel).selectOption(String(value));
}
// waits for the editor to have run a change (the graph kind reads "edited in the page")
async function edited(page) {
  await page.waitForFunction(() => document.querySelector('#as-kind').textContent === 'edited in the page', null, { timeout: HANG_MS });
}

async function main() {
  const { server, browser, page, consoleErrors } = await openLab('editor', [[labDir + '/index.html', 'build-lab (make lab)'], [cli, 'the CLI (make build)'], [browserPath, 'chromium'], [GLB, 'RobotExpressive (../shared/data)']], 'stance-editor-chromium-');
  fs.mkdirSync(artifacts, { recursive: true });
  // RobotExpressive with all its clips, as `stance import` writes it
  const robot = path.join(artifacts, 'editor-robot.stance');
  execFileSync(cli, ['import', GLB, '-o', robot], { stdio: 'pipe' });
  const problem = await webglProblem(page);
  if (problem) console.log('note: WebGL2: ' + problem.why + ' (the editor tests do not read pixels)');
  const saved = path.join(artifacts, 'editor-graph.json'), savedStance = path.join(artifacts, 'editor-graph.stance');
  const shot = async (name) => page.screenshot({ path: path.join(artifacts, `editor-${name}.png`) });

  const tests = [
    ['a new graph on RobotExpressive: an empty machine is an error at its line and column', async () => {
      await page.click('#tab-as');
      await page.setInputFiles('#file', robot);
      await page.waitForFunction(() => document.querySelector('#as-file').textContent === 'editor-robot.stance', null, { timeout: HANG_MS });
      check(await text(page, '#as-error') === '', 'load: ' + await text(page, '#as-error'));
      await page.evaluate(() => window.stanceLab.pause(true));
      await page.click('#editor > summary'); // the editor opens
      await page.click('#ed-new');
      const e = await edError(page);
      check(/^graph\.json:\d+:\d+: /.test(e), 'no positioned error for a machine without states: ' + e);
      check(await page.locator('#ed-error').isVisible(), 'the error is not shown');
      console.log('       ' + e);
    }],
    ['parameters velocity (float) and jump (trigger) added by typing and clicking', async () => {
      await type(page, '#ed-new-param', 'velocity');
      await page.click('#ed-add-param');
      await page.fill('#ed-new-param', 'jump');
      await pick(page, '#ed-new-param-type', 'trigger');
      await page.click('#ed-add-param');
      const m = await model(page);
      check(JSON.stringify(m.params) === JSON.stringify([{ name: 'velocity', type: 'float', value: 0 }, { name: 'jump', type: 'trigger' }]),
        'params: ' + JSON.stringify(m.params));
    }],
    ['states Idle (clip), Move (Walking/Running on velocity) and Jump (once): the character runs them at once', async () => {
      await page.click('#editor [data-act="add-clip"]');
      const first = (await model(page)).machines[0].states[0].name;
      await type(page, `${stateSel(first)} .ed-name`, 'Idle');
      await pick(page, `${stateSel('Idle')} select[data-kind="clip"]`, 'Idle');
      await noEditorError(page, 'Idle');
      await edited(page);
      await page.click('#editor [data-act="add-blend1d"]');
      const blend = (await model(page)).machines[0].states[1].name;
      await type(page, `${stateSel(blend)} .ed-name`, 'Move');
      const entries = page.locator(`${stateSel('Move')} .ed-entry`);
      await entries.nth(0).locator('select').selectOption('Walking');
      await entries.nth(1).locator('select').selectOption('Running');
      await entries.nth(0).locator('input[data-kind="x"]').fill('1'); await page.keyboard.press('Enter');
      await entries.nth(1).locator('input[data-kind="x"]').fill('3'); await page.keyboard.press('Enter');
      await page.click('#editor [data-act="add-clip"]');
      const third = (await model(page)).machines[0].states[2].name;
      await type(page, `${stateSel(third)} .ed-name`, 'Jump');
      await pick(page, `${stateSel('Jump')} select[data-kind="clip"]`, 'Jump');
      await page.locator(`${stateSel('Jump')} label:has-text("once") input`).check();
      await noEditorError(page, 'states');
      const st = (await model(page)).machines[0].states;
      check(JSON.stringify(st) === JSON.stringify([{ name: 'Idle', clip: 'Idle' },
        { name: 'Move', blend1d: { param: 'velocity', entries: [{ clip: 'Walking', x: 1 }, { clip: 'Running', x: 3 }] } },
        { name: 'Jump', clip: 'Jump', once: true }]), 'states: ' + JSON.stringify(st));
      check(await current(page) === 'Idle' || (await step(page, 1), await current(page)) === 'Idle', 'runs: ' + await current(page));
    }],
    ['transitions: conditions on velocity and the trigger, exit at the end, priority by the arrows and by drag', async () => {
      const add = async (from, to, cond) => {
        await page.click('#editor [data-act="add-transition"]');
        const i = (await model(page)).machines[0].transitions.length - 1;
        await pick(page, `${transSel(i)} select[data-kind="from"]`, from);
        await pick(page, `${transSel(i)} select[data-kind="to"]`, to);
        if (cond) {
          await page.click(`${transSel(i)} [data-act="add-cond"]`);
          await pick(page, `${transSel(i)} select[data-kind="cond-param"]`, cond[0]);
          if (cond[1]) {
            await pick(page, `${transSel(i)} select[data-kind="op"]`, cond[1]);
            await type(page, `${transSel(i)} input[data-kind="value"]`, cond[2]);
          }
        }
        return i;
      };
      await add('Idle', 'Move', ['velocity', '>=', 0.1]);
      await add('Move', 'Idle', ['velocity', '<', 0.1]);
      await add('Move', 'Jump', ['jump']);
      const j = await add('Idle', 'Jump', ['jump']);
      const back = await add('Jump', 'Idle', null);
      await pick(page, `${transSel(back)} select[data-kind="exit"]`, 'end');
      await type(page, `${transSel(back)} input[data-kind="blend"]`, '0.3');
      await pick(page, `${transSel(back)} select[data-kind="mode"]`, 'inertialize');
      await pick(page, `${transSel(back)} select[data-kind="easing"]`, 'linear');
      // Idle -> Jump first: three clicks on its up arrow
      for (let k = 0; k < 3; k++) await page.click(`${transSel(j - k)} [data-act="up"]`);
      // Move -> Jump before Move -> Idle: dragged onto it
      await page.dragAndDrop(`${transSel(3)} .ed-prio`, `${transSel(2)} .ed-prio`);
      await noEditorError(page, 'transitions');
      const t = (await model(page)).machines[0].transitions.map((x) => `${x.from}>${x.to}`);
      check(t.join(' ') === 'Idle>Jump Idle>Move Move>Jump Move>Idle Jump>Idle', 'order: ' + t.join(' '));
      // the same hysteresis on Idle -> Move and Move -> Idle
      await type(page, `${transSel(1)} input[data-kind="hysteresis"]`, '0.05');
      await type(page, `${transSel(3)} input[data-kind="hysteresis"]`, '0.05');
      const ts = (await model(page)).machines[0].transitions;
      check(ts[1].when[0].hysteresis === 0.05 && ts[3].when[0].hysteresis === 0.05, 'hysteresis: ' + JSON.stringify([ts[1], ts[3]]));
      const last = (await model(page)).machines[0].transitions[4];
      check(last.exit === 'end' && last.blend_time === 0.3 && last.mode === 'inertialize' && last.easing === 'linear', 'Jump>Idle: ' + JSON.stringify(last));
      // the character: velocity through its slider's control, then the trigger's button
      await page.evaluate(() => window.stanceLab.pause(true));
      const slider = page.locator('#as-params .param[data-param="velocity"] input[type=range]');
      await slider.fill('2');
      await step(page, 40);
      check(await current(page) === 'Move', 'velocity 2: ' + await current(page));
      await page.click('#as-params .param[data-param="jump"] button.act');
      await step(page, 2);
      check(await current(page) === 'Jump', 'jump: ' + await current(page));
      await slider.fill('0');
      await step(page, 200);
      check(await current(page) === 'Idle', 'after the jump ended: ' + await current(page));
      await shot('transitions');
    }],
    ['an upper-body Wave layer: mask painted by clicking Abdomen on the skeleton; undo and redo by keys', async () => {
      await page.click('#editor [data-act="add-layer"]');
      let m = await model(page);
      const layer = m.layers[1];
      check(layer && layer.mode === 'override', 'layer: ' + JSON.stringify(m.layers));
      // its machine: the Wave clip
      await pick(page, '#ed-machine', String(m.machines.findIndex((x) => x.name === layer.machine)));
      const s = (await model(page)).machines[1].states[0].name;
      await pick(page, `${stateSel(s)} select[data-kind="clip"]`, 'Wave');
      await page.locator('#editor .ed-item[data-layer="' + layer.name + '"] [data-act="paint"]').click();
      const c = page.locator('#ed-skeleton');
      await c.waitFor({ state: 'visible' });
      const at = await page.evaluate(() => window.StanceEditor.jointAt('Abdomen'));
      check(at, 'Abdomen is not drawn');
      await c.scrollIntoViewIfNeeded(); // the panel scrolls: a mouse click lands only on what is in view
      const b = await c.boundingBox();
      await page.mouse.click(b.x + at[0] * b.width / at[2], b.y + at[1] * b.height / at[3]);
      await noEditorError(page, 'mask');
      m = await model(page);
      const joints = m.layers[1].mask && m.layers[1].mask.joints;
      // the reference: Abdomen and every joint below it, from the CLI's skeleton listing
      const info = JSON.parse(execFileSync(cli, ['info', robot, '--json'], { encoding: 'utf8' }));
      const names = info.joints.map((x) => x.name), parents = info.joints.map((x) => names.indexOf(x.parent));
      const under = (j) => j === names.indexOf('Abdomen') || (parents[j] >= 0 && under(parents[j]));
      const want = names.filter((n, j) => under(j));
      check(JSON.stringify(joints) === JSON.stringify(want), `mask ${JSON.stringify(joints)}, Abdomen's chain ${JSON.stringify(want)}`);
      console.log(`       painted ${joints.length} joints (Abdomen and below)`);
      await shot('mask');
      // undo (Ctrl+Z) takes the mask away, redo (Ctrl+Y) brings it back
      await page.locator('#ed-body h3').first().click();
      await page.keyboard.press('Control+z');
      check(!(await model(page)).layers[1].mask, 'undo left the mask');
      await page.keyboard.press('Control+y');
      check(JSON.stringify((await model(page)).layers[1].mask.joints) === JSON.stringify(want), 'redo did not restore the mask');
      // the layer's settings
      await type(page, `#editor .ed-item[data-layer="${layer.name}"] .ed-name`, 'wave');
      await type(page, `${stateSel(s)} .ed-name`, 'Wave');
      const row = '#editor .ed-item[data-layer="wave"]';
      await pick(page, `${row} select[data-kind="space"]`, 'local');
      await type(page, `${row} input[data-kind="weight"]`, '1');
      await type(page, `${row} input[data-kind="priority"]`, '1');
      await noEditorError(page, 'layer');
      const ly = (await model(page)).layers[1];
      check(ly.name === 'wave' && ly.space === 'local' && ly.weight === 1 && ly.priority === 1, 'layer: ' + JSON.stringify(ly));
      check(await page.evaluate(() => window.stanceLab.machine() !== null), 'no machine drawn');
    }],
    ['saved JSON: valid against docs/graph.schema.json, accepted by stance graph-check, run by stance scenario --graph', async () => {
      await type(page, '#ed-asset', robot);
      await noEditorError(page, 'asset');
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#ed-save-json')]);
      await dl.saveAs(saved);
      const doc = JSON.parse(fs.readFileSync(saved, 'utf8'));
      check(doc.layers.length === 2 && doc.machines[0].states.length === 3, 'saved: ' + JSON.stringify(doc).slice(0, 200));
      const py = spawnSync('python3', ['-c', `
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
errs = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
print("; ".join(e.message for e in errs[:3]) or "valid")
sys.exit(1 if errs else 0)`, path.join(root, 'docs', 'graph.schema.json'), saved], { encoding: 'utf8' });
      check(py.status === 0, 'schema: ' + py.stdout + py.stderr);
      const gc = spawnSync(cli, ['graph-check', saved], { encoding: 'utf8' });
      check(gc.status === 0, 'graph-check: ' + gc.stdout + gc.stderr);
      console.log('       ' + gc.stdout.split('\n')[0]);
      const script = path.join(artifacts, 'editor-script.json');
      fs.writeFileSync(script, JSON.stringify({ duration: 10, changes: [
        { t: 0, set: { velocity: 0 } }, { t: 1, set: { velocity: 2 } }, { t: 4, trigger: 'jump' }, { t: 6, set: { velocity: 0 } }] }));
      const sc = spawnSync(cli, ['scenario', '--graph', saved, '--script', script, '--mode', 'crossfade', '--json'], { encoding: 'utf8' });
      check(sc.status === 0, 'scenario: ' + sc.stdout + sc.stderr);
      const r = JSON.parse(sc.stdout);
      console.log('       stance scenario: ' + JSON.stringify(r).slice(0, 160));
    }],
    ['the page\'s poses over the scripted 10 s equal `stance scenario --poses` on the saved JSON (within 1e-5)', async () => {
      const script = path.join(artifacts, 'editor-script.json'), out = path.join(artifacts, 'editor-poses.json');
      execFileSync(cli, ['scenario', '--graph', saved, '--script', script, '--mode', 'crossfade', '--poses', out], { stdio: 'pipe' });
      const ref = JSON.parse(fs.readFileSync(out, 'utf8'));
      const got = await page.evaluate((s) => {
        let mode = -1;
        for (let i = 0; i < Module._lab_mode_count(); i++) if (Module.UTF8ToString(Module._lab_mode_name(i)) === 'crossfade') mode = i;
        return window.StanceEditor.scenario(s, mode, 0.25, 0);
      }, fs.readFileSync(script, 'utf8'));
      check(!got.error, 'page: ' + got.error);
      check(got.frames === ref.frames.length && got.frames === 600 && got.joints === ref.joints, `frames ${got.frames} / ${ref.frames.length}, joints ${got.joints} / ${ref.joints}`);
      let worst = 0, at = -1, moved = 0;
      for (let f = 0; f < got.frames; f++)
        for (let k = 0; k < 3 * got.joints; k++) {
          const d = Math.abs(got.poses[f * 3 * got.joints + k] - ref.frames[f][k]);
          if (d > worst) { worst = d; at = f; }
          if (f) moved = Math.max(moved, Math.abs(ref.frames[f][k] - ref.frames[0][k]));
        }
      check(moved > 0.1, 'the script does not move the character: ' + moved);
      check(worst <= 1e-5, `largest difference ${worst} m at frame ${at}`);
      console.log(`       600 frames x ${got.joints} joints: largest difference ${worst} m (the poses move up to ${moved.toFixed(3)} m)`);
    }],
    ['saved .stance: the CLI loads the compiled graph with the same parameters, states and layers', async () => {
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#ed-save-stance')]);
      await dl.saveAs(savedStance);
      // the reference: the CLI's own compile of the saved JSON
      const ref = path.join(artifacts, 'editor-cli.stance');
      execFileSync(cli, ['compile', saved, '-o', ref], { stdio: 'pipe' });
      const a = spawnSync(cli, ['graph-check', savedStance], { encoding: 'utf8' });
      const b = spawnSync(cli, ['graph-check', ref], { encoding: 'utf8' });
      check(fs.readFileSync(savedStance).equals(fs.readFileSync(ref)), 'the page\'s .stance and `stance compile`\'s differ in their bytes');
      check(a.status === 0, 'graph-check .stance: ' + a.stdout + a.stderr);
      const body = (s) => s.split('\n').slice(2).join('\n'); // after the file's and the asset's lines
      check(body(a.stdout) === body(b.stdout), `.stance and .json describe different graphs:\n${a.stdout}\n--\n${b.stdout}`);
      const info = JSON.parse(execFileSync(cli, ['info', savedStance, '--json'], { encoding: 'utf8' }));
      check(info.clips.length === 5, 'clips kept: ' + info.clips.map((c) => c.name).join(', '));
    }],
    ['an error is the CLI\'s FILE:LINE:COL message, and fixing it runs again', async () => {
      await pick(page, '#ed-machine', '0');
      await type(page, `${transSel(4)} input[data-kind="blend"]`, '-1');
      const e = await edError(page);
      const bad = path.join(artifacts, 'editor-bad.json');
      fs.writeFileSync(bad, await page.evaluate(() => window.StanceEditor.text()));
      const gc = spawnSync(cli, ['graph-check', bad], { encoding: 'utf8' });
      const cliMsg = gc.stderr.trim().replace(/^stance: /, '').replace(bad, 'graph.json');
      check(gc.status !== 0 && e === cliMsg, `page: ${e}\n CLI: ${cliMsg}`);
      console.log('       ' + e);
      check(await page.locator('#ed-json').getAttribute('data-error-line') === e.split(':')[1], 'the text does not mark the line');
      await shot('error');
      await page.locator('#ed-body h3').first().click();
      await page.keyboard.press('Control+z');
      check(await edError(page) === '', 'undo did not clear the error: ' + await edError(page));
    }],
    ['a compiled graph opens as an editable model and rebuilds to the same graph', async () => {
      await page.setInputFiles('#file', savedStance);
      await page.waitForFunction(() => document.querySelector('#as-file').textContent === 'editor-graph.stance', null, { timeout: HANG_MS });
      await page.click('#ed-open');
      await noEditorError(page, 'open');
      await edited(page);
      const m = await model(page);
      const want = JSON.parse(fs.readFileSync(saved, 'utf8'));
      const names = (d) => JSON.stringify([d.params.map((p) => p.name + ':' + p.type), d.machines.map((x) => [x.name, x.states.map((s) => s.name),
        (x.transitions || []).map((t) => t.from + '>' + t.to)]), d.layers.map((l) => [l.name, l.machine, (l.mask && (l.mask.joints || Object.keys(l.mask.weights))) || []])]);
      check(names(m) === names(want), `opened ${names(m)}\n saved ${names(want)}`);
      // rename a state: its transitions follow
      await type(page, `${stateSel('Move')} .ed-name`, 'Locomote');
      await noEditorError(page, 'rename');
      const t = (await model(page)).machines[0].transitions.map((x) => `${x.from}>${x.to}`).join(' ');
      check(t === 'Idle>Jump Idle>Locomote Locomote>Jump Locomote>Idle Jump>Idle', 'after the rename: ' + t);
    }],
    ['16 parameters at 1280x720: the side panel stays inside the window and scrolls to the last', async () => {
      await page.setViewportSize({ width: 1280, height: 720 });
      for (let k = 0; k < 14; k++) { await page.fill('#ed-new-param', 'p' + k); await page.click('#ed-add-param'); }
      await noEditorError(page, 'params');
      const n = await page.locator('#as-params .param').count();
      check(n === 16, 'controls: ' + n);
      const panel = await page.locator('.panel').boundingBox();
      check(panel.y + panel.height <= 720, `the panel ends at ${panel.y + panel.height} px`);
      const last = page.locator('#as-params .param').last();
      await last.scrollIntoViewIfNeeded();
      const lb = await last.boundingBox();
      check(lb.y >= 0 && lb.y + lb.height <= 720, 'the last control is at ' + JSON.stringify(lb));
      await shot('720');
      check(consoleErrors.length === 0, 'console errors: ' + consoleErrors.join(' | '));
    }],
  ];
  await runTests(tests, { browser, server, lines: Infinity });
}
main().catch((e) => { console.error(e); console.log('0 passed, 1 failed'); process.exit(1); });
