// lab/lab_import.js - files dropped on the page or chosen (several at once): a .stance is
// loaded as it is; a .glb, or a .gltf with its .bin and images, is imported in WebAssembly
// by `stance import`'s own code (lab_import.cpp runs tools/cmd_import.c on Emscripten's
// in-memory file system) and the .stance it writes is loaded the same way, with its
// texture and vertex colour sections (the glTF's base-colour images and COLOR_0, read by
// lab_texture.c; the images decoded by the browser). The glTF's look is also listed
// (lab_import.cpp): which image each primitive shows, and why one is not kept. FBX,
// Collada, BVH and the other formats assimp reads get one line saying which command
// imports them (assimp is not built for WebAssembly).
'use strict';

window.StanceImport = (function () {
  const DIR = '/import';
  const CLI = { fbx: 'FBX', dae: 'Collada', zae: 'Collada', bvh: 'BVH', x: 'DirectX', smd: 'SMD', vta: 'SMD', md5mesh: 'MD5',
    md5anim: 'MD5', ms3d: 'MS3D', b3d: 'B3D', ase: 'ASE', obj: 'OBJ' };
  const ext = (n) => { const i = n.lastIndexOf('.'); return i < 0 ? '' : n.slice(i + 1).toLowerCase(); };
  const stem = (n) => { const i = n.lastIndexOf('.'); return i < 0 ? n : n.slice(0, i); };
  let errLines = null; // stderr of the running import (index.html's printErr calls report)
  const api = {
    current: null, // the look of the imported file: { prims, textures: [ImageBitmap|null] }
    file: null,    // the loaded .stance's texture and vertex colour sections (lab_texture.c):
                   // { meshes: [image|-1], textures: [ImageBitmap|null], colorData: [Float32Array (RGBA per vertex)|null] }
    last: null,    // { name, bytes (the .stance written), message (the command's stdout), ms }
    report(t) { if (errLines) errLines.push(String(t)); },
  };

  // The one-line message for a file the page cannot import.
  api.cliLine = function (name) {
    const e = ext(name), fmt = CLI[e];
    if (!fmt) return name + ': not a file the lab reads (.stance, .glb, or .gltf with its .bin and images)';
    return name + ': ' + fmt + ' needs the command line (assimp is not in the page): stance import ' + name + ' -o ' + stem(name) + '.stance';
  };

  function writeString(L, which, s) {
    const b = new TextEncoder().encode(s);
    if (b.length > 1023) throw new Error('the file name is too long');
    const p = L._lab_import_path(which);
    L.HEAPU8.set(b, p); L.HEAPU8[p + b.length] = 0;
  }

  function clearDir(FS) {
    try { FS.mkdir(DIR); } catch (e) { /* there */ }
    const walk = (d) => {
      for (const n of FS.readdir(d)) {
        if (n === '.' || n === '..') continue;
        const p = d + '/' + n;
        if (FS.isDir(FS.stat(p).mode)) { walk(p); FS.rmdir(p); } else FS.unlink(p);
      }
    };
    walk(DIR);
  }
  function put(FS, rel, bytes) {
    const parts = rel.split('/').filter((s) => s && s !== '.' && s !== '..');
    let d = DIR;
    for (const p of parts.slice(0, -1)) { d += '/' + p; try { FS.mkdir(d); } catch (e) { /* there */ } }
    FS.writeFile(DIR + '/' + parts.join('/'), bytes);
  }

  // A .gltf's external files (buffers, images) by their URIs: each dropped file is also
  // written where a URI names it (a URI with folders, "textures/a.png", finds "a.png").
  // Returns the URIs no dropped file answers.
  function placeExternal(FS, gltfBytes, byName) {
    let j;
    try { j = JSON.parse(new TextDecoder().decode(gltfBytes)); } catch (e) { return []; }
    const missing = [];
    for (const o of [...(j.buffers || []), ...(j.images || [])]) {
      if (!o || typeof o.uri !== 'string' || o.uri.startsWith('data:')) continue;
      let uri = o.uri;
      try { uri = decodeURIComponent(uri); } catch (e) { /* as written */ }
      const base = uri.split('/').pop();
      const f = byName.get(uri) || byName.get(base);
      if (!f) { missing.push(uri); continue; }
      if (uri !== f.name) put(FS, uri, f.bytes);
    }
    return missing;
  }

  // The glTF's look: prims as lab_import.cpp lists them, each image decoded once.
  async function readLook(L) {
    const s = L.UTF8ToString(L._lab_import_looks());
    if (!s) return null;
    const look = JSON.parse(s);
    look.textures = await Promise.all(look.images.map(async (im) => {
      if (!im.size) return null;
      const bytes = L.HEAPU8.slice(im.ptr, im.ptr + im.size);
      try { return await createImageBitmap(new Blob([bytes], { type: im.mime || undefined })); } catch (e) { return null; }
    }));
    return look;
  }

  // files: File objects dropped or chosen together. loadFile(File) loads a .stance into
  // the page (lab.js); say(text) shows a line under the file box; scale: stance import's
  // --scale (1: none). Resolves when done.
  api.open = async function (L, files, loadFile, say, scale) {
    files = Array.from(files);
    const main = files.find((f) => ext(f.name) === 'glb' || ext(f.name) === 'gltf') ||
      files.find((f) => ext(f.name) === 'stance') || files[0];
    if (!main) return;
    const e = ext(main.name);
    if (e !== 'glb' && e !== 'gltf') {
      if (CLI[e]) { say(api.cliLine(main.name)); return; }
      api.current = null; // a .stance (or anything else: its loader says what it is not)
      await loadFile(main);
      return;
    }
    const t0 = performance.now();
    const FS = L.FS;
    clearDir(FS);
    const byName = new Map();
    for (const f of files) byName.set(f.name, { name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) });
    for (const f of byName.values()) put(FS, f.name, f.bytes);
    const missing = e === 'gltf' ? placeExternal(FS, byName.get(main.name).bytes, byName) : [];
    FS.chdir(DIR);
    const out = stem(main.name).replace(/[^\w.-]/g, '_') + '.stance';
    writeString(L, 0, main.name);
    writeString(L, 1, out);
    errLines = [];
    let rc, lines;
    try { rc = L._lab_import_run(scale > 0 && scale !== 1 ? scale : 0); } catch (x) { // (an abort: out of memory, say)
      say(main.name + ': the import stopped: ' + (x && x.message ? x.message : x));
      return;
    } finally { lines = errLines; errLines = null; }
    if (rc !== 0) {
      const msg = lines.filter((l) => !/^stance: warning/.test(l)).map((l) => l.replace(/^stance: /, '')).join(' ');
      say(msg + (missing.length ? ' (not dropped with it: ' + missing.join(', ') + ')' : ''));
      return;
    }
    const bytes = FS.readFile(out);
    let look = null;
    try { look = await readLook(L); } catch (err) { look = null; }
    api.current = look;
    api.last = { name: main.name, bytes, ms: performance.now() - t0, warnings: lines };
    await loadFile(new File([bytes], out));
    const notes = look ? [...new Set(look.prims.map((p) => p.note).filter((n) => n))] : [];
    say('imported in the page from ' + main.name + ' (' + bytes.length + ' bytes of .stance, as stance import' +
      (scale > 0 && scale !== 1 ? ' --scale ' + scale : '') + ' writes it)' +
      (missing.length ? '; not dropped with it: ' + missing.join(', ') : '') + (notes.length ? '; ' + notes.join('; ') : '') +
      (lines.length ? '; ' + lines.length + ' warning' + (lines.length > 1 ? 's' : '') + ' of stance import (in the browser\'s console)' : ''), true);
  };

  // The texture section of a .stance about to be loaded (bytes: the whole file): each mesh's
  // base-colour image, decoded; api.file, or null when it has none. Returns "" or the
  // reader's message for a corrupt section (the file then loads without textures).
  api.fileLook = async function (L, bytes) {
    api.file = null;
    const p = L._lab_textures_buffer(bytes.length);
    if (!p) return 'textures: out of memory';
    L.HEAPU8.set(bytes, p);
    const s = L.UTF8ToString(L._lab_textures_read());
    if (!s) return L.UTF8ToString(L._lab_error());
    const t = JSON.parse(s);
    if (!t.images.length && !t.colors.length) return '';
    t.textures = await Promise.all(t.images.map(async (im) => {
      try { return await createImageBitmap(new Blob([L.HEAPU8.slice(im.ptr, im.ptr + im.size)], { type: im.mime })); } catch (e) { return null; }
    }));
    // vertex colours: 4 u16 (little-endian, as wasm) per vertex, value / 65535
    t.colorData = t.colors.map((c) => {
      if (!c) return null;
      const u = new Uint16Array(L.HEAPU8.slice(c.ptr, c.ptr + 8 * c.vertices).buffer), f = new Float32Array(u.length);
      for (let i = 0; i < u.length; i++) f[i] = u[i] / 65535;
      return f;
    });
    api.file = t;
    return '';
  };

  // bytes (Uint8Array): a .stance the page saves for the loaded file (the editor's "Save
  // .stance"), returned with the file's texture and vertex colour sections put in, as
  // `stance import` writes them (lab_texture.c); unchanged when the file has neither.
  // Throws the reader's message when they do not fit.
  api.withLooks = function (L, bytes) {
    if (!api.file) return bytes;
    const p = L._lab_looks_buffer(bytes.length);
    if (!p) throw new Error('save: out of memory');
    L.HEAPU8.set(bytes, p);
    const n = L._lab_looks_insert();
    if (n < 0) throw new Error(L.UTF8ToString(L._lab_error()));
    return n === 0 ? bytes : new Uint8Array(L.HEAPU8.buffer, L._lab_looks_saved(), n).slice();
  };

  // A mesh of view 2 or 3 as lab.js uploads it: the base-colour texture and vertex colours
  // of the file's sections (by mesh index), and the UVs and texture of a file imported here
  // (matched by name and vertex count).
  api.decorate = function (L, view, m, mesh) {
    if (view !== 2 && view !== 3) return mesh;
    const file = api.file, k = file && m < file.meshes.length ? file.meshes[m] : -1;
    if (k >= 0 && file.textures[k]) {
      const uv = L._lab_mesh_uvs(view, m);
      if (uv) { mesh.uvs = new Float32Array(L.HEAPU8.buffer, uv, mesh.positions.length / 3 * 2).slice(); mesh.texture = file.textures[k]; }
    }
    const colors = file && file.colorData[m];
    if (colors && colors.length === mesh.positions.length / 3 * 4) mesh.colors = colors;
    const look = api.current;
    if (!look) return mesh;
    const name = L.UTF8ToString(L._lab_mesh_name(view, m)), nv = mesh.positions.length / 3;
    const p = look.prims.find((q) => q.name === name && q.vertices === nv);
    if (!p) return mesh;
    const uv = L._lab_mesh_uvs(view, m);
    if (uv && p.image >= 0 && look.textures[p.image] && !mesh.texture) {
      mesh.uvs = new Float32Array(L.HEAPU8.buffer, uv, 2 * nv).slice();
      mesh.texture = look.textures[p.image];
    }
    return mesh;
  };

  return api;
})();
