// tests/lab/editor_util.mjs - what the graph editor's browser tests (editor.test.mjs,
// editor2.test.mjs) share: the editor's error text, typing into a field as a user does,
// the check that the editor shows no error, and the selectors of a state's and a
// transition's item in the editor's lists.
function check(cond, msg) { if (!cond) throw new Error(msg); }

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
