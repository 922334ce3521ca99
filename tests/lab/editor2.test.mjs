// tests/lab/editor2.test.mjs - browser tests of the graph editor's second part (issue 28): states
// placed on the diagram by drag (the "editor" key of docs/graph-format.md), nested machines drawn
// inside their state and opened by a double click, form controls for any_of groups,
// uninterruptible, allow_self, a state's speed and speed parameter, a layer's weight from a
// parameter or a curve and an IK entry's weight, the "Any state" box, and the side by side view
// of a switch under two modes (lab/lab_split.js). Real clicks and key presses in headless
// Chromium (tests/lab/browser.mjs); outcomes checked: the model and the saved JSON, the schema and
// `stance graph-check`, `stance compile` with and without the editor's places, the character's
// states and layer weight, the diagram's pixels, and the two halves' poses and pixels.
// Screenshots go to build-lab/artifacts/editor2-*.png. The page is paused and stepped.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cli, artifacts, DATA, check, root, labDir, HANG_MS, browserPath, openLab, runTests, webglProblem, ghostDistance } from './browser.mjs';
import { edError, type, noEditorError, stateSel, transSel, model, pick, validate } from './editor_util.mjs';

const GLB = path.join(DATA, 'robot_expressive', 'RobotExpressive.glb');

const step = (page, n) => page.evaluate((k) => window.stanceLab.step(k), n);
const machine = (page) => page.evaluate(() => window.stanceLab.machine());
const current = async (page) => (await machine(page)).current;

// a point of the diagram (canvas pixels of #graph) as a client point
async function graphPoint(page, x, y) {
  const b = await page.locator('#graph').boundingBox();
  return [b.x + x * b.width / 960, b.y + y * b.height / 230];
}
// the colour the diagram drew at a canvas point
const graphPixel = (page, x, y) => page.evaluate(([px, py]) => Array.from(document.getElementById('graph').getContext('2d').getImageData(px, py, 1, 1).data), [Math.round(x), Math.round(y)]);

async function main() {
  const { server, browser, page, consoleErrors } = await openLab('editor2', [[labDir + '/index.html', 'build-lab (make lab)'], [cli, 'the CLI (make build)'], [browserPath, 'chromium'], [GLB, 'RobotExpressive (../shared/data)']], 'stance-editor2-chromium-');
  fs.mkdirSync(artifacts, { recursive: true });
  const robot = path.join(artifacts, 'editor2-robot.stance');
  execFileSync(cli, ['import', GLB, '-o', robot], { stdio: 'pipe' });
  const problem = await webglProblem(page);
  if (problem) console.log('note: WebGL2: ' + problem.why);
  const saved = path.join(artifacts, 'editor2-graph.json');
  const shot = async (name) => page.screenshot({ path: path.join(artifacts, `editor2-${name}.png`) });
  let sw = -1; // the split view's switch

  const tests = [
    ['a graph with a nested machine, built by clicks: Base (Idle, Loco = machine Locomotion, Jump), Locomotion (Walk, Run)', async () => {
      await page.click('#tab-as');
      await page.setInputFiles('#file', robot);
      await page.waitForFunction(() => document.querySelector('#as-file').textContent === 'editor2-robot.stance', null, { timeout: HANG_MS });
      await page.evaluate(() => window.stanceLab.pause(true));
      await page.click('#editor > summary');
      await page.click('#ed-new');
      for (const [name, t] of [['velocity', 'float'], ['jump', 'trigger'], ['wave', 'float']]) {
        await page.fill('#ed-new-param', name);
        await pick(page, '#ed-new-param-type', t);
        await page.click('#ed-add-param');
      }
      const addClip = async (name, clip) => {
        await page.click('#editor [data-act="add-clip"]');
        const st = (await model(page)).machines[Number(await page.locator('#ed-machine').inputValue())].states;
        await type(page, `${stateSel(st[st.length - 1].name)} .ed-name`, name);
        if (clip) await pick(page, `${stateSel(name)} select[data-kind="clip"]`, clip);
      };
      const addTrans = async (from, to, cond) => {
        await page.click('#editor [data-act="add-transition"]');
        const i = (await model(page)).machines[Number(await page.locator('#ed-machine').inputValue())].transitions.length - 1;
        await pick(page, `${transSel(i)} select[data-kind="from"]`, from);
        await pick(page, `${transSel(i)} select[data-kind="to"]`, to);
        if (cond) {
          await page.click(`${transSel(i)} [data-act="add-cond"]`);
          await pick(page, `${transSel(i)} select[data-kind="cond-param"]`, cond[0]);
          if (cond[1]) { await pick(page, `${transSel(i)} select[data-kind="op"]`, cond[1]); await type(page, `${transSel(i)} input[data-kind="value"]`, cond[2]); }
        }
        return i;
      };
      await addClip('Idle', 'Idle');
      await addClip('Jump', 'Jump');
      await page.locator(`${stateSel('Jump')} label:has-text("once") input`).check();
      await addClip('Loco', 'Walking');
      // the nested machine
      await page.click('#ed-add-machine');
      await type(page, '#ed-machine-name', 'Locomotion');
      await addClip('Walk', 'Walking');
      await addClip('Run', 'Running');
      await addTrans('Walk', 'Run', ['velocity', '>=', 2]);
      await addTrans('Run', 'Walk', ['velocity', '<', 2]);
      // Run at 1.25 x; Walk's rate times velocity
      await type(page, `${stateSel('Run')} input[data-kind="speed"]`, '1.25');
      await pick(page, `${stateSel('Walk')} select[data-kind="speed-param"]`, 'velocity');
      await pick(page, '#ed-machine', '0');
      await pick(page, `${stateSel('Loco')} select[data-kind="motion"]`, 'machine');
      await addTrans('Idle', 'Loco', ['velocity', '>=', 0.1]);
      await addTrans('Loco', 'Idle', ['velocity', '<', 0.1]);
      // * -> Jump: on the trigger OR at velocity >= 4 (two any_of groups), uninterruptible, may restart Jump
      const any = await addTrans('*', 'Jump', null);
      await page.click(`${transSel(any)} [data-act="add-group"]`);
      await pick(page, `${transSel(any)} .ed-group[data-group="0"] select[data-kind="cond-param"]`, 'jump');
      await page.click(`${transSel(any)} [data-act="add-group"]`);
      await pick(page, `${transSel(any)} .ed-group[data-group="1"] select[data-kind="op"]`, '>=');
      await type(page, `${transSel(any)} .ed-group[data-group="1"] input[data-kind="value"]`, '4');
      await page.locator(`${transSel(any)} input[data-kind="uninterruptible"]`).check();
      await page.locator(`${transSel(any)} input[data-kind="allow-self"]`).check();
      const back = await addTrans('Jump', 'Idle', null);
      await pick(page, `${transSel(back)} select[data-kind="exit"]`, 'end');
      await noEditorError(page, 'the graph');
      const m = await model(page);
      const base = m.machines[0], loco = m.machines[1];
      check(base.states.find((s) => s.name === 'Loco').machine === 'Locomotion', 'Loco: ' + JSON.stringify(base.states));
      const t = base.transitions[any];
      check(JSON.stringify(t) === JSON.stringify({ from: '*', to: 'Jump', when: [], any_of: [[{ param: 'jump' }], [{ param: 'velocity', op: '>=', value: 4 }]],
        uninterruptible: true, allow_self: true }), '* -> Jump: ' + JSON.stringify(t));
      check(loco.states[1].speed === 1.25 && loco.states[0].speed_param === 'velocity', 'speeds: ' + JSON.stringify(loco.states));
      // one group deleted by its button, then back by Ctrl+Z
      await page.click(`${transSel(any)} .ed-group[data-group="1"] [data-act="del-group"]`);
      check((await model(page)).machines[0].transitions[any].any_of.length === 1, 'the group was not deleted');
      await page.locator('#ed-body h3').first().click();
      await page.keyboard.press('Control+z');
      check((await model(page)).machines[0].transitions[any].any_of.length === 2, 'undo did not bring the group back');
      await noEditorError(page, 'undo');
    }],
    ['the character runs it: Loco (Walk, then Run in the nested machine), Jump on the trigger and on the second group', async () => {
      const slider = page.locator('#as-params .param[data-param="velocity"] input[type=range]');
      await slider.fill('1');
      await step(page, 30);
      check(await current(page) === 'Loco', 'velocity 1: ' + await current(page));
      const inner = await page.evaluate(() => { const L = window.Module, d = JSON.parse(L.UTF8ToString(L._lab_graph_json(2))), live = new Float32Array(L.HEAPF32.buffer, L._lab_live(2), 3 * d.machines.length);
        return d.states[live[3]].name; });
      check(inner === 'Walk', 'the nested machine plays ' + inner);
      await slider.fill('2.5');
      await step(page, 30);
      const inner2 = await page.evaluate(() => { const L = window.Module, d = JSON.parse(L.UTF8ToString(L._lab_graph_json(2))), live = new Float32Array(L.HEAPF32.buffer, L._lab_live(2), 3 * d.machines.length);
        return d.states[live[3]].name; });
      check(inner2 === 'Run', 'velocity 2.5: the nested machine plays ' + inner2);
      await page.click('#as-params .param[data-param="jump"] button.act');
      await step(page, 3);
      const mj = await machine(page);
      check(mj.current === 'Jump', 'jump: ' + mj.current);
      check(mj.transition === 'Loco->Jump', 'the running transition: ' + mj.transition);
      // "Any state" is never drawn as a state: white and dashed while its arrow runs, the current state orange
      check(mj.styles['Any state'].fill === '#ffffff' && mj.styles['Any state'].dash && mj.styles.Jump.fill === '#f59f00',
        'styles: ' + JSON.stringify(mj.styles));
      const ab = mj.boxes['Any state'], jb = mj.boxes.Jump;
      const pa = await graphPixel(page, ab[0] - ab[2] / 2 + 14, ab[1] - 6), pj = await graphPixel(page, jb[0] - jb[2] / 2 + 8, jb[1] - jb[3] / 2 + 5);
      check(pa[0] > 245 && pa[1] > 245 && pa[2] > 245, 'the Any state box is drawn ' + pa);
      check(pj[0] === 245 && pj[1] === 159 && pj[2] === 0, 'the current state is drawn ' + pj);
      await shot('any-state');
      await slider.fill('0');
      await step(page, 150);
      check(await current(page) === 'Idle', 'after the jump: ' + await current(page));
      await slider.fill('4.5'); // the second group, no trigger
      await step(page, 2);
      check(await current(page) === 'Jump', 'velocity 4.5 did not reach Jump: ' + await current(page));
      await slider.fill('0');
      await step(page, 150);
    }],
    ['the nested machine is drawn inside Loco (its current state deep orange) and opens on a double click', async () => {
      const slider = page.locator('#as-params .param[data-param="velocity"] input[type=range]');
      await slider.fill('2.5');
      await step(page, 40);
      const m = await machine(page);
      check(m.current === 'Loco' && m.machine === 'Base', 'shown: ' + m.machine + ' ' + m.current);
      const b = m.boxes.Loco;
      check(b[2] === 140 && b[3] === 60, 'Loco\'s box: ' + b);
      // the inner states' chips: Walk, Run in one row of two ((140 - 8) / 2 px each), Run orange
      const cw = (b[2] - 8) / 2, y = b[1] - b[3] / 2 + 19 + 4;
      const walk = await graphPixel(page, b[0] - b[2] / 2 + 4 + 4, y), run = await graphPixel(page, b[0] - b[2] / 2 + 4 + cw + 4, y);
      check(run[0] === 217 && run[1] === 72 && run[2] === 15, 'Run\'s chip is drawn ' + run);
      check(walk[0] === 238 && walk[1] === 242 && walk[2] === 255, 'Walk\'s chip is drawn ' + walk);
      await shot('nested');
      const [x, yy] = await graphPoint(page, b[0], b[1]);
      await page.mouse.dblclick(x, yy);
      await step(page, 1);
      const n = await machine(page);
      check(n.machine === 'Locomotion' && n.current === 'Run' && !n.base, 'opened: ' + JSON.stringify([n.machine, n.current]));
      check(JSON.stringify(n.states) === '["Walk","Run"]', 'states drawn: ' + n.states);
      await shot('nested-open');
      const [bx, by] = await graphPoint(page, 20, 222); // the "< Base" line
      await page.mouse.click(bx, by);
      await step(page, 1);
      check((await machine(page)).machine === 'Base', 'back: ' + (await machine(page)).machine);
      await slider.fill('0');
      await step(page, 60);
    }],
    ['a state dragged on the diagram keeps its place in the JSON; the character runs on; Ctrl+Z puts it back', async () => {
      const m0 = await machine(page);
      const j = m0.boxes.Jump;
      const before = await page.evaluate(() => [window.Module._lab_time(2), window.stanceLab.machine().current]);
      const [x0, y0] = await graphPoint(page, j[0], j[1]);
      const [x1, y1] = await graphPoint(page, 560, 60);
      await page.mouse.move(x0, y0);
      await page.mouse.down();
      await page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, { steps: 4 });
      await page.mouse.move(x1, y1, { steps: 4 });
      await page.mouse.up();
      await step(page, 0);
      const st = (await model(page)).machines[0].states.find((s) => s.name === 'Jump');
      check(st.editor && Math.abs(st.editor.x - 560) <= 1 && Math.abs(st.editor.y - 60) <= 1, 'Jump\'s place: ' + JSON.stringify(st.editor));
      const m1 = await machine(page);
      check(Math.abs(m1.boxes.Jump[0] - st.editor.x) <= 0.5 && Math.abs(m1.boxes.Jump[1] - st.editor.y) <= 0.5, 'drawn at ' + m1.boxes.Jump);
      const after = await page.evaluate(() => [window.Module._lab_time(2), window.stanceLab.machine().current]);
      check(JSON.stringify(after) === JSON.stringify(before), `the graph was rebuilt: ${before} -> ${after}`);
      // Idle too, so two places are saved
      const i = m1.boxes.Idle;
      const [a0, b0] = await graphPoint(page, i[0], i[1]), [a1, b1] = await graphPoint(page, 120, 150);
      await page.mouse.move(a0, b0); await page.mouse.down(); await page.mouse.move(a1, b1, { steps: 6 }); await page.mouse.up();
      check(JSON.stringify((await model(page)).machines[0].states[0].editor) === '{"x":120,"y":150}', 'Idle: ' + JSON.stringify((await model(page)).machines[0].states[0].editor));
      await page.locator('#ed-body h3').first().click();
      await page.keyboard.press('Control+z');
      check(!(await model(page)).machines[0].states[0].editor, 'undo left Idle\'s place');
      await page.keyboard.press('Control+y');
      check((await model(page)).machines[0].states[0].editor.x === 120, 'redo');
      const undone = await page.evaluate(() => [window.Module._lab_time(2), window.stanceLab.machine().current]);
      check(JSON.stringify(undone) === JSON.stringify(before), `undoing a move rebuilt the graph: ${before} -> ${undone}`);
      await noEditorError(page, 'places');
      await step(page, 1);
      await shot('placed');
    }],
    ['a layer\'s weight from a parameter: set by the selects, it follows the wave slider', async () => {
      await page.click('#editor [data-act="add-layer"]');
      const m = await model(page);
      const layer = m.layers[1];
      await pick(page, '#ed-machine', String(m.machines.findIndex((x) => x.name === layer.machine)));
      const s = (await model(page)).machines.find((x) => x.name === layer.machine).states[0].name;
      await pick(page, `${stateSel(s)} select[data-kind="clip"]`, 'Wave');
      const row = `#editor .ed-item[data-layer="${layer.name}"]`;
      await pick(page, `${row} select[data-kind="weight-kind"]`, 'param');
      await pick(page, `${row} select[data-kind="weight-param"]`, 'wave');
      await noEditorError(page, 'layer');
      check(JSON.stringify((await model(page)).layers[1].weight) === '{"param":"wave"}', 'weight: ' + JSON.stringify((await model(page)).layers[1].weight));
      const wave = page.locator('#as-params .param[data-param="wave"] input[type=range]');
      for (const w of ['0.7', '0.2']) {
        await wave.fill(w);
        await step(page, 2);
        const got = (await machine(page)).layers[1];
        check(Math.abs(got - Number(w)) < 1e-6, `wave ${w}: the layer's weight is ${got}`);
      }
      await pick(page, '#ed-machine', '0');
      await shot('layer-weight');
    }],
    ['saved JSON: schema, graph-check and scenario accept it; the places change no byte of the compiled graph; a bad place is an error at its line', async () => {
      await type(page, '#ed-asset', robot);
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#ed-save-json')]);
      await dl.saveAs(saved);
      const doc = JSON.parse(fs.readFileSync(saved, 'utf8'));
      check(doc.machines[0].states[0].editor.x === 120 && doc.machines[0].states[1].editor.y === 60, 'places saved: ' + JSON.stringify(doc.machines[0].states));
      const v = validate(saved);
      check(v.status === 0, 'schema: ' + v.stdout + v.stderr);
      const gc = spawnSync(cli, ['graph-check', saved], { encoding: 'utf8' });
      check(gc.status === 0, 'graph-check: ' + gc.stdout + gc.stderr);
      console.log('       ' + gc.stdout.split('\n')[0]);
      const script = path.join(artifacts, 'editor2-script.json');
      fs.writeFileSync(script, JSON.stringify({ duration: 6, changes: [{ t: 0, set: { velocity: 0, wave: 0.5 } }, { t: 1, set: { velocity: 2.5 } }, { t: 3, trigger: 'jump' }, { t: 4, set: { velocity: 0 } }] }));
      const sc = spawnSync(cli, ['scenario', '--graph', saved, '--script', script, '--mode', 'crossfade', '--json'], { encoding: 'utf8' });
      check(sc.status === 0, 'scenario: ' + sc.stdout + sc.stderr);
      // the same document without the places compiles to the same bytes
      const bare = JSON.parse(JSON.stringify(doc));
      for (const mc of bare.machines) for (const s of mc.states) delete s.editor;
      const barePath = path.join(artifacts, 'editor2-bare.json');
      fs.writeFileSync(barePath, JSON.stringify(bare, null, 2));
      execFileSync(cli, ['compile', saved, '-o', path.join(artifacts, 'editor2-a.stance')], { stdio: 'pipe' });
      execFileSync(cli, ['compile', barePath, '-o', path.join(artifacts, 'editor2-b.stance')], { stdio: 'pipe' });
      check(fs.readFileSync(path.join(artifacts, 'editor2-a.stance')).equals(fs.readFileSync(path.join(artifacts, 'editor2-b.stance'))), 'the places changed the compiled file');
      // a place that is not a number: graph-check's one line at its line and column, schema too
      const badText = fs.readFileSync(saved, 'utf8').replace('"x": 120', '"x": "left"');
      check(badText.includes('"left"'), 'no place to break');
      const bad = path.join(artifacts, 'editor2-bad.json');
      fs.writeFileSync(bad, badText);
      const gb = spawnSync(cli, ['graph-check', bad], { encoding: 'utf8' });
      const i = badText.indexOf('"left"'), line = badText.slice(0, i).split('\n').length, col = i - badText.lastIndexOf('\n', i - 1);
      check(gb.status !== 0 && gb.stderr.includes(`${bad}:${line}:${col}: "x": expected a number`), 'graph-check on a bad place: ' + gb.stderr);
      check(validate(bad).status !== 0, 'the schema takes a bad place');
      console.log('       ' + gb.stderr.trim().replace(bad, 'editor2-bad.json'));
    }],
    ['side by side: the same switch as played (crossfade) and under cut, two whole characters driven by the tape', async () => {
      const slider = page.locator('#as-params .param[data-param="velocity"] input[type=range]');
      await slider.fill('0');
      await step(page, 200);
      await slider.fill('1');
      await step(page, 40);
      let d = await page.evaluate(() => window.StanceTime.data());
      for (let i = d.frames - 1; i >= 0 && sw < 0; i--) if (d.jump[i] >= 0) sw = i;
      check(sw >= 0 && d.frames - 1 - sw < 40, 'no switch in the last 40 frames: ' + sw);
      await page.selectOption('#time-ghost', { label: 'cut' });
      await page.locator('#time-split').check();
      const want = d.frames - 1 - (sw + 3); // 3 frames after the switch
      await page.locator('#view').click({ position: { x: 5, y: 5 } });
      let c = d.cursor;
      while (c !== want) { await page.keyboard.press(c < want ? ',' : '.'); c = (await page.evaluate(() => window.StanceTime.data())).cursor; }
      await page.evaluate(() => window.stanceLab.frame());
      d = await page.evaluate(() => window.StanceTime.data());
      check(d.ghost && d.ghostStart === d.frames - 1 - sw, `the ghost starts ${d.ghostStart} back, the switch is ${d.frames - 1 - sw}`);
      check(d.ghostDiff === 0 && d.ghostSame === d.ghostFrames, `the replay as recorded differs from the tape on ${d.ghostDiff} of ${d.ghostFrames} frames`);
      const shown = await page.evaluate(() => window.StanceSplit.shown());
      check(shown && shown.replayed && shown.back === want, 'split: ' + JSON.stringify(shown));
      const dist = await ghostDistance(page, 2, want);
      check(dist > 0.005, `the two modes' poses are ${(dist * 100).toFixed(3)} cm apart`);
      const halves = async () => page.evaluate(async () => {
        const s = await window.stanceLab.sample(false, true), w = s.box.x1 - s.box.x0, h = s.box.y1 - s.box.y0, half = w / 2;
        let diff = 0, drawn = 0;
        for (let y = 0; y < h; y++) for (let x = 0; x < half; x++) {
          const a = 4 * (y * w + x), b = a + 4 * half;
          if (Math.abs(s.data[a] - 240) + Math.abs(s.data[a + 1] - 242) + Math.abs(s.data[a + 2] - 245) > 40) drawn++;
          if (Math.abs(s.data[a] - s.data[b]) + Math.abs(s.data[a + 1] - s.data[b + 1]) + Math.abs(s.data[a + 2] - s.data[b + 2]) > 24) diff++;
        }
        return { diff, drawn, area: half * h };
      });
      const after = await halves();
      check(after.drawn > 2000 && after.diff > 300, `3 frames after the switch the halves differ in ${after.diff} pixels (${after.drawn} drawn in the left)`);
      check(/under cut/.test(await page.locator('#split-caption').textContent()), 'caption: ' + await page.locator('#split-caption').textContent());
      console.log(`       3 frames after the switch: poses ${(dist * 100).toFixed(2)} cm apart, ${after.diff} of ${after.area} pixels differ between the halves`);
      await shot('split');
      // 5 frames before the switch: the same pose on both sides, pixel for pixel
      const early = d.frames - 1 - (sw - 5);
      while (c !== early) { await page.keyboard.press(c < early ? ',' : '.'); c = (await page.evaluate(() => window.StanceTime.data())).cursor; }
      await page.evaluate(() => window.stanceLab.frame());
      const sh2 = await page.evaluate(() => window.StanceSplit.shown());
      check(sh2 && !sh2.replayed && sh2.back === early, 'before the switch: ' + JSON.stringify(sh2));
      const before = await halves();
      check(before.drawn > 2000 && before.diff === 0, `before the switch the halves differ in ${before.diff} pixels`);
      await shot('split-before');
      await page.locator('#time-split').uncheck();
      await page.evaluate(() => window.stanceLab.frame());
      check(await page.evaluate(() => window.StanceSplit.shown()) === null, 'one view again');
      check(!(await page.locator('#split-caption').isVisible()), 'the two halves\' captions stay');
      await pick(page, '#time-ghost', '-1');
      await page.click('#time-cut');
    }],
    ['an IK entry\'s weight and a layer\'s curve weight (graphs/robot_curves.json) get their own controls', async () => {
      await page.setInputFiles('#ed-file', path.join(root, 'graphs', 'robot_curves.json'));
      await page.waitForFunction(() => window.StanceEditor.model() && window.StanceEditor.model().ik, null, { timeout: HANG_MS });
      await noEditorError(page, 'robot_curves.json');
      const row = '#editor .ed-row[data-ik="look"]';
      check(await page.locator(`${row} select[data-kind="ik-weight-kind"]`).inputValue() === 'param' &&
        await page.locator(`${row} select[data-kind="ik-weight-param"]`).inputValue() === 'aim', 'IK weight controls');
      const lrow = '#editor .ed-item[data-layer="wave"]';
      check(await page.locator(`${lrow} select[data-kind="weight-kind"]`).inputValue() === 'curve' &&
        await page.locator(`${lrow} select[data-kind="weight-curve"]`).inputValue() === 'WaveWeight', 'layer weight controls');
      await pick(page, `${row} select[data-kind="ik-weight-kind"]`, 'curve');
      await pick(page, `${row} select[data-kind="ik-weight-curve"]`, 'WaveWeight');
      await noEditorError(page, 'IK weight');
      check(JSON.stringify((await model(page)).ik[0].weight) === '{"curve":"WaveWeight"}', 'IK weight: ' + JSON.stringify((await model(page)).ik[0].weight));
      await pick(page, `${row} select[data-kind="ik-weight-kind"]`, 'none');
      check((await model(page)).ik[0].weight === undefined, 'IK weight not removed');
      await page.locator(`${row} select[data-kind="ik-weight-kind"]`).scrollIntoViewIfNeeded();
      await shot('ik');
      await type(page, '#ed-asset', robot);
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#ed-save-json')]);
      const out = path.join(artifacts, 'editor2-curves.json');
      await dl.saveAs(out);
      const gc = spawnSync(cli, ['graph-check', out], { encoding: 'utf8' });
      check(gc.status === 0, 'graph-check: ' + gc.stdout + gc.stderr);
      check(validate(out).status === 0, 'schema: ' + validate(out).stdout);
      check(consoleErrors.length === 0, 'console errors: ' + consoleErrors.join(' | '));
    }],
  ];
  await runTests(tests, { browser, server, lines: Infinity, onFail: (p, f) => shot('fail-' + p + '-' + f) });
}
main().catch((e) => { console.error(e); console.log('0 passed, 1 failed'); process.exit(1); });
