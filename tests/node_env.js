// tests/node_env.js - emcc --pre-js for the C tests run under node: hands the
// STANCE_* and CI variables of node's environment to the C code's getenv
// (emscripten's ENV starts empty).
Module['preRun'] = Module['preRun'] || [];
Module['preRun'].push(function () {
  for (var k in process.env)
    if (k.indexOf('STANCE_') === 0 || k === 'CI') ENV[k] = process.env[k];
});
