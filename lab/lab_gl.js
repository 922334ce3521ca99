// lab/lab_gl.js - the lab's WebGL2 renderer (hand-written shaders): skinned
// meshes lit by a key light and ambient, a ground grid, an orbit camera
// (drag, wheel), a bones overlay, and one instanced draw for the crowd.
// Written for SwiftShader too (CI has no GPU, every vertex, triangle and pixel
// costs CPU time): the ground is long lines clipped here in front of the eye,
// not a full-screen shader nor thousands of segments; the crowd is lit per
// vertex and takes its world-placed matrices from one texture upload.
// Skinning matrices come from WebAssembly (stance_skin_matrices) and are
// uploaded as an RGBA32F texture: one row per skin (or per crowd member),
// three texels (the matrix's top rows) per joint.
'use strict';

window.StanceGL = (function () {
  // one character: per-pixel light; the row of its skin, its place as a uniform
  const SKIN_VS = `#version 300 es
  layout(location = 0) in vec3 aPos; layout(location = 1) in vec3 aNrm; layout(location = 2) in uvec4 aJoint; layout(location = 3) in vec4 aWeight;
  layout(location = 5) in vec2 aUv; layout(location = 6) in vec4 aCol; // (lab_import.js: a glTF's look)
  uniform sampler2D uMats; uniform int uRow; uniform vec4 uPlace; uniform mat4 uViewProj;
  out vec3 vNrm; out vec2 vUv; out vec4 vCol;
  // a joint's matrix as its top three rows (texels 3j..3j+2 of the row)
  void joint(int j, int row, float w, inout vec4 r0, inout vec4 r1, inout vec4 r2) {
    r0 += w * texelFetch(uMats, ivec2(j * 3, row), 0); r1 += w * texelFetch(uMats, ivec2(j * 3 + 1, row), 0);
    r2 += w * texelFetch(uMats, ivec2(j * 3 + 2, row), 0);
  }
  void main() {
    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
    joint(int(aJoint.x), uRow, aWeight.x, r0, r1, r2); joint(int(aJoint.y), uRow, aWeight.y, r0, r1, r2);
    joint(int(aJoint.z), uRow, aWeight.z, r0, r1, r2); joint(int(aJoint.w), uRow, aWeight.w, r0, r1, r2);
    vec4 p4 = vec4(aPos, 1.0);
    vec3 p = vec3(dot(r0, p4), dot(r1, p4), dot(r2, p4));
    float c = cos(uPlace.w), s = sin(uPlace.w);
    vec3 w = vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z) + uPlace.xyz;
    vec3 n = vec3(dot(r0.xyz, aNrm), dot(r1.xyz, aNrm), dot(r2.xyz, aNrm));
    vNrm = vec3(c * n.x + s * n.z, n.y, -s * n.x + c * n.z);
    vUv = aUv; vCol = aCol;
    gl_Position = uViewProj * vec4(w, 1.0);
  }`;
  const SKIN_FS = `#version 300 es
  precision highp float;
  in vec3 vNrm; in vec2 vUv; in vec4 vCol; uniform vec4 uColor; uniform vec3 uKey; uniform sampler2D uTex; uniform int uTextured; out vec4 o;
  void main() {
    vec3 n = normalize(vNrm);
    float key = max(dot(n, uKey), 0.0), fill = 0.5 + 0.5 * n.y;
    // base colour x vertex colour x the base-colour texture (sRGB, read linear)
    vec3 base = uColor.rgb * vCol.rgb * (uTextured == 1 ? texture(uTex, vUv).rgb : vec3(1.0));
    vec3 c = base * (0.28 * fill + 0.85 * key) ;
    o = vec4(pow(c, vec3(1.0 / 2.2)), 1.0);
  }`;
  // the crowd: character (instance x batch + copy) reads that texture row,
  // whose matrices are already placed in the world (lab_crowd.c); the same
  // light, per vertex. A mesh may hold `batch` copies of a character, each
  // vertex with its copy number: SwiftShader pays about 30 us per instance,
  // so the low-detail mesh is drawn as 10 instances of 10 characters.
  const CROWD_VS = `#version 300 es
  layout(location = 0) in vec3 aPos; layout(location = 1) in vec3 aNrm; layout(location = 2) in uvec4 aJoint; layout(location = 3) in vec4 aWeight;
  layout(location = 4) in uint aCopy;
  uniform sampler2D uMats; uniform int uRigid, uBatch; uniform mat4 uViewProj; uniform vec4 uColor; uniform vec3 uKey;
  out vec3 vColor;
  void joint(int j, int row, float w, inout vec4 r0, inout vec4 r1, inout vec4 r2) {
    r0 += w * texelFetch(uMats, ivec2(j * 3, row), 0); r1 += w * texelFetch(uMats, ivec2(j * 3 + 1, row), 0);
    r2 += w * texelFetch(uMats, ivec2(j * 3 + 2, row), 0);
  }
  void main() {
    int row = gl_InstanceID * uBatch + int(aCopy);
    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
    if (uRigid == 1) joint(int(aJoint.x), row, 1.0, r0, r1, r2); // one joint per vertex (the low-detail mesh)
    else {
      joint(int(aJoint.x), row, aWeight.x, r0, r1, r2); joint(int(aJoint.y), row, aWeight.y, r0, r1, r2);
      joint(int(aJoint.z), row, aWeight.z, r0, r1, r2); joint(int(aJoint.w), row, aWeight.w, r0, r1, r2);
    }
    vec4 p4 = vec4(aPos, 1.0);
    vec3 n = normalize(vec3(dot(r0.xyz, aNrm), dot(r1.xyz, aNrm), dot(r2.xyz, aNrm)));
    float key = max(dot(n, uKey), 0.0), fill = 0.5 + 0.5 * n.y;
    vColor = pow(uColor.rgb * (0.28 * fill + 0.85 * key), vec3(1.0 / 2.2));
    gl_Position = uViewProj * vec4(dot(r0, p4), dot(r1, p4), dot(r2, p4), 1.0);
  }`;
  const CROWD_FS = `#version 300 es
  precision mediump float; in vec3 vColor; out vec4 o; void main() { o = vec4(vColor, 1.0); }`;
  const LINE_VS = `#version 300 es
  layout(location = 0) in vec3 aPos; uniform mat4 uViewProj; void main() { gl_Position = uViewProj * vec4(aPos, 1.0); gl_PointSize = 5.0; }`;
  const LINE_FS = `#version 300 es
  precision highp float; uniform vec4 uColor; out vec4 o; void main() { o = uColor; }`;
  function compile(gl, vs, fs) {
    const p = gl.createProgram();
    for (const [type, src] of [[gl.VERTEX_SHADER, vs], [gl.FRAGMENT_SHADER, fs]]) {
      const s = gl.createShader(type);
      gl.shaderSource(s, src); gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error('shader: ' + gl.getShaderInfoLog(s));
      gl.attachShader(p, s);
    }
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error('program: ' + gl.getProgramInfoLog(p));
    const u = {}, a = {};
    for (let i = 0; i < gl.getProgramParameter(p, gl.ACTIVE_UNIFORMS); i++) { const n = gl.getActiveUniform(p, i).name; u[n] = gl.getUniformLocation(p, n); }
    for (let i = 0; i < gl.getProgramParameter(p, gl.ACTIVE_ATTRIBUTES); i++) { const n = gl.getActiveAttrib(p, i).name; a[n] = gl.getAttribLocation(p, n); }
    return { p, u, a };
  }

  // column-major 4x4 helpers
  function perspective(fovy, aspect, near, far) {
    const f = 1 / Math.tan(fovy / 2), nf = 1 / (near - far);
    return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) * nf, -1, 0, 0, 2 * far * near * nf, 0];
  }
  function lookAt(e, t, up) {
    let z = [e[0] - t[0], e[1] - t[1], e[2] - t[2]]; let l = Math.hypot(...z); z = z.map((v) => v / l);
    let x = [up[1] * z[2] - up[2] * z[1], up[2] * z[0] - up[0] * z[2], up[0] * z[1] - up[1] * z[0]]; l = Math.hypot(...x); x = x.map((v) => v / l);
    const y = [z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]];
    const d = (a) => -(a[0] * e[0] + a[1] * e[1] + a[2] * e[2]);
    return [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, d(x), d(y), d(z), 1];
  }
  function mul(a, b) {
    const o = new Array(16).fill(0);
    for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) o[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
    return o;
  }

  function Renderer(canvas) {
    // opaque (alpha: false): the page compositor copies the canvas without blending it
    const gl = canvas.getContext('webgl2', { alpha: false, antialias: false, preserveDrawingBuffer: false });
    if (!gl) throw new Error('WebGL2 is not available');
    this.gl = gl; this.canvas = canvas;
    this.skin = compile(gl, SKIN_VS, SKIN_FS);
    this.crowd = compile(gl, CROWD_VS, CROWD_FS);
    this.line = compile(gl, LINE_VS, LINE_FS);
    this.lineBuf = gl.createBuffer();
    this.gridBuf = gl.createBuffer();
    this.tex = null;
    this.cam = { yaw: 0.6, pitch: 0.25, dist: 0, target: [0, 1, 0] };
    this.viewProj = null;
    // state every draw uses, set once: the texture unit of the matrices, the light
    for (const p of [this.skin, this.crowd]) {
      gl.useProgram(p.p); gl.uniform1i(p.u.uMats, 0); gl.uniform3f(p.u.uKey, 0.45, 0.75, 0.48);
    }
    gl.useProgram(this.skin.p); gl.uniform1i(this.skin.u.uTex, 1);
    this.looks = true; // draw textures and vertex colours the meshes have
    gl.clearColor(0.94, 0.95, 0.96, 1);
    gl.enable(gl.CULL_FACE);
    let drag = null;
    canvas.addEventListener('pointerdown', (e) => { drag = [e.clientX, e.clientY]; canvas.setPointerCapture(e.pointerId); });
    canvas.addEventListener('pointerup', () => { drag = null; });
    canvas.addEventListener('pointermove', (e) => {
      if (!drag) return;
      this.cam.yaw -= (e.clientX - drag[0]) * 0.008;
      this.cam.pitch = Math.max(-0.2, Math.min(1.45, this.cam.pitch + (e.clientY - drag[1]) * 0.006));
      drag = [e.clientX, e.clientY];
    });
    canvas.addEventListener('wheel', (e) => { e.preventDefault(); this.cam.dist *= Math.exp(e.deltaY * 0.001); }, { passive: false });
  }

  // meshes: [{ positions, normals, joints (Uint16), weights, indices (Uint32), color, skin, rigid, batch,
  //   and optionally uvs (2 per vertex) with texture (an ImageBitmap, sRGB), colors (4 per vertex) }]
  // (attribute locations are fixed in the shaders, so one vertex array serves both programs);
  // batch > 1 (the crowd): the mesh is stored as that many copies, each vertex with its copy number
  Renderer.prototype.upload = function (meshes) {
    const gl = this.gl;
    for (const m of this.meshes || []) { gl.deleteVertexArray(m.vao); for (const b of m.bufs) gl.deleteBuffer(b); }
    for (const t of (this.images || new Map()).values()) gl.deleteTexture(t);
    this.images = new Map(); // one texture per image
    this.meshes = meshes.map((m0) => {
      const k = Math.max(1, m0.batch | 0);
      const m = k === 1 ? m0 : batchCopies(m0, k);
      const vao = gl.createVertexArray(); gl.bindVertexArray(vao);
      const bufs = [];
      const attr = (loc, data, size, type, integer) => {
        const b = gl.createBuffer(); bufs.push(b);
        gl.bindBuffer(gl.ARRAY_BUFFER, b); gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
        gl.enableVertexAttribArray(loc);
        if (integer) gl.vertexAttribIPointer(loc, size, type, 0, 0); else gl.vertexAttribPointer(loc, size, type, false, 0, 0);
      };
      attr(0, m.positions, 3, gl.FLOAT);
      attr(1, m.normals, 3, gl.FLOAT);
      attr(2, m.joints, 4, gl.UNSIGNED_SHORT, true);
      attr(3, m.weights, 4, gl.FLOAT);
      if (k > 1) attr(4, m.copies, 1, gl.UNSIGNED_BYTE, true);
      else gl.vertexAttribI4ui(4, 0, 0, 0, 0); // (a disabled attribute reads this constant: copy 0)
      const textured = k === 1 && m.uvs && m.texture ? 1 : 0, colored = k === 1 && m.colors ? 1 : 0;
      if (textured) { attr(5, m.uvs, 2, gl.FLOAT); if (!this.images.has(m.texture)) this.images.set(m.texture, this.image(m.texture)); }
      if (colored) attr(6, m.colors, 4, gl.FLOAT);
      const ib = gl.createBuffer(); bufs.push(ib);
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib); gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, m.indices, gl.STATIC_DRAW);
      gl.bindVertexArray(null);
      return { vao, bufs, count: m.indices.length, color: m.color, skin: m.skin, rigid: m.rigid ? 1 : 0, batch: k,
        tex: textured ? this.images.get(m.texture) : null, colored };
    });
  };

  // an sRGB texture with mipmaps from a decoded image (glTF's UV origin is the image's top-left, as here)
  Renderer.prototype.image = function (bitmap) {
    const gl = this.gl, t = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, t);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.SRGB8_ALPHA8, gl.RGBA, gl.UNSIGNED_BYTE, bitmap);
    gl.generateMipmap(gl.TEXTURE_2D);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
    return t;
  };

  // k copies of a mesh in one set of arrays, and each vertex's copy number
  function batchCopies(m, k) {
    const nv = m.positions.length / 3, ni = m.indices.length;
    const o = { color: m.color, skin: m.skin, rigid: m.rigid, positions: new Float32Array(3 * nv * k), normals: new Float32Array(3 * nv * k),
      joints: new Uint16Array(4 * nv * k), weights: new Float32Array(4 * nv * k), indices: new Uint32Array(ni * k), copies: new Uint8Array(nv * k) };
    for (let c = 0; c < k; c++) {
      o.positions.set(m.positions, 3 * nv * c); o.normals.set(m.normals, 3 * nv * c);
      o.joints.set(m.joints, 4 * nv * c); o.weights.set(m.weights, 4 * nv * c);
      for (let i = 0; i < ni; i++) o.indices[ni * c + i] = m.indices[i] + nv * c;
      o.copies.fill(c, nv * c, nv * (c + 1));
    }
    return o;
  }

  // rows: Float32Array of height rows x width RGBA texels, uploaded as they are
  // (the texture is made again only when its size changes)
  Renderer.prototype.rows = function (data, width, height) {
    const gl = this.gl;
    if (!this.tex || this.texW !== width || this.texH !== height) {
      if (this.tex) gl.deleteTexture(this.tex);
      this.tex = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, this.tex);
      for (const k of [gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER]) gl.texParameteri(gl.TEXTURE_2D, k, gl.NEAREST);
      gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, width, height);
      this.texW = width, this.texH = height;
    }
    gl.bindTexture(gl.TEXTURE_2D, this.tex);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, width, height, gl.RGBA, gl.FLOAT, data);
  };

  // data: 16 floats per joint (column-major 4x4, stance_skin_matrices' layout),
  // jointsPerRow joints a row; stored as each matrix's top three rows
  Renderer.prototype.matrices = function (data, jointsPerRow, rows) {
    const n = jointsPerRow * rows;
    if (!this.rowsBuf || this.rowsBuf.length !== 12 * n) this.rowsBuf = new Float32Array(12 * n);
    const o = this.rowsBuf;
    for (let j = 0; j < n; j++)
      for (let r = 0; r < 3; r++) {
        const q = 12 * j + 4 * r, a = 16 * j + r;
        o[q] = data[a]; o[q + 1] = data[a + 4]; o[q + 2] = data[a + 8]; o[q + 3] = data[a + 12];
      }
    this.rows(o, jointsPerRow * 3, rows);
  };

  // The ground grid: whole lines (one segment per grid line, not per cell: SwiftShader
  // pays per primitive), clipped here to the half-space in front of the eye, since
  // SwiftShader clips a line crossing the camera plane wrongly. Rebuilt when the
  // camera, the centre cell or the step changes: with a still camera (the crowd) never.
  Renderer.prototype.grid = function (f, t, eye) {
    const gl = this.gl;
    const raw = f.height / 2, p10 = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = f.gridStep || (raw / p10 < 2 ? p10 : raw / p10 < 5 ? 2 * p10 : 5 * p10); // near a tenth of the height, rounded to 1, 2, 5
    const size = f.gridSize || f.height * 8, n = Math.min(40, Math.ceil(size / step));
    const x0 = Math.round(t[0] / step) * step, z0 = Math.round(t[2] / step) * step;
    const key = [x0, z0, step, n, f.ground, ...eye, ...t].join(',');
    if (this.gridKey === key) return;
    this.gridKey = key;
    // the eye's forward axis; keep what lies more than 2 near-plane distances ahead
    let fw = [t[0] - eye[0], t[1] - eye[1], t[2] - eye[2]];
    const fl = Math.hypot(...fw); fw = fw.map((v) => v / fl);
    const limit = 2 * this.near, y = f.ground;
    const ahead = (x, z) => (x - eye[0]) * fw[0] + (y - eye[1]) * fw[1] + (z - eye[2]) * fw[2] - limit;
    const out = [[], []]; // minor, major (every 5 steps)
    const line = (list, xa, za, xb, zb) => {
      const da = ahead(xa, za), db = ahead(xb, zb);
      if (da < 0 && db < 0) return;
      if (da < 0) { const k = da / (da - db); xa += (xb - xa) * k; za += (zb - za) * k; }
      else if (db < 0) { const k = db / (db - da); xb += (xa - xb) * k; zb += (za - zb) * k; }
      list.push(xa, y, za, xb, y, zb);
    };
    for (let i = -n; i <= n; i++) {
      const xa = x0 + i * step, za = z0 + i * step;
      line(out[Math.abs(Math.round(xa / step)) % 5 === 0 ? 1 : 0], xa, z0 - n * step, xa, z0 + n * step);
      line(out[Math.abs(Math.round(za / step)) % 5 === 0 ? 1 : 0], x0 - n * step, za, x0 + n * step, za);
    }
    this.gridCounts = [out[0].length / 3, out[1].length / 3];
    gl.bindBuffer(gl.ARRAY_BUFFER, this.gridBuf);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([...out[0], ...out[1]]), gl.DYNAMIC_DRAW);
  };

  // frame: { target, height, ground, gridSize, gridStep (default: from the height), showMesh, and either
  //   crowd: instances (texture row i = instance i, placed in the world), or
  //   place: [x, y, z, facing] of the one character, bones / joints / extra: Float32Array lines and points;
  //   viewport: [x, y, width, height] in the canvas (default: all of it), keep: draw over what is there (no clear) }
  Renderer.prototype.draw = function (f) {
    const gl = this.gl, c = this.canvas, cam = this.cam;
    if (!cam.dist) cam.dist = f.height * 2.6;
    const t = f.target;
    const eye = [t[0] + cam.dist * Math.cos(cam.pitch) * Math.sin(cam.yaw), t[1] + cam.dist * Math.sin(cam.pitch),
      t[2] + cam.dist * Math.cos(cam.pitch) * Math.cos(cam.yaw)];
    this.near = f.height * 0.02;
    const vp = this.vp = f.viewport || [0, 0, c.width, c.height]; // (project() and the lab's picking map through it)
    this.viewProj = mul(perspective(0.8, vp[2] / vp[3], this.near, f.height * 400), lookAt(eye, t, [0, 1, 0]));
    gl.viewport(vp[0], vp[1], vp[2], vp[3]);
    gl.enable(gl.DEPTH_TEST);
    if (!f.keep) gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    // the ground
    this.grid(f, t, eye);
    const l = this.line;
    gl.useProgram(l.p);
    gl.uniformMatrix4fv(l.u.uViewProj, false, this.viewProj);
    gl.bindVertexArray(null);
    gl.enableVertexAttribArray(0);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.gridBuf);
    gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
    gl.uniform4f(l.u.uColor, 0.84, 0.86, 0.88, 1);
    gl.drawArrays(gl.LINES, 0, this.gridCounts[0]);
    gl.uniform4f(l.u.uColor, 0.66, 0.7, 0.74, 1);
    gl.drawArrays(gl.LINES, this.gridCounts[0], this.gridCounts[1]);
    // the character(s)
    if (f.showMesh && this.tex && this.meshes && this.meshes.length) {
      const s = f.crowd ? this.crowd : this.skin;
      gl.useProgram(s.p);
      gl.uniformMatrix4fv(s.u.uViewProj, false, this.viewProj);
      gl.activeTexture(gl.TEXTURE0); gl.bindTexture(gl.TEXTURE_2D, this.tex);
      if (!f.crowd) gl.uniform4f(s.u.uPlace, f.place[0], f.place[1], f.place[2], f.place[3]);
      for (const m of this.meshes) {
        gl.bindVertexArray(m.vao);
        gl.uniform4f(s.u.uColor, m.color[0], m.color[1], m.color[2], 1);
        if (!f.crowd) { // a texture and vertex colours (a disabled attribute reads the constant: white)
          const tex = this.looks && m.tex;
          gl.uniform1i(s.u.uTextured, tex ? 1 : 0);
          if (tex) { gl.activeTexture(gl.TEXTURE1); gl.bindTexture(gl.TEXTURE_2D, m.tex); gl.activeTexture(gl.TEXTURE0); }
          if (m.colored && this.looks) gl.enableVertexAttribArray(6); else { gl.disableVertexAttribArray(6); gl.vertexAttrib4f(6, 1, 1, 1, 1); }
        }
        if (f.crowd) { // one draw for the crowd: f.crowd characters, batch of them an instance (batch divides f.crowd)
          gl.uniform1i(s.u.uRigid, m.rigid); gl.uniform1i(s.u.uBatch, m.batch);
          gl.drawElementsInstanced(gl.TRIANGLES, m.count, gl.UNSIGNED_INT, 0, f.crowd / m.batch);
        } else {
          gl.uniform1i(s.u.uRow, m.skin);
          gl.drawElements(gl.TRIANGLES, m.count, gl.UNSIGNED_INT, 0);
        }
      }
      gl.bindVertexArray(null);
    }
    // overlay lines: bones (dark), joints (red), extra (blue)
    const overlay = [[f.bones, [0.1, 0.12, 0.16, 1], gl.LINES], [f.joints, [0.86, 0.15, 0.15, 1], gl.POINTS], [f.extra, [0.11, 0.3, 0.85, 1], gl.LINES]]
      .filter((o) => o[0] && o[0].length);
    if (overlay.length) {
      gl.disable(gl.DEPTH_TEST);
      gl.useProgram(l.p);
      gl.bindBuffer(gl.ARRAY_BUFFER, this.lineBuf);
      gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
      for (const [data, col, mode] of overlay) {
        gl.bufferData(gl.ARRAY_BUFFER, data, gl.DYNAMIC_DRAW);
        gl.uniform4f(l.u.uColor, ...col);
        gl.drawArrays(mode, 0, data.length / 3);
      }
    }
  };

  // The camera's distance for a character (its points in the world) to stand `fill` of the view's
  // height tall and at most `wide` of its width, seen from the camera's yaw and pitch at `target`:
  // the points projected, the distance scaled by the share they fill over the share wanted, a few
  // times (the share goes as one over the distance once the character is small beside it).
  Renderer.prototype.fit = function (target, pts, fill, wide) {
    const c = this.canvas, cam = this.cam, fov = 0.8;
    let lo = Infinity, hi = -Infinity;
    for (let i = 1; i < pts.length; i += 3) { lo = Math.min(lo, pts[i]); hi = Math.max(hi, pts[i]); }
    let dist = Math.max(1e-3, hi - lo) / (fill * 2 * Math.tan(fov / 2));
    for (let it = 0; it < 10; it++) {
      const eye = [target[0] + dist * Math.cos(cam.pitch) * Math.sin(cam.yaw), target[1] + dist * Math.sin(cam.pitch),
        target[2] + dist * Math.cos(cam.pitch) * Math.cos(cam.yaw)];
      const m = mul(perspective(fov, c.width / c.height, dist * 0.01, dist * 100), lookAt(eye, target, [0, 1, 0]));
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity, behind = false;
      for (let i = 0; i < pts.length && !behind; i += 3) {
        const x = pts[i], y = pts[i + 1], z = pts[i + 2];
        const w = m[3] * x + m[7] * y + m[11] * z + m[15];
        if (w <= dist * 0.01) { behind = true; break; }
        const sx = (m[0] * x + m[4] * y + m[8] * z + m[12]) / w, sy = (m[1] * x + m[5] * y + m[9] * z + m[13]) / w;
        x0 = Math.min(x0, sx); x1 = Math.max(x1, sx); y0 = Math.min(y0, sy); y1 = Math.max(y1, sy);
      }
      if (behind) { dist *= 2; continue; }
      const k = Math.max((y1 - y0) / 2 / fill, (x1 - x0) / 2 / wide); // NDC spans 2
      if (!(k > 0)) break;
      dist *= k;
      if (Math.abs(k - 1) < 1e-3) break;
    }
    cam.dist = dist;
    return dist;
  };

  // screen box (pixels, top-left origin) of world points
  Renderer.prototype.project = function (pts) {
    const m = this.viewProj, c = this.canvas, vp = this.vp || [0, 0, c.width, c.height];
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let i = 0; i < pts.length; i += 3) {
      const x = pts[i], y = pts[i + 1], z = pts[i + 2];
      const w = m[3] * x + m[7] * y + m[11] * z + m[15];
      const sx = vp[0] + ((m[0] * x + m[4] * y + m[8] * z + m[12]) / w * 0.5 + 0.5) * vp[2];
      const sy = c.height - vp[1] - ((m[1] * x + m[5] * y + m[9] * z + m[13]) / w * 0.5 + 0.5) * vp[3];
      x0 = Math.min(x0, sx); x1 = Math.max(x1, sx); y0 = Math.min(y0, sy); y1 = Math.max(y1, sy);
    }
    return { x0: Math.max(0, Math.floor(x0)), y0: Math.max(0, Math.floor(y0)), x1: Math.min(c.width, Math.ceil(x1)), y1: Math.min(c.height, Math.ceil(y1)) };
  };

  // pixels of a box (top-left origin), read right after drawing
  Renderer.prototype.read = function (b) {
    const gl = this.gl, w = Math.max(1, b.x1 - b.x0), h = Math.max(1, b.y1 - b.y0);
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(b.x0, this.canvas.height - b.y0 - h, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    this.readError = gl.getError(); // 0, or why nothing was read (CONTEXT_LOST_WEBGL: 0x9242)
    return px;
  };

  return { Renderer };
})();
