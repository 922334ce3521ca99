// tests/lab/editor_util.mjs - what the graph editor's browser tests (editor.test.mjs,
// editor2.test.mjs, editor3.test.mjs) share: the editor's error text and model, typing
// into a field as a user does, picking from a list, the check that the editor shows no
// error, the selectors of a state's and a transition's item in the editor's lists, and a
// graph JSON file checked against docs/graph.schema.json (python3-jsonschema).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { root } from './browser.mjs';
function check(cond, msg) { if (!cond) throw new Error(msg); }

export const model = (page) => page.evaluate(() => window.StanceEditor.model());
export const pick = (page, sel, value) => page.locator(sel).selectOption(String(value));
// the schema's verdict on a graph JSON file: status 0 and "valid", else 1 and the first errors
export const validate = (file) => spawnSync('python3', ['-c', `
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
errs = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
print("; ".join(e.message for e in errs[:3]) or "valid")
sys.exit(1 if errs else 0)`, path.join(root, 'docs', 'graph.schema.json'), file], { encoding: 'utf8' });
export const edError = (page) => page.evaluate(() => window.StanceEditor.error());
// types into a text field and presses Enter (its change event)
export async function type(page, sel, value) {
  const f = page.locator(sel);
  await f.click({ clickCount: 3 });
  await page.keyboard.type(String(value));
  await page.keyboard.press('Enter');
}
export async function noEditorError(page, what) {
  const e = await edError(page);
  check(e === '', what + ': the editor shows an error: ' + e);
}
export const stateSel = (name) => `#editor .ed-item[data-state="${name}"]`;
export const transSel = (i) => `#editor .ed-item[data-transition="${i}"]`;
