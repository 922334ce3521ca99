// tests/lab/gltf_write.mjs - what the import and looks browser tests (import.test.mjs,
// looks.test.mjs) share: a glTF 2.0 quad written from the specification (vertex colours or
// a base-colour texture), its .glb container, a PNG written from the PNG specification,
// and the count of the view's pixels of given colours with the looks on and off.
import zlib from 'node:zlib';

// A glTF 2.0 file written here from the specification: a 2 m quad standing on two joints
// (root, and a child the animation turns), skinned to the root, one clip "Turn" of 1 s.
// colors: COLOR_0 red at the bottom and blue at the top; else TEXCOORD_0 over the quad and
// a base-colour texture whose image is at `imageUri` (the .bin at `binUri`, both external).
// Returns { gltf (the JSON object), bin (Buffer) }.
export function quadGltf({ colors, imageUri, binUri }) {
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
export function glb({ gltf, bin }) {
  let json = Buffer.from(JSON.stringify(gltf));
  json = Buffer.concat([json, Buffer.alloc((4 - json.length % 4) % 4, 0x20)]);
  const head = Buffer.alloc(12), jh = Buffer.alloc(8), bh = Buffer.alloc(8);
  head.write('glTF', 0); head.writeUInt32LE(2, 4); head.writeUInt32LE(12 + 8 + json.length + 8 + bin.length, 8);
  jh.writeUInt32LE(json.length, 0); jh.write('JSON', 4); bh.writeUInt32LE(bin.length, 0); bh.write('BIN\0', 4);
  return Buffer.concat([head, jh, json, bh, bin]);
}
// A PNG of w x h pixels of one RGB colour, written from the PNG specification (zlib from node).
export function png(w, h, rgb) {
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
export async function colourCount(page, tests) {
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

